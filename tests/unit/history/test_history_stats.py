"""diffStats: per-file status and line counts, binary files, bounded concurrency."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers_history import Agent

from waymark.store.history import stats
from waymark.store.history.pool import bounded_map
from waymark.store.history.stats import LineCounts, count_lines


def test_statuses_counts_and_totals(agent: Agent, workspace: Path) -> None:
    (workspace / "mod.txt").write_bytes(b"1\n2\n3\n4\n")
    (workspace / "gone.txt").write_bytes(b"x\ny\n")
    (workspace / "img.bin").write_bytes(b"\x00\x01")
    (workspace / "same.txt").write_bytes(b"s\n")
    agent.history.make_snapshot("t0")
    agent.write("mod.txt", b"1\nTWO\n3\n4\nfive\n")
    agent.write("gone.txt", None)
    agent.write("new.txt", b"a\nb\nc")
    agent.write("img.bin", b"\x00\x02\x03")
    agent.write("same.txt", b"changed\n")
    agent.write("same.txt", b"s\n")
    result = agent.history.diff_stats("t0")
    assert result == {
        "promptId": "t0",
        "filesChanged": 4,
        "insertions": 5,
        "deletions": 3,
        "files": [
            {"path": "gone.txt", "status": "deleted", "insertions": 0, "deletions": 2},
            {
                "path": "img.bin",
                "status": "modified",
                "insertions": 0,
                "deletions": 0,
                "binary": True,
            },
            {"path": "mod.txt", "status": "modified", "insertions": 2, "deletions": 1},
            {"path": "new.txt", "status": "created", "insertions": 3, "deletions": 0},
        ],
    }


@pytest.mark.parametrize(
    ("old", "new", "counts"),
    [
        (None, b"a\nb\n", LineCounts(2, 0)),
        (b"a\nb\n", None, LineCounts(0, 2)),
        (b"a\r\nb\r\n", b"a\r\nc\r\nb\r\n", LineCounts(1, 0)),
        (b"a\nb", b"a\nb\n", LineCounts(0, 0)),  # only the final newline: same lines
        (b"x\n" * 5, b"x\n" * 3, LineCounts(0, 2)),
        (b"\xef\xbb\xbfa\n", b"\xef\xbb\xbfb\n", LineCounts(1, 1)),
        (b"a\n", b"\x00", LineCounts(0, 0, binary=True)),
        (b"a\nb\nc\n", b"c\nb\na\n", LineCounts(2, 2)),
    ],
)
def test_count_lines(old: bytes | None, new: bytes | None, counts: LineCounts) -> None:
    assert count_lines(old, new) == counts


def test_huge_middles_fall_back_to_multisets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stats, "_EXACT_LINES", 10)
    old = b"".join(f"{n}\n".encode() for n in range(20))
    new = b"".join(f"{n}\n".encode() for n in range(20) if n % 2) + b"extra\n"
    assert count_lines(old, new) == LineCounts(1, 10)


def test_bounded_map_keeps_order_and_bounds_concurrency() -> None:
    running = 0
    peak = 0
    lock = threading.Lock()
    submitted: list[int] = []

    def work(n: int) -> int:
        nonlocal running, peak
        with lock:
            running += 1
            peak = max(peak, running)
        time.sleep(0.001)
        with lock:
            running -= 1
        return n * n

    def items() -> Iterator[int]:
        for n in range(200):
            submitted.append(n)
            yield n

    out = []
    for value in bounded_map(work, items(), workers=3):
        out.append(value)
        # never more than 2 * workers items read ahead of what was consumed
        assert len(submitted) - len(out) <= 6
    assert out == [n * n for n in range(200)]
    assert peak <= 3


def test_many_files_diff_stats(agent: Agent, workspace: Path) -> None:
    for n in range(300):
        (workspace / f"f{n}.txt").write_bytes(b"line\n" * 10)
    agent.history.make_snapshot("t0")
    for n in range(300):
        agent.write(f"f{n}.txt", b"line\n" * 10 + b"more\n")
    result = agent.history.diff_stats("t0")
    assert result["filesChanged"] == 300 and result["insertions"] == 300
    assert result["deletions"] == 0
    assert [f["path"] for f in result["files"]] == sorted(f"f{n}.txt" for n in range(300))

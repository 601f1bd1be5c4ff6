"""The 30-day retention sweep walks a history root only when a history there can be stale.

Every open of a history sweeps its root (docs/history.md, "Retention, eviction and the disk
budget"); the stamp it leaves (store/history/sweep_stamp.py) lets the opens in between skip
the walk, and must never let a stale history outlive the open that would have removed it.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from waymark.store.history import retention
from waymark.store.history.retention import remove_stale
from waymark.store.history.sweep_stamp import STAMP

DAY = 86400


def _history(root: Path, name: str, age_days: float) -> Path:
    """A workspace history last used ``age_days`` ago (its journal, lock and directory)."""
    directory = root / f"ws-{name:0>16}"
    directory.mkdir()
    for part in ("journal.jsonl", "lock"):
        (directory / part).write_bytes(b"")
    used = time.time() - age_days * DAY
    for path in (directory / "journal.jsonl", directory / "lock", directory):
        os.utime(path, (used, used))
    return directory


def _settle(root: Path) -> None:
    """The root as a sweep long ago left it: its entries unchanged since, the stamp written."""
    keep = root / "ws-keep"
    for _ in range(2):  # the first sweep creates the stamp, an entry of the root
        hour_ago = time.time() - 3600
        os.utime(root, (hour_ago, hour_ago))
        remove_stale(root, keep=keep)


def _walks(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    walked: list[Path] = []
    last_used = retention._last_used

    def counted(directory: Path) -> float:
        walked.append(directory)
        return last_used(directory)

    monkeypatch.setattr(retention, "_last_used", counted)
    return walked


def _later(monkeypatch: pytest.MonkeyPatch, days: float) -> None:
    now = time.time() + days * DAY
    monkeypatch.setattr(retention.time, "time", lambda: now)


def test_an_open_walks_no_history_while_none_can_be_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(40):
        _history(tmp_path, str(n), age_days=n % 20)
    _settle(tmp_path)
    walked = _walks(monkeypatch)
    assert remove_stale(tmp_path, keep=tmp_path / "ws-keep") == []
    assert walked == []
    assert len(list(tmp_path.glob("ws-*"))) == 40


def test_a_history_turning_stale_after_the_last_walk_goes_at_the_first_open_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    older, newer = _history(tmp_path, "a", age_days=20), _history(tmp_path, "b", age_days=5)
    keep = _history(tmp_path, "c", age_days=29)
    _settle(tmp_path)
    _later(monkeypatch, 9.9)
    assert remove_stale(tmp_path, keep=keep) == []
    _later(monkeypatch, 10.1)
    assert remove_stale(tmp_path, keep=keep) == [older]
    assert not older.exists() and newer.exists() and keep.exists()
    # ``keep`` itself is stale by now: the next open of another workspace removes it.
    _later(monkeypatch, 10.2)
    assert remove_stale(tmp_path, keep=newer) == [keep]


@pytest.mark.parametrize("name", ["ws-0123456789abcdef", ".deleting-ws-0123456789abcdef-00ff"])
def test_an_entry_added_after_the_last_walk_is_looked_at_by_the_next_open(
    tmp_path: Path, name: str
) -> None:
    _history(tmp_path, "a", age_days=1)
    _settle(tmp_path)
    # Copied in with its old times (a restore), or a removal cut short.
    added = tmp_path / name
    added.mkdir()
    (added / "lock").write_bytes(b"")
    old = time.time() - 40 * DAY
    for path in (added / "lock", added):
        os.utime(path, (old, old))
    remove_stale(tmp_path, keep=tmp_path / "ws-keep")
    assert not added.exists()
    assert (tmp_path / f"ws-{'a':0>16}").exists()


@pytest.mark.parametrize(
    "stamp",
    [b"", b"garbage\n", b"waymark-retention-1 00000000000000000001 9999999999999999999 0\n"],
)
def test_a_stamp_that_does_not_check_out_means_a_walk(tmp_path: Path, stamp: bytes) -> None:
    _history(tmp_path, "a", age_days=1)
    _settle(tmp_path)
    # Made stale behind the stamp's back: times set back leave the root's entries unchanged.
    forged = _history(tmp_path, "b", age_days=1)
    _settle(tmp_path)
    for path in (forged / "journal.jsonl", forged / "lock", forged):
        os.utime(path, (time.time() - 40 * DAY,) * 2)
    # The stamp that checks out is believed (docs/history.md says so of times set back) ...
    assert remove_stale(tmp_path, keep=tmp_path / "ws-keep") == []
    # ... and one that does not is not.
    (tmp_path / STAMP).write_bytes(stamp)
    assert remove_stale(tmp_path, keep=tmp_path / "ws-keep") == [forged]


def test_a_symlink_in_the_stamp_s_place_is_not_followed(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.write_bytes(b"mine\n")
    (root / STAMP).symlink_to(outside)
    _history(root, "a", age_days=1)
    stale = _history(root, "b", age_days=40)
    assert remove_stale(root, keep=root / "ws-keep") == [stale]
    assert outside.read_bytes() == b"mine\n"
    assert (root / STAMP).is_symlink()

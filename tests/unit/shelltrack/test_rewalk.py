"""A watched folder without git: each Pre brought up to date from the last one
(store/shelltrack/rewalk.py), stat'ing only what changed since and reading no file the last
Pre copied and nothing touched since; the same answer as a whole walk, and a rewind after
changes made between commands restores their bytes."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from waymark.store.history import History
from waymark.store.shelltrack import preimages, rewalk, scan, track, watch
from waymark.store.shelltrack.policies import WalkPolicy
from waymark.store.shelltrack.track import begin, finish


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path)) / "ws"
    for name in ("a.txt", "b.txt", "src/c.txt", "src/d.txt", "node_modules/p/i.js"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(name.encode() + b"\n")
    return root


@pytest.fixture
def watches() -> Iterator[watch.Watches]:
    """Every test here runs in a watching process, whichever way the conftest has Post scan."""
    opened = watch.Watches()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(watch, "_ACTIVE", opened)
        yield opened
    opened.close()


@pytest.fixture(autouse=True)
def fresh_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rewalk, "_LAST", {})
    monkeypatch.setattr(rewalk, "_UNTOUCHED", {})


def counted(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[object]:
    calls: list[object] = []
    real = getattr(module, name)

    def counting(*args: object, **kwargs: object) -> object:
        calls.append(args[0] if args else None)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counting)
    return calls


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


CHANGES: list[tuple[str, Callable[[Path], object]]] = [
    ("nothing", lambda ws: None),
    ("a file changed", lambda ws: _write(ws / "a.txt", b"a2\n")),
    ("a file deleted", lambda ws: (ws / "src" / "c.txt").unlink()),
    ("a file made", lambda ws: _write(ws / "src" / "e.txt", b"e\n")),
    ("a file renamed", lambda ws: (ws / "b.txt").rename(ws / "src" / "b.txt")),
    ("a directory made", lambda ws: _write(ws / "lib" / "f.txt", b"f\n")),
    ("a directory removed", lambda ws: subprocess.run(["rm", "-r", "lib"], cwd=ws, check=True)),
    ("a tool's tree replaced", lambda ws: (ws / "node_modules").rename(ws / "nm-old")),
    ("a hard link made", lambda ws: os.link(ws / "src" / "d.txt", ws / "d-link.txt")),
    ("written through one name", lambda ws: _write(ws / "d-link.txt", b"d2\n")),
    ("mode changed", lambda ws: os.chmod(ws / "a.txt", 0o600)),
]


def test_every_pre_answers_as_a_whole_walk(
    ws: Path, watches: watch.Watches, history: History
) -> None:
    policy = WalkPolicy(ws, history.workspace)
    for what, change in CHANGES:
        change(ws)
        token = watches.arm(ws, policy)
        mine = rewalk.scan(history.workspace, ws, scan.DEFAULT_MAX_FILES, token)
        whole = scan.walk(ws, history.workspace)
        assert (mine.dirty, mine.bulky, mine.unscanned, mine.cut_short) == (
            whole.dirty,
            whole.bulky,
            whole.unscanned,
            whole.cut_short,
        ), what


def test_a_pre_stats_only_what_changed_since_the_last(
    ws: Path, watches: watch.Watches, history: History, monkeypatch: pytest.MonkeyPatch
) -> None:
    walks = counted(monkeypatch, track.rewalk, "walk")
    history.make_snapshot("t1")
    for n in range(3):
        begin(history, f"call-{n}")
        assert finish(history, f"call-{n}") is not None
    (ws / "a.txt").write_bytes(b"edited between commands\n")
    begin(history, "call-3")
    assert finish(history, "call-3") is not None
    assert len(walks) == 1


def test_files_copied_and_untouched_since_are_not_read_again(
    ws: Path, watches: watch.Watches, history: History, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every file was written within the racy window of its copy (two seconds): without a
    # watch each Pre reads them all again until they are older.
    history.make_snapshot("t1")
    begin(history, "call-1")
    assert finish(history, "call-1") is not None
    read = counted(monkeypatch, preimages, "digest")
    (ws / "a.txt").write_bytes(b"a between\n")
    begin(history, "call-2")
    assert finish(history, "call-2") is not None
    assert len(read) == 1  # a.txt


def test_a_file_changed_between_commands_rewinds_to_those_bytes(
    ws: Path, watches: watch.Watches, history: History
) -> None:
    os.link(ws / "src" / "d.txt", ws / "d-link.txt")
    history.make_snapshot("t1")
    begin(history, "call-1")
    assert finish(history, "call-1") is not None
    (ws / "a.txt").write_bytes(b"between\n")
    with open(ws / "d-link.txt", "r+b") as handle:
        handle.write(b"D")
    history.make_snapshot("t2")
    begin(history, "call-2")
    subprocess.run(["sh", "-c", "printf 'cmd\\n' > a.txt; printf 'x' >> src/d.txt"], cwd=ws)
    report = finish(history, "call-2")
    assert report is not None
    assert report.modified == ["a.txt", "d-link.txt", "src/d.txt"]
    history.rewind("t2")
    assert (ws / "a.txt").read_bytes() == b"between\n"
    assert (ws / "src" / "d.txt").read_bytes() == b"Drc/d.txt\n"
    assert (ws / "d-link.txt").read_bytes() == b"Drc/d.txt\n"

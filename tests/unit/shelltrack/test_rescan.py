"""A watched git tree's Pre scan, brought up to date from the last one (store/shelltrack/
rescan.py): the same answer as a whole ``git status``, git asked only about touched paths,
and a rewind after changes made between commands restores their bytes."""

from __future__ import annotations

import mmap
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from waymark.store.history import History
from waymark.store.shelltrack import ignored, rescan, scan, watch
from waymark.store.shelltrack.policies import GitPolicy
from waymark.store.shelltrack.track import begin, finish

GIT = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path)) / "ws"
    files = {
        "a.txt": b"a\n",
        "b.txt": b"b\n",
        "src/c.txt": b"c\n",
        "src/d.txt": b"d\n",
        ".gitignore": b"*.log\nbuild/\n",
    }
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", "init"], cwd=root, check=True)
    (root / "build").mkdir()
    (root / "build" / "out.o").write_bytes(b"o\n")
    (root / "run.log").write_bytes(b"log\n")
    (root / "new.txt").write_bytes(b"untracked\n")
    (root / "b.txt").write_bytes(b"b changed\n")
    return root


@pytest.fixture
def watches() -> Iterator[watch.Watches]:
    opened = watch.Watches()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(watch, "_ACTIVE", opened)
        yield opened
    opened.close()


def git_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    calls: list[tuple[str, ...]] = []
    real = scan.run_git

    def recording(cwd: Path, *args: str, **kwargs: object) -> object:
        calls.append(args)
        return real(cwd, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(scan, "run_git", recording)
    return calls


BUDGET = 1 << 20


def both(ws: Path, watches: watch.Watches) -> tuple[tuple[object, ...], tuple[object, ...]]:
    """The Pre's scan (armed first, as ``begin`` does) and a whole ``git status`` after it,
    each with what it keeps of the ignored files."""
    token = watches.arm(ws, GitPolicy(ws))
    index = ws / ".git" / "index"
    mine = rescan.scan(ws, index, token)
    whole = scan.scan_git(ws, ws, index, ignored=True)
    return answer(mine, rescan.expand(mine, BUDGET)), answer(
        whole, ignored.expand(ws, whole.ignored, BUDGET)
    )


def answer(found: scan.FolderScan, kept: ignored.Ignored) -> tuple[object, ...]:
    return (
        found.dirty,
        found.ignored,
        found.nested,
        found.unscanned,
        found.index_sig,
        kept.files,
        kept.refused,
        kept.bulky,
    )


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


CHANGES: list[tuple[str, Callable[[Path], object]]] = [
    ("nothing", lambda ws: None),
    ("a clean file changed", lambda ws: _write(ws / "a.txt", b"a2\n")),
    ("a changed file changed again", lambda ws: _write(ws / "b.txt", b"b3\n")),
    ("a clean file deleted", lambda ws: (ws / "src" / "c.txt").unlink()),
    ("an untracked file deleted", lambda ws: (ws / "new.txt").unlink()),
    ("an untracked file made", lambda ws: _write(ws / "src" / "e.txt", b"e\n")),
    ("an ignored file made", lambda ws: _write(ws / "src" / "x.log", b"x\n")),
    ("an ignored file deleted", lambda ws: (ws / "run.log").unlink()),
    ("a file in an ignored directory", lambda ws: _write(ws / "build" / "two.o", b"2\n")),
    ("a tool's tree in it", lambda ws: _write(ws / "build" / "node_modules" / "p.js", b"1")),
    ("inside that tree", lambda ws: _write(ws / "build" / "node_modules" / "q.js", b"2")),
    ("a big file in it", lambda ws: _write(ws / "build" / "big.o", b"b" * (BUDGET + 1))),
    ("a directory made", lambda ws: _write(ws / "lib" / "f.txt", b"f\n")),
    ("the rules changed", lambda ws: _write(ws / ".gitignore", b"*.log\nbuild/\n*.txt\n")),
    ("the index changed", lambda ws: subprocess.run(["git", "add", "b.txt"], cwd=ws, check=True)),
    ("a hard link made", lambda ws: os.link(ws / "src" / "d.txt", ws / "d-link.txt")),
    ("written through one name", lambda ws: _write(ws / "d-link.txt", b"d2\n")),
]


def test_every_pre_answers_as_a_whole_git_status(ws: Path, watches: watch.Watches) -> None:
    for what, change in CHANGES:
        change(ws)
        mine, whole = both(ws, watches)
        assert mine == whole, what


def test_an_ignored_directory_is_walked_again_only_once_touched(
    ws: Path, watches: watch.Watches, monkeypatch: pytest.MonkeyPatch
) -> None:
    walked: list[str] = []
    real = ignored._directory

    def counting(root: Path, top: str) -> ignored.Walked:
        walked.append(top)
        return real(root, top)

    monkeypatch.setattr(ignored, "_directory", counting)
    walks = []
    for change in (
        lambda: None,
        lambda: None,
        lambda: (ws / "a.txt").write_bytes(b"elsewhere\n"),
        lambda: (ws / "build" / "out.o").write_bytes(b"rebuilt\n"),
    ):
        change()
        walked.clear()
        both(ws, watches)
        walks.append(len(walked))
    # One walk each time for the whole status's answer it is compared with.
    assert walks == [2, 1, 1, 2]


def test_git_is_asked_only_about_what_changed_since(
    ws: Path, watches: watch.Watches, monkeypatch: pytest.MonkeyPatch, history: History
) -> None:
    calls = git_calls(monkeypatch)
    history.make_snapshot("t1")
    begin(history, "call-1")
    assert finish(history, "call-1") is not None
    assert [c for c in calls if c[0] == "status"][-1][-1] == "."
    calls.clear()
    begin(history, "call-2")  # nothing changed since
    assert finish(history, "call-2") is not None
    assert [c for c in calls if c[0] == "status"] == []
    (ws / "a.txt").write_bytes(b"edited between commands\n")
    begin(history, "call-3")
    statuses = [c for c in calls if c[0] == "status"]
    assert [s[s.index("--") + 1 :] for s in statuses] == [("a.txt",)]


def test_a_file_changed_between_commands_rewinds_to_those_bytes(
    ws: Path, watches: watch.Watches, history: History
) -> None:
    history.make_snapshot("t1")
    begin(history, "call-1")
    assert finish(history, "call-1") is not None
    # Between the commands an editor changes a clean file and, through its other name,
    # a hard-linked one.
    os.link(ws / "src" / "d.txt", ws / "d-link.txt")
    history.make_snapshot("t2")
    begin(history, "call-2")
    assert finish(history, "call-2") is not None
    (ws / "a.txt").write_bytes(b"between\n")
    with open(ws / "d-link.txt", "r+b") as handle:
        handle.write(b"D")
    history.make_snapshot("t3")
    begin(history, "call-3")
    subprocess.run(["sh", "-c", "printf 'cmd\\n' > a.txt; printf 'x' >> src/d.txt"], cwd=ws)
    report = finish(history, "call-3")
    assert report is not None
    assert report.modified == ["a.txt", "d-link.txt", "src/d.txt"]
    history.rewind("t3")
    assert (ws / "a.txt").read_bytes() == b"between\n"
    assert (ws / "src" / "d.txt").read_bytes() == b"D\n"
    assert (ws / "d-link.txt").read_bytes() == b"D\n"


def test_a_folder_dropped_and_watched_again_does_not_vouch_for_old_tokens(
    tmp_path: Path, watches: watch.Watches
) -> None:
    folders = [tmp_path / f"f{n}" for n in range(watch.MAX_FOLDERS + 1)]
    for folder in folders:
        folder.mkdir()
    old = watches.arm(folders[0], GitPolicy(folders[0]))
    (folders[0] / "a").write_bytes(b"1")
    (folders[0] / "b").write_bytes(b"1")
    for folder in folders[1:]:
        watches.arm(folder, GitPolicy(folder))  # the first folder is dropped
    watches.arm(folders[0], GitPolicy(folders[0]))
    (folders[0] / "c").write_bytes(b"1")
    (folders[0] / "d").write_bytes(b"1")
    (folders[0] / "e").write_bytes(b"1")
    assert watches.touched(old) is None


def test_a_listed_file_written_through_a_mapping_is_stat_ed_again(
    ws: Path, watches: watch.Watches
) -> None:
    # Mapped, and its descriptor closed, before the watch starts: the write through the
    # mapping after it sends no event.
    with open(ws / "new.txt", "r+b") as handle:
        mapping = mmap.mmap(handle.fileno(), 0)
    try:
        both(ws, watches)
        mapping[:1] = b"U"
        mapping.flush()
        mine, whole = both(ws, watches)
    finally:
        mapping.close()
    assert mine == whole

"""The hook server's watch of workspace folders (store/shelltrack/watch.py): what it reports
touched, and when it says it cannot vouch (then the command's Post scans everything)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from waymark.store.shelltrack import watch


class Everything:
    """Watch every directory (a folder without protected paths)."""

    def excluded(self, relative: str) -> bool:
        return False

    def held_back(self, relative: str) -> bool:
        return False

    def released(self, held: list[str]) -> list[str]:
        return []


@pytest.fixture
def watches() -> Iterator[watch.Watches]:
    opened = watch.Watches()
    yield opened
    opened.close()


def tree(root: Path, dirs: int) -> Path:
    for n in range(dirs):
        (root / f"d{n}").mkdir(parents=True)
        (root / f"d{n}" / "f.txt").write_bytes(b"x\n")
    return root


def inotify_instances() -> int:
    fds = os.listdir("/proc/self/fd")
    return sum(1 for fd in fds if "inotify" in _link(fd))


def _link(fd: str) -> str:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return ""


def test_touched_names_files_and_new_directories(watches: watch.Watches, tmp_path: Path) -> None:
    root = tree(tmp_path / "ws", 2)
    token = watches.arm(root, Everything())
    (root / "d0" / "f.txt").write_bytes(b"y\n")
    (root / "n" / "m").mkdir(parents=True)
    (root / "n" / "m" / "g").write_bytes(b"")
    (root / "d1" / "f.txt").unlink()
    touched = watches.touched(token)
    assert touched is not None
    assert touched.paths == {"d0/f.txt", "n", "d1/f.txt"}
    assert touched.directories == {"n"}
    # The new directory is watched from then on.
    again = watches.arm(root, Everything())
    (root / "n" / "m" / "g").write_bytes(b"z")
    assert watches.touched(again) == watch.Touched({"n/m/g"}, set())


def test_a_moved_directory_or_a_second_command_is_not_vouched_for(
    watches: watch.Watches, tmp_path: Path
) -> None:
    root = tree(tmp_path / "ws", 2)
    token = watches.arm(root, Everything())
    os.rename(root / "d0", root / "q")
    assert watches.touched(token) is None
    first = watches.arm(root, Everything())  # watched afresh
    (root / "q" / "f.txt").write_bytes(b"moved\n")
    assert watches.touched(first) == watch.Touched({"q/f.txt"}, set())
    assert watches.touched(["another process", str(root), 0, 0]) is None


def test_past_the_watch_budget_the_folder_is_scanned(
    watches: watch.Watches, tmp_path: Path
) -> None:
    root = tree(tmp_path / "ws", 5)
    watches.limit = 3
    assert watches.arm(root, Everything()) is None
    watches.limit = 100
    assert watches.arm(root, Everything()) is not None


def test_one_instance_for_every_folder_and_a_bounded_number_of_folders(
    watches: watch.Watches, tmp_path: Path
) -> None:
    before = inotify_instances()
    roots = [tree(tmp_path / f"ws{n}", 1) for n in range(watch.MAX_FOLDERS + 3)]
    tokens = [watches.arm(root, Everything()) for root in roots]
    assert inotify_instances() == before
    # The folders armed longest ago were dropped: their Post scans.
    assert watches.touched(tokens[0]) is None
    assert watches.touched(tokens[-1]) == watch.Touched(set(), set())


def test_overlapping_folders_are_scanned_not_watched(
    watches: watch.Watches, tmp_path: Path
) -> None:
    outer = tree(tmp_path / "ws", 2)
    assert watches.arm(outer, Everything()) is not None
    assert watches.arm(outer / "d0", Everything()) is None
    token = watches.arm(outer, Everything())
    (outer / "d0" / "f.txt").write_bytes(b"still seen\n")
    assert watches.touched(token) == watch.Touched({"d0/f.txt"}, set())


def test_a_commands_scan_is_not_kept_in_memory_after_its_post(tmp_path: Path) -> None:
    """The resident server remembers the state files it wrote (to skip reading them back),
    but a command's scan only until its Post takes it: a walk's is megabytes."""
    from waymark.store.shelltrack import preimages

    cache = preimages.Preimages(tmp_path / "shell")
    cache.put_pending("call-1", {"scans": [], "backups": {}, "skipped": {}, "named": {}})
    path = cache.pending_path("call-1", "state")
    assert path in preimages._MEMO
    assert cache.take_pending("call-1") == {"scans": [], "backups": {}, "skipped": {}, "named": {}}
    assert path not in preimages._MEMO and not path.exists()

"""A write's directory is opened for its fsync by the flusher, not by the writer (issue 43:
that open was a path lookup on every edit's reply path); it is still fsynced, once per
directory of a flush, and at once when writes are synchronous."""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from waymark.store import files, flush


@pytest.fixture
def opened_dirs(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[list[str], list[int]]]:
    """The threads that opened a directory for reading, and the inodes fsynced."""
    real_open, real_fsync = os.open, os.fsync
    opens: list[str] = []
    synced: list[int] = []

    def recording_open(path: object, flags: int, *args: object, **kwargs: object) -> int:
        fd = real_open(path, flags, *args, **kwargs)  # type: ignore[arg-type]
        if flags & os.O_DIRECTORY and not flags & os.O_PATH:
            opens.append(threading.current_thread().name)
        return fd

    def recording_fsync(fd: int) -> None:
        real_fsync(fd)
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            synced.append(st.st_ino)

    fresh = flush.Flusher()
    for name in ("hand", "hand_directory", "drain"):
        monkeypatch.setattr(flush, name, getattr(fresh, name))
    monkeypatch.setattr(flush, "QUIET_S", 30.0)
    monkeypatch.setattr(flush, "LATEST_S", 30.0)
    monkeypatch.setattr(os, "open", recording_open)
    monkeypatch.setattr(os, "fsync", recording_fsync)
    yield opens, synced
    fresh.drain()


def test_writes_leave_the_directory_open_to_the_flush_which_syncs_it_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, opened_dirs: tuple[list[str], list[int]]
) -> None:
    opens, synced = opened_dirs
    monkeypatch.delenv("WAYMARK_DURABILITY", raising=False)
    targets = [tmp_path / f"{n}.txt" for n in range(3)]
    for target in targets:
        target.write_bytes(b"old\n")
    for target in targets:
        files.atomic_write(target, b"new\n")
    assert opens == []
    flush.drain()
    assert opens == [threading.current_thread().name]  # the drain is the flush here
    assert synced == [tmp_path.stat().st_ino]
    assert [t.read_bytes() for t in targets] == [b"new\n"] * 3


def test_a_synchronous_write_syncs_its_directory_before_returning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, opened_dirs: tuple[list[str], list[int]]
) -> None:
    _, synced = opened_dirs
    monkeypatch.setenv("WAYMARK_DURABILITY", "sync")
    target = tmp_path / "a.txt"
    target.write_bytes(b"old\n")
    files.atomic_write(target, b"new\n")
    assert synced == [tmp_path.stat().st_ino]

"""Flush-behind durability (store/flush.py): what is fsynced, on which thread, and when.

By default a write returns before any ``fsync``: the flusher thread fsyncs the file a write
renamed into place, then its directory, and whatever is left when the process exits.
``WAYMARK_DURABILITY=sync`` fsyncs both before the write returns, the file before its rename.
Observed through the real ``os.fsync``, recording only the calls that succeeded (an ``fsync``
of an ``O_PATH`` descriptor fails with EBADF and makes nothing durable).
"""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from waymark.store import files, flush
from waymark.store.history import History, history_workspace


@dataclass(frozen=True)
class Synced:
    inode: int
    directory: bool
    thread: str
    # The target's bytes when the fsync ran.
    target_then: bytes | None


@pytest.fixture
def synced(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[list[Synced], list[Path]]]:
    """Every successful fsync; the test names the target whose bytes each one records."""
    real = os.fsync
    calls: list[Synced] = []
    watched: list[Path] = []

    def recording(fd: int) -> None:
        real(fd)
        st = os.fstat(fd)
        then = watched[0].read_bytes() if watched and watched[0].exists() else None
        calls.append(
            Synced(st.st_ino, stat.S_ISDIR(st.st_mode), threading.current_thread().name, then)
        )

    # A flusher of the test's own: no thread of an earlier test's flusher is mid-flush.
    fresh = flush.Flusher()
    for name in ("hand", "hand_directory", "drain"):
        monkeypatch.setattr(flush, name, getattr(fresh, name))
    monkeypatch.setattr(os, "fsync", recording)
    yield calls, watched
    fresh.drain()


def _patient(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(flush, "QUIET_S", 30.0)
    monkeypatch.setattr(flush, "LATEST_S", 30.0)


def _on_this_thread(calls: list[Synced]) -> list[Synced]:
    return [c for c in calls if c.thread == threading.current_thread().name]


def test_a_write_returns_before_any_fsync_then_file_and_directory_are_synced(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    synced: tuple[list[Synced], list[Path]],
) -> None:
    calls, watched = synced
    monkeypatch.delenv("WAYMARK_DURABILITY", raising=False)
    # The flusher waits long enough that only the drain below can have done its work.
    _patient(monkeypatch)
    target = tmp_path / "a.txt"
    target.write_bytes(b"old\n")
    watched.append(target)
    files.atomic_write(target, b"new\n")
    assert calls == []
    flush.drain()
    assert [(c.inode, c.directory) for c in calls] == [
        (target.stat().st_ino, False),
        (tmp_path.stat().st_ino, True),
    ]
    assert target.read_bytes() == b"new\n"


def test_sync_durability_fsyncs_the_file_before_its_rename_and_the_directory_after(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    synced: tuple[list[Synced], list[Path]],
) -> None:
    calls, watched = synced
    monkeypatch.setenv("WAYMARK_DURABILITY", "sync")
    target = tmp_path / "a.txt"
    target.write_bytes(b"old\n")
    watched.append(target)
    files.atomic_write(target, b"new\n")
    assert _on_this_thread(calls) == calls
    assert [(c.inode, c.directory, c.target_then) for c in calls] == [
        (target.stat().st_ino, False, b"old\n"),
        (tmp_path.stat().st_ino, True, b"new\n"),
    ]


@pytest.mark.parametrize("durability", ["", "sync"])
def test_a_deleted_file_has_its_directory_synced(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    synced: tuple[list[Synced], list[Path]],
    durability: str,
) -> None:
    calls, _ = synced
    monkeypatch.setenv("WAYMARK_DURABILITY", durability)
    target = tmp_path / "a.txt"
    target.write_bytes(b"old\n")
    files.delete_file(target)
    assert len(_on_this_thread(calls)) == (1 if durability else 0)
    flush.drain()
    assert [(c.inode, c.directory) for c in calls] == [(tmp_path.stat().st_ino, True)]


@pytest.mark.parametrize("durability", ["", "sync"])
def test_a_rewind_syncs_every_restored_file_behind_or_before_it_returns(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    synced: tuple[list[Synced], list[Path]],
    durability: str,
) -> None:
    calls, _ = synced
    monkeypatch.setenv("WAYMARK_DURABILITY", durability)
    _patient(monkeypatch)
    ws = tmp_path / "ws"
    paths = [ws / f"d{n % 2}" / f"f{n}.txt" for n in range(6)]
    for n, path in enumerate(paths):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(f"start {n}\n".encode())
    history = History.open(tmp_path / "h", history_workspace(tmp_path / "h", [ws]))
    history.make_snapshot("t0")
    for path in paths:
        history.track_edit(path)
        path.write_bytes(b"edited\n")
        history.record_write(path, files.digest(b"edited\n"))
    history.make_snapshot("t1")
    flush.drain()
    calls.clear()
    result = history.rewind("t0")
    assert sorted(result.keys("restored")) == sorted(map(str, paths))
    assert [p.read_bytes() for p in paths] == [f"start {n}\n".encode() for n in range(6)]
    restored = {p.stat().st_ino for p in paths}
    directories = {(ws / "d0").stat().st_ino, (ws / "d1").stat().st_ino}
    # Restores may run on a few threads; none of the flusher's has run yet.
    during = list(calls)
    if durability == "sync":
        assert restored <= {c.inode for c in during if not c.directory}
    else:
        assert during == []
    flush.drain()
    assert restored <= {c.inode for c in calls if not c.directory}
    assert directories <= {c.inode for c in calls if c.directory}
    history.close()


def test_a_compacted_journal_is_synced_behind(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    synced: tuple[list[Synced], list[Path]],
) -> None:
    calls, _ = synced
    monkeypatch.delenv("WAYMARK_DURABILITY", raising=False)
    _patient(monkeypatch)
    ws = tmp_path / "ws"
    ws.mkdir()
    history = History.open(tmp_path / "h", history_workspace(tmp_path / "h", [ws]))
    history.make_snapshot("t0")
    history.compact()
    assert calls == []
    flush.drain()
    journal = history.journal.path
    assert [(c.inode, c.directory) for c in calls] == [
        (journal.stat().st_ino, False),
        (journal.parent.stat().st_ino, True),
    ]
    history.close()


_EXITING_WRITER = """
import os, sys
from waymark.store import files, flush
real = os.fsync
def logged(fd):
    real(fd)
    with open(sys.argv[2], "a") as log:
        log.write(f"{os.fstat(fd).st_ino}\\n")
os.fsync = logged
flush.QUIET_S = flush.LATEST_S = 600.0
files.atomic_write(__import__("pathlib").Path(sys.argv[1]), b"new\\n")
"""


def test_a_process_that_exits_first_syncs_what_it_wrote(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_bytes(b"old\n")
    log = tmp_path.parent / f"{tmp_path.name}-fsync.log"
    env = {k: v for k, v in os.environ.items() if k != "WAYMARK_DURABILITY"}
    subprocess.run(
        [sys.executable, "-c", _EXITING_WRITER, str(target), str(log)],
        check=True,
        timeout=60,
        env=env,
    )
    assert target.read_bytes() == b"new\n"
    inodes = [int(line) for line in log.read_text().split()]
    assert inodes == [target.stat().st_ino, tmp_path.stat().st_ino]


def test_writes_waiting_for_the_flusher_hold_few_descriptors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, synced: tuple[list[Synced], list[Path]]
) -> None:
    calls, _ = synced
    monkeypatch.delenv("WAYMARK_DURABILITY", raising=False)
    _patient(monkeypatch)
    monkeypatch.setattr(flush, "MAX_PENDING", 8)
    opened = len(os.listdir("/proc/self/fd"))
    targets = [tmp_path / f"f{n}.txt" for n in range(40)]
    for target in targets:
        files.atomic_write(target, b"x\n")
    assert len(os.listdir("/proc/self/fd")) <= opened + 8
    flush.drain()
    assert {t.stat().st_ino for t in targets} <= {c.inode for c in calls}


def test_a_disk_error_behind_the_reply_is_said_on_stderr_and_loses_no_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real_fsync = os.fsync

    def failing(fd: int) -> None:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EIO, "Input/output error")
        real_fsync(fd)  # a directory: as the filesystem answers

    target = tmp_path / "a.txt"
    flush.drain()  # earlier tests' writes are not this test's
    monkeypatch.setattr(flush.os, "fsync", failing)
    files.atomic_write(target, b"new\n")
    flush.drain()
    assert target.read_bytes() == b"new\n"
    assert capsys.readouterr().err == (
        f"waymark: writing {target} to the disk failed (EIO); it may not survive a power cut: "
        "check the disk and the file.\n"
    )


def test_a_filesystem_that_does_not_fsync_is_not_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def refusing(fd: int) -> None:
        raise OSError(errno.EINVAL, "Invalid argument")

    flush.drain()
    monkeypatch.setattr(flush.os, "fsync", refusing)
    files.atomic_write(tmp_path / "a.txt", b"new\n")
    flush.drain()
    assert (tmp_path / "a.txt").read_bytes() == b"new\n"
    assert capsys.readouterr().err == ""


def test_a_file_replaced_before_the_flush_is_not_synced_and_its_directory_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, synced: tuple[list[Synced], list[Path]]
) -> None:
    calls, _ = synced
    monkeypatch.delenv("WAYMARK_DURABILITY", raising=False)
    _patient(monkeypatch)
    target, other = tmp_path / "a.txt", tmp_path / "b.txt"
    for n in range(3):
        files.atomic_write(target, b"%d\n" % n)
    files.atomic_write(other, b"b\n")
    flush.drain()
    # The two replaced versions of a.txt have no name left: nothing of them to keep.
    assert [(c.inode, c.directory) for c in calls] == [
        (target.stat().st_ino, False),
        (other.stat().st_ino, False),
        (tmp_path.stat().st_ino, True),
    ]
    assert (target.read_bytes(), other.read_bytes()) == (b"2\n", b"b\n")


def test_a_long_burst_of_writes_is_synced_by_the_flusher_without_a_pause(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, synced: tuple[list[Synced], list[Path]]
) -> None:
    calls, _ = synced
    monkeypatch.delenv("WAYMARK_DURABILITY", raising=False)
    _patient(monkeypatch)  # writes never pause long enough, as in a burst
    monkeypatch.setattr(flush, "MAX_PENDING", 8)
    monkeypatch.setattr(flush, "EARLY_PENDING", 4, raising=False)
    targets = [tmp_path / f"f{n}.txt" for n in range(3)]  # 6 descriptors: early, not full
    for target in targets:
        files.atomic_write(target, b"x\n")
    deadline = time.monotonic() + 10
    while len({c.inode for c in calls} & {t.stat().st_ino for t in targets}) < 2:
        assert time.monotonic() < deadline, "the flusher waited for a pause"
        time.sleep(0.005)
    assert _on_this_thread(calls) == []  # no write stalled on the others' fsyncs

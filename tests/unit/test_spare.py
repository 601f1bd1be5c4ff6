"""Temp files made ahead (store/spare.py): a write that takes one lands the same bytes, mode
and refusals as one that creates its temp file, and leaves no name behind."""

from __future__ import annotations

import errno
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from waymark.engine.errors import FileChangedSinceRead
from waymark.store import files, spare
from waymark.store.batch import BatchWrite, write_batch


class Recorded(spare.Spares):
    """Spares that count the writes that took one."""

    taken = 0

    def take(self, dir_fd: int) -> int | None:
        fd = super().take(dir_fd)
        self.taken += fd is not None
        return fd


@pytest.fixture
def spares(monkeypatch: pytest.MonkeyPatch) -> Iterator[Recorded]:
    """Spares of the test's own, enabled as the language server enables them."""
    fresh = Recorded()
    fresh.enable()
    assert fresh._enabled, "this machine's Python or /proc cannot make temp files ahead"
    for name in ("take", "link", "wake"):
        monkeypatch.setattr(spare, name, getattr(fresh, name))
    yield fresh
    idle(fresh)


def idle(spares: spare.Spares) -> None:
    """Let the thread make what was asked for, then close every spare (a fork's reset)."""
    spares.wake()  # a failed write asks, but does not wake
    deadline = time.monotonic() + 10
    while spares._wanted:
        assert time.monotonic() < deadline, "the spares' thread is stuck"
        time.sleep(0.001)
    spares._forked()


def made_for(spares: spare.Spares, directory: Path) -> int:
    """Wait (bounded) until the thread has made the spare the last write asked for; its
    inode number."""
    key = spare._key(os.stat(directory))
    spares.wake()  # as the language server does once its reply has left
    deadline = time.monotonic() + 10
    while key not in spares._ready:
        assert time.monotonic() < deadline, "no spare was made"
        time.sleep(0.001)
    return os.fstat(spares._ready[key]).st_ino


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o755, 0o444, 0o4755])
def test_a_write_that_takes_a_spare_lands_the_bytes_and_keeps_the_mode(
    tmp_path: Path, spares: Recorded, mode: int
) -> None:
    target = tmp_path / "a.txt"
    files.atomic_write(target, b"one\n")
    made = made_for(spares, tmp_path)
    target.chmod(mode)
    old_link = tmp_path / "old-link"
    os.link(target, old_link)
    files.atomic_write(target, b"two\r\n")
    assert target.stat().st_ino == made
    assert target.read_bytes() == b"two\r\n"
    assert target.stat().st_mode & 0o7777 == mode
    assert target.stat().st_nlink == 1
    # The old file is still the old file: a hard link to it keeps its bytes.
    assert old_link.read_bytes() == b"one\n"
    assert sorted(os.listdir(tmp_path)) == ["a.txt", "old-link"]


def test_a_stale_write_is_refused_whether_or_not_it_took_a_spare(
    tmp_path: Path, spares: Recorded
) -> None:
    target = tmp_path / "a.txt"
    files.atomic_write(target, b"planned against\n")
    made_for(spares, tmp_path)
    target.write_bytes(b"someone else's\n")
    # Compared before any temp file: no spare taken.
    with pytest.raises(FileChangedSinceRead):
        files.atomic_write(target, b"ours\n", expected=files.digest(b"planned against\n"))
    assert spares.taken == 0
    # A batch stages first (on the spare), then compares each file as it commits.
    with pytest.raises(FileChangedSinceRead):
        write_batch([BatchWrite(target, b"ours\n", b"planned against\n")])
    assert spares.taken == 1
    assert target.read_bytes() == b"someone else's\n"
    assert sorted(os.listdir(tmp_path)) == ["a.txt"]
    # The same refusal from a batch that created its temp file by name.
    spares._enabled = False
    with pytest.raises(FileChangedSinceRead):
        write_batch([BatchWrite(target, b"ours\n", b"planned against\n")])
    assert target.read_bytes() == b"someone else's\n"
    assert sorted(os.listdir(tmp_path)) == ["a.txt"]


def test_a_batch_takes_a_spare_per_directory(tmp_path: Path, spares: Recorded) -> None:
    (tmp_path / "sub").mkdir()
    one, two = tmp_path / "one.txt", tmp_path / "sub" / "two.txt"
    write_batch([BatchWrite(one, b"1\n", None), BatchWrite(two, b"2\n", None)])
    made = made_for(spares, tmp_path), made_for(spares, tmp_path / "sub")
    write_batch([BatchWrite(one, b"one\n", b"1\n"), BatchWrite(two, b"two\n", b"2\n")])
    assert (one.stat().st_ino, two.stat().st_ino) == made
    assert (one.read_bytes(), two.read_bytes()) == (b"one\n", b"two\n")
    assert sorted(os.listdir(tmp_path)) == ["one.txt", "sub"]
    assert os.listdir(tmp_path / "sub") == ["two.txt"]


def test_an_exception_mid_write_of_a_spare_leaves_the_file_and_no_name(
    tmp_path: Path, spares: Recorded, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "a.txt"
    files.atomic_write(target, b"old\n")
    made_for(spares, tmp_path)

    def boom(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fchmod", boom)
    with pytest.raises(KeyboardInterrupt):
        files.atomic_write(target, b"new\n")
    monkeypatch.undo()
    assert target.read_bytes() == b"old\n"
    assert sorted(os.listdir(tmp_path)) == ["a.txt"]
    assert spares.taken == 1


def test_a_file_system_that_cannot_link_one_falls_back_to_creating(
    tmp_path: Path, spares: Recorded, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "a.txt"
    files.atomic_write(target, b"old\n")
    made_for(spares, tmp_path)
    real_link = os.link

    def no_link(src: str, dst: str, **kwargs: object) -> None:
        if kwargs.get("src_dir_fd") is not None:  # a spare's number in /proc/self/fd
            raise OSError(errno.EXDEV, "not here")
        real_link(src, dst, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "link", no_link)
    files.atomic_write(target, b"new\n")
    assert spares.taken == 1
    assert target.read_bytes() == b"new\n"
    assert sorted(os.listdir(tmp_path)) == ["a.txt"]
    # That device is not asked again: the next write creates its temp file by name.
    dir_fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        assert spares.take(dir_fd) is None
    finally:
        os.close(dir_fd)


def test_a_forked_child_holds_no_spares(tmp_path: Path) -> None:
    # The process's own spares: only they are reset at a fork.
    spares = spare.SPARES
    spares.enable()
    try:
        files.atomic_write(tmp_path / "a.txt", b"old\n")
        made_for(spares, tmp_path)
        pid = os.fork()
        if pid == 0:  # the child: report through the exit status only
            os._exit(0 if not spares._ready and not spares._enabled else 1)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert spares._ready  # the parent keeps its own
    finally:
        idle(spares)  # back to disabled, for the tests after this one


def test_the_spares_thread_runs_ten_steps_nicer_than_the_process(
    tmp_path: Path, spares: Recorded
) -> None:
    files.atomic_write(tmp_path / "a.txt", b"x\n")
    made_for(spares, tmp_path)
    thread = spares._thread
    assert thread is not None and thread.native_id is not None
    own = os.getpriority(os.PRIO_PROCESS, 0)
    assert os.getpriority(os.PRIO_PROCESS, thread.native_id) == min(19, own + 10)

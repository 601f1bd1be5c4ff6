"""Flush-behind: what a write left in the page cache reaches the disk soon after, not before
the reply.

Nothing here decides what survives a killed process: the page cache does, and the order of
the writes (a pre-image and its journal record before the file is replaced; a temp file
renamed over the target, never a torn file) is kept by the callers. What ``fsync`` adds is
surviving a power cut or a kernel crash, and that is what is deferred: a writer hands over
the descriptors of what it wrote (the temp file now renamed, then its directory) and one
thread of the process fsyncs them, several writes of a turn in one go: the files in order,
then each directory once, skipping a file replaced again since (nothing names it: a power
cut cannot lose it). The process drains what is left when it exits (``atexit``), and
:func:`drain` does it for a caller that needs its writes on disk now.

``WAYMARK_DURABILITY=sync`` fsyncs each descriptor before the write returns. See
docs/files-and-encodings.md §2 for what a power cut may cost.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import os
import stat
import sys
import threading
import time

# Past this many descriptors waiting, a writer fsyncs its own: a rewind of thousands of files
# must not hold thousands of descriptors open.
MAX_PENDING = 256
# Past this many, the flusher goes without waiting for a pause, so a long burst of writes (a
# hundred edits in a row) does not reach MAX_PENDING and stall one of its writes on the lot.
EARLY_PENDING = MAX_PENDING // 2
# The flusher waits for writes to pause this long, so it does not fsync in the middle of a
# burst (a turn's edits and snapshot, a rewind): an fsync makes the filesystem commit its
# journal, and every file created or renamed meanwhile waits for that commit (ext4: a burst
# of 50 backups took 4-5 times as long with fsyncs landing in it).
QUIET_S = 0.5
# ... but never longer than this after the first write it was handed: ext4's own journal
# commit interval, the window in which a write that nobody fsyncs is lost to a power cut.
LATEST_S = 5.0


def synchronous() -> bool:
    """Whether writes are fsynced before they return (``WAYMARK_DURABILITY=sync``)."""
    return os.environ.get("WAYMARK_DURABILITY") == "sync"


# What a filesystem answers when it does not fsync (a directory, a special file): the write
# has happened and nothing is lost by it.
_UNSUPPORTED = frozenset({errno.EINVAL, errno.EBADF, errno.EROFS, errno.ENOTSUP})


def _fsync_close(fd: int) -> None:
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in _UNSUPPORTED:
            # Behind the reply nobody is waiting for an answer; a disk that failed to take
            # what was written must still be said somewhere a person reads (the door's log).
            print(
                f"waymark: writing {_name_of(fd)} to the disk failed "
                f"({errno.errorcode.get(exc.errno or 0, exc.errno)}); it may not survive a "
                "power cut: check the disk and the file.",
                file=sys.stderr,
            )
    with contextlib.suppress(OSError):
        os.close(fd)


def _sync_batch(fds: list[int]) -> None:
    """Fsync and close ``fds``: the files in the order handed, then each directory once
    (its last descriptor: every rename it was handed for had happened by then), so a file
    always reaches the disk before the directory entry naming it. A file no name leads to
    any more (replaced or deleted since) is only closed: a power cut cannot lose it."""
    directories: dict[tuple[int, int], int] = {}
    for fd in fds:
        try:
            st = os.fstat(fd)
        except OSError:
            _fsync_close(fd)
            continue
        if stat.S_ISDIR(st.st_mode):
            earlier = directories.pop((st.st_dev, st.st_ino), None)
            directories[st.st_dev, st.st_ino] = fd
            if earlier is not None:
                os.close(earlier)
        elif st.st_nlink == 0:
            os.close(fd)
        else:
            _fsync_close(fd)
    for fd in directories.values():
        _fsync_directory(fd)


def _fsync_directory(fd: int) -> None:
    """Fsync the directory ``fd`` names and close ``fd``; an ``O_PATH`` descriptor (what a
    writer hands) cannot be fsynced itself, so the directory is opened through it."""
    try:
        readable = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=fd)
    except OSError:
        # Some filesystems refuse to open a directory; the rename has happened anyway.
        readable = -1
    finally:
        os.close(fd)
    if readable >= 0:
        _fsync_close(readable)


def _name_of(fd: int) -> str:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return "a file"


class Flusher:
    """One process's queue of descriptors to fsync, and the thread that does it."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._cond = threading.Condition()
        self._pending: list[int] = []
        # Held while a batch is taken off the queue and fsynced: batches go in order, and a
        # drain that holds it knows every earlier batch is done.
        self._flushing = threading.Lock()
        self._thread: threading.Thread | None = None
        self._last = 0.0
        # Whether the thread waits for a first descriptor (then a hand wakes it).
        self._idle = False
        # Whether it should go now, without waiting for writes to pause.
        self._now = False

    def hand(self, fd: int) -> None:
        """Take ``fd`` (the caller no longer closes it): fsynced and closed soon after, in
        the order handed. When writes are synchronous it is fsynced now, and a failure raises
        (the write fails, as it always did); later, one is only the disk's to report."""
        if synchronous():
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
            return
        self._queue(fd)

    def _queue(self, fd: int) -> None:
        with self._cond:
            if len(self._pending) < MAX_PENDING:
                self._pending.append(fd)
                self._last = time.monotonic()
                if self._thread is None or not self._thread.is_alive():
                    self._thread = threading.Thread(
                        target=self._run, name="waymark-flush", daemon=True
                    )
                    self._thread.start()
                elif self._idle:
                    self._cond.notify_all()
                elif len(self._pending) >= EARLY_PENDING and not self._now:
                    self._now = True
                    self._cond.notify_all()
                return
        self.drain()
        _sync_batch([fd])

    def hand_directory(self, dir_fd: int) -> None:
        """Have the directory ``dir_fd`` fsynced after a rename or unlink in it; the caller
        keeps ``dir_fd`` (which may be an ``O_PATH`` descriptor, which cannot be fsynced)."""
        # A copy of the descriptor, not the directory opened for reading: that open is a
        # lookup the reply need not wait for, and the flusher makes it once per directory.
        try:
            fd = os.dup(dir_fd)
        except OSError:
            return  # out of descriptors: the rename has happened anyway
        if synchronous():
            _fsync_directory(fd)
        else:
            self._queue(fd)

    def drain(self) -> None:
        """Return once everything handed so far is fsynced (by this thread or the flusher's)."""
        with self._flushing:
            with self._cond:
                batch, self._pending = self._pending, []
            _sync_batch(batch)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._pending:
                    self._idle = True
                    self._cond.wait()
                self._idle = False
                first = time.monotonic()
                while self._pending and not self._now:
                    now = time.monotonic()
                    until = min(self._last + QUIET_S, first + LATEST_S)
                    if now >= until:
                        break
                    self._cond.wait(until - now)
                self._now = False
            self.drain()

    def _forked(self) -> None:
        """In a forked child the flusher's thread is gone, and its queue is the parent's to
        flush: the child only holds copies of those descriptors."""
        for fd in self._pending:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._reset()


FLUSHER = Flusher()
hand = FLUSHER.hand
hand_directory = FLUSHER.hand_directory
drain = FLUSHER.drain
atexit.register(drain)
os.register_at_fork(after_in_child=FLUSHER._forked)

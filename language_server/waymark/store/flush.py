"""Flush-behind: what a write left in the page cache reaches the disk soon after, not before
the reply.

Nothing here decides what survives a killed process: the page cache does, and the order of
the writes (a pre-image and its journal record before the file is replaced; a temp file
renamed over the target, never a torn file) is kept by the callers. What ``fsync`` adds is
surviving a power cut or a kernel crash, and that is what is deferred: a writer hands over
the descriptors of what it wrote (the temp file now renamed, then its directory) and one
thread of the process fsyncs them in that order, several writes of a turn in one go. The
process drains what is left when it exits (``atexit``), and :func:`drain` does it for a
caller that needs its writes on disk now.

``WAYMARK_DURABILITY=sync`` fsyncs each descriptor before the write returns. See
docs/files-and-encodings.md §2 for what a power cut may cost.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import os
import sys
import threading
import time

# Past this many descriptors waiting, a writer fsyncs its own: a rewind of thousands of files
# must not hold thousands of descriptors open.
MAX_PENDING = 256
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
                return
        self.drain()
        _fsync_close(fd)

    def hand_directory(self, dir_fd: int) -> None:
        """Have the directory ``dir_fd`` fsynced after a rename or unlink in it; the caller
        keeps ``dir_fd`` (which may be an ``O_PATH`` descriptor, which cannot be fsynced)."""
        # Some filesystems refuse to open or fsync a directory; the rename has happened anyway.
        try:
            fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=dir_fd)
        except OSError:
            return
        if synchronous():
            _fsync_close(fd)
        else:
            self.hand(fd)

    def drain(self) -> None:
        """Return once everything handed so far is fsynced (by this thread or the flusher's)."""
        with self._flushing:
            with self._cond:
                batch, self._pending = self._pending, []
            for fd in batch:
                _fsync_close(fd)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._pending:
                    self._idle = True
                    self._cond.wait()
                self._idle = False
                first = time.monotonic()
                while self._pending:
                    now = time.monotonic()
                    until = min(self._last + QUIET_S, first + LATEST_S)
                    if now >= until:
                        break
                    self._cond.wait(until - now)
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

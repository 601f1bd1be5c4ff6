"""The history's lock, and catching up with what other processes appended to the journal.

Every process working in a workspace (editor server, CLI, MCP server, hooks) opens the same
history directory. Each operation holds an advisory ``flock`` on its ``lock`` file and first
catches up with what other processes appended to the journal (or replays from the start when
one compacted it: another file), so all of them see one history. See docs/history.md.

A long-lived process (``waymark mcp``, ``waymark-ls``, the hook server) may outlive the history
it opened: ``waymark history delete`` removes the directory under it, and another process may
create a new one. A ``flock`` on a lock file that is no longer the one at ``lock`` excludes
nobody, so every operation checks, once it holds the lock, that the file it locked is still
there; if not, it forgets all it knew and starts afresh on what is there now.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from stat import S_ISREG

from waymark.store import callbound
from waymark.store.history.blobs import BlobStore
from waymark.store.history.errors import log_warning
from waymark.store.history.journal import Journal
from waymark.store.history.model import Model
from waymark.store.history.snapshots import SnapshotRecord, record_json
from waymark.store.private import make_private_dir, open_private


class Ledger:
    """The state every process shares: the model folded over the journal, and the blobs.

    ``offset``/``lines`` say how far this process has read the journal, which it holds open
    meanwhile (``_journal_pin``): the file's inode then never becomes another file's, so a
    journal another process compacted, however often, is never taken for the one read;
    ``usable`` is false when the directory could not be created (nothing is journaled then).
    ``lost`` names the turns of a history that was deleted under this process.
    """

    def __init__(self, directory: Path, *, max_snapshots: int, max_bytes: int) -> None:
        self.dir = directory
        self.max_snapshots = max_snapshots
        self.max_bytes = max_bytes
        self.blobs = BlobStore(directory, max_bytes=max_bytes)
        self.journal = Journal(directory / "journal.jsonl")
        self.model = Model()
        self.warnings: list[str] = []
        self.usable = True
        self.offset = 0
        self.lines = 0
        self.live_bytes = 0
        self.replay_evicted = False
        # How many times this process rewrote the journal (the soak checks it compacts).
        self.compactions = 0
        self.lost: set[str] = set()
        self._lock_fd: int | None = None
        # Stat'ed at every operation: joined once.
        self._lock_path = os.path.join(directory, "lock")
        self._journal_pin: int | None = None
        # The (device, inode) of those two descriptors: a descriptor's file never changes,
        # so each lock compares paths' stats against these, without an fstat.
        self._lock_id: tuple[int, int] | None = None
        self._pin_id: tuple[int, int] | None = None

    def lock_files(self) -> None:
        if not self.usable:
            return
        while True:
            if self._lock_fd is None:
                try:
                    self._lock_fd = open_private(self.dir / "lock", os.O_RDWR | os.O_NOFOLLOW)
                    self._lock_id = _identity(self._lock_fd)
                except FileNotFoundError:
                    if not self._make_dir():
                        return
                    continue
            _flock_announced(self._lock_fd)
            self.blobs.stale()
            if self._holds_current_lock():
                break
            # Deleted (``waymark history delete``) or replaced since: this lock excludes no
            # one, and the model, the journal's offset and its descriptor describe a history
            # that is gone. Start afresh, as a process opening the workspace now would.
            self._drop_lock()
            self._forget()
        try:
            # A hook call whose host gave up on it must not act now it has the lock.
            callbound.before_acting()
        except BaseException:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            raise
        self.catch_up()

    def _make_dir(self) -> bool:
        """Create the history's directory again (it was deleted); False if it cannot be."""
        try:
            make_private_dir(self.dir)
        except OSError as exc:
            self.usable = False
            log_warning("history directory %s could not be created again: %s", self.dir, exc)
            return False
        return True

    def _holds_current_lock(self) -> bool:
        """Whether the file this process locked is still the history's ``lock``.

        Its descriptor keeps the old file's inode alive, so a new file at that path never has
        the same device and inode.
        """
        assert self._lock_fd is not None
        try:
            there = os.stat(self._lock_path, follow_symlinks=False)
        except OSError:
            return False
        return self._lock_id == (there.st_dev, there.st_ino)

    def _forget(self) -> None:
        """Drop everything read from a history that is gone; its turns are ``lost``."""
        self.lost.update(self.model.snaps)
        self.model = Model()
        self.blobs.reset()
        self.offset = self.lines = self.live_bytes = 0
        self.replay_evicted = False
        self._unpin_journal()
        self.journal.close()
        self.journal = Journal(self.journal.path)

    def pin_journal(self) -> None:
        """Hold the journal now at its path as the one this process has read (or written)."""
        self._unpin_journal()
        with contextlib.suppress(OSError):
            self._journal_pin = os.open(
                self.journal.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
            )
            self._pin_id = _identity(self._journal_pin)

    def _unpin_journal(self) -> None:
        self._pin_id = None
        if self._journal_pin is not None:
            fd, self._journal_pin = self._journal_pin, None
            with contextlib.suppress(OSError):
                os.close(fd)

    def others_waiting(self) -> bool:
        """Whether another process waits for the history's lock (held by this one)."""
        if self._lock_fd is None:
            return False
        try:
            fcntl.lockf(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 0)
        except OSError:
            return True
        fcntl.lockf(self._lock_fd, fcntl.LOCK_UN, 1, 0)
        return False

    def unlock_files(self) -> None:
        if self._lock_fd is not None:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)

    def catch_up(self) -> None:
        """Fold in what other processes appended; replay anew if one compacted the journal."""
        st = self._pinned()
        if st is None:
            try:
                st = os.stat(self.journal.path)
            except FileNotFoundError:
                if self._journal_pin is not None:
                    # Deleted by hand, without the rest of the directory.
                    self._forget()
                return
        if not S_ISREG(st.st_mode):
            # A journal that is not a file is no one's new state.
            return
        same = self._journal_pin is not None and self._pin_id == (st.st_dev, st.st_ino)
        if same and st.st_size == self.offset:
            return
        if not same or st.st_size < self.offset:
            self.model = Model()
            self.offset = self.lines = 0
            self.journal.close()
            self.pin_journal()
        replay = self.journal.replay(self._fold, offset=self.offset, number=self.lines)
        self.offset = replay.offset
        self.lines += replay.records
        self.warnings.extend(replay.warnings)

    def _pinned(self) -> os.stat_result | None:
        """The journal's stat through the descriptor pinning it, while that file is still
        linked; None: look it up by path.

        Called once the history's lock is known to be the one at its path, so this is the
        history's directory; the journal in it is only ever replaced by a rename over it or
        deleted, either of which leaves the pinned file with no link."""
        if self._journal_pin is None:
            return None
        try:
            st = os.fstat(self._journal_pin)
        except OSError:
            return None
        return st if st.st_nlink > 0 else None

    def _fold(self, record: SnapshotRecord) -> None:
        """Replay one record; evict on the way so resume holds only what is kept.

        A live rewind holds one turn more than the limit (its undo turn) until it drops the
        turns it undid, so only a turn beyond that was certainly evicted.
        """
        self.model.apply(record)
        if not record.is_update and len(self.model.snaps) > self.max_snapshots + 1:
            oldest = self.model.oldest()
            assert oldest is not None
            # Unreferenced blobs are swept after the replay, once every record is in.
            self.model.apply(self.model.drop_record(oldest))
            self.replay_evicted = True

    def append(self, records: list[SnapshotRecord]) -> bool:
        if not self.usable:
            return False
        written = self.journal.append(record_json(records))
        if written:
            self.offset += written
            self.lines += 1
            if self._journal_pin is None:
                # This append created the journal.
                self.pin_journal()
        return bool(written)

    def commit(self, record: SnapshotRecord) -> bool:
        """Journal ``record`` first, then fold it in and delete the blobs it freed."""
        ok = self.append([record])
        for digest in self.model.apply(record):
            try:
                self.blobs.delete(digest)
            except OSError as exc:
                log_warning("history blob %s could not be deleted: %s", digest, exc)
        return ok

    def close(self) -> None:
        """Release the journal's, the blobs' and the lock's descriptors."""
        self.journal.close()
        self.blobs.close()
        self._unpin_journal()
        self._drop_lock()

    def __del__(self) -> None:
        # A History is long-lived and rarely closed: one dropped unclosed (a process that
        # opens several, a test) must not keep its lock and journal pin open. The journal
        # and the packs release their own descriptors the same way.
        self._unpin_journal()
        self._drop_lock()

    def _drop_lock(self) -> None:
        self._lock_id = None
        if self._lock_fd is not None:
            fd, self._lock_fd = self._lock_fd, None
            with contextlib.suppress(OSError):
                os.close(fd)


def _identity(fd: int) -> tuple[int, int] | None:
    try:
        st = os.fstat(fd)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def same_file(fd: int, st: os.stat_result) -> bool:
    """Whether the open ``fd`` is the file ``st`` describes (same device and inode)."""
    try:
        held = os.fstat(fd)
    except OSError:
        return False
    return (held.st_dev, held.st_ino) == (st.st_dev, st.st_ino)


def still_at(fd: int, path: Path) -> bool:
    """Whether the open ``fd`` is still the file at ``path`` (not removed or replaced)."""
    try:
        there = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    return same_file(fd, there)


def _flock_announced(fd: int) -> None:
    """Take the history's lock; while waiting for it, hold a shared record lock on its first
    byte, so the holder can see someone waits (:meth:`Ledger.others_waiting`). Record locks
    and ``flock`` are independent: neither waits for the other."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return
    except BlockingIOError:
        pass
    fcntl.lockf(fd, fcntl.LOCK_SH, 1, 0)
    try:
        _flock(fd)
    finally:
        fcntl.lockf(fd, fcntl.LOCK_UN, 1, 0)


def _flock(fd: int) -> None:
    """Wait for the history's lock; a hook call only while it is on (:mod:`.callbound`)."""
    if callbound.until() is None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            # Past the bound, or its caller gone: waiting on is of no use to anyone.
            stop = callbound.over()
            if stop is not None:
                raise stop from None
            time.sleep(0.005)


# How often work holding the lock past its first slice asks whether anyone waits for it.
ASK_WAITERS_S = 0.05


@dataclass
class HistoryLock:
    """The history's lock: a thread lock plus, outermost, the cross-process ``flock``."""

    ledger: Ledger
    thread: threading.RLock = field(default_factory=threading.RLock)
    depth: int = 0
    # Threads of this process waiting for the lock.
    waiting: int = 0
    _counting: threading.Lock = field(default_factory=threading.Lock)

    def __enter__(self) -> None:
        if not self.thread.acquire(blocking=False):
            with self._counting:
                self.waiting += 1
            try:
                self.thread.acquire()
            finally:
                with self._counting:
                    self.waiting -= 1
        self.depth += 1
        if self.depth == 1:
            try:
                self.ledger.lock_files()
            except BaseException:
                self.depth -= 1
                self.thread.release()
                raise

    def __exit__(self, *exc: object) -> None:
        self.depth -= 1
        if self.depth == 0:
            self.ledger.unlock_files()
        self.thread.release()

    def slice(self, seconds: float, longer: float) -> Callable[[], bool]:
        """Whether work that holds the lock may go on: for ``seconds``, then up to ``longer``
        while no one waits for it (asked every :data:`ASK_WAITERS_S`, not per file)."""
        start = time.monotonic()
        asked, free = start, True

        def going_on() -> bool:
            nonlocal asked, free
            now = time.monotonic()
            if now < start + seconds:
                return True
            if now >= start + longer:
                return False
            if now - asked >= ASK_WAITERS_S:
                asked = now
                free = not self.waiting and not self.ledger.others_waiting()
            return free

        return going_on

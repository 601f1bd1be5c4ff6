"""Append-only pack segments: many blobs to a file, each record carrying its digest and length.

Creating a file waits on the filesystem's journal (a blob file per backup cost more than
reading and hashing the bytes); appending to an open segment does not. The records' format
is :mod:`.packformat`'s.

Appends go to the newest segment, under an ``flock`` on it (every appender also holds the
history's lock; the segment's own lock keeps the format safe without it). A record past the
end of its segment (a kill or a full disk mid-append) is a torn tail: the segment gets no
more appends (the next goes to a new one) and the torn bytes are never indexed. A damaged
header inside a segment is skipped up to the next valid header.

Eviction: deleting a blob only forgets it (its record is dead); :mod:`.packgc` reclaims the
space. See docs/history.md.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
from collections.abc import Collection
from pathlib import Path

from waymark.store.history.packformat import (
    HEADER,
    MAX_SEGMENT,
    MIN_SEGMENT,
    NAME,
    RecordCorrupt,
    Segment,
    header,
    next_header,
    parse_header,
    read_record,
    segment_name,
    write_all,
)
from waymark.store.private import DIR_MODE, open_private

__all__ = ["HEADER", "Packs", "RecordCorrupt", "header", "parse_header"]

# The directory as ``os.stat`` of its path reaches it (a symlink followed), held for its stat.
_DIR_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_CLOEXEC


class Packs:
    """The pack segments under ``root`` and an index of their records (digest → place)."""

    def __init__(self, root: Path, *, max_bytes: int) -> None:
        self.root = root
        self._dir = os.fspath(root)
        # The directory's (inode, mtime) at the last full look.
        self._stamp: tuple[int, int] | None = None
        self.cap = max(MIN_SEGMENT, min(MAX_SEGMENT, max_bytes // 16))
        self.segments: dict[int, Segment] = {}
        self.index: dict[str, tuple[int, int, int]] = {}
        # Blobs this process saw released (or found unreferenced on open): the only records a
        # compaction drops, so a damaged journal's unreferenced blobs are kept for recovery.
        self.dead: set[str] = set()
        # Whether blobs were released since the last compaction.
        self.released = False
        self.stale = True
        self.lock = threading.RLock()
        self._fd: int | None = None
        self._fd_number: int | None = None
        # ``packs/`` held open (O_PATH): its stat through this while it has a link.
        self._dir_fd: int | None = None

    # -- the index -------------------------------------------------------------------------

    def refresh(self, *, full: bool = False) -> None:
        """Read what other processes appended, created or removed since this one looked.

        Segments are created and removed seldom, so unless ``full`` the directory is listed
        only when its mtime moved; otherwise only the newest segment (the one appended to) is
        looked at. Missing a change that way (two in one timestamp tick) is harmless: a blob
        not found is looked for with a full look (:meth:`get`), an append to a segment that
        is no longer the newest is as good as any, and compaction always looks fully."""
        with self.lock:
            self.stale = False
            try:
                st = self._dir_stat()
            except OSError:
                # None yet, or no history directory at all (the history is then not usable).
                self._stamp = None
                self._reread({})
                return
            stamp = (st.st_ino, st.st_mtime_ns)
            if not full and stamp == self._stamp:
                if not self.segments:
                    return
                newest = self._newest_size()
                if newest is not None:
                    seg, size = newest
                    if size != seg.size:
                        self._scan(seg, size)
                    return
            self._stamp = stamp
            there: dict[int, os.stat_result] = {}
            try:
                names = os.listdir(self._dir)
            except OSError:
                names = []
            for name in names:
                match = NAME.fullmatch(name)
                if match is None:
                    continue
                with contextlib.suppress(OSError):
                    there[int(match[1])] = os.stat(self.path(int(match[1])), follow_symlinks=False)
            self._reread(there)

    def _dir_stat(self) -> os.stat_result:
        """The directory's stat: through the descriptor held while that directory still has a
        link, else looked up by path (and held from then on).

        ``packs/`` is removed or renamed only with the history's directory, which a process
        notices at its lock (its lock file is no longer the one at its path) and forgets all it
        held (:meth:`reset`); one removed by hand has no link left."""
        fd = self._dir_fd
        if fd is not None:
            with contextlib.suppress(OSError):
                st = os.fstat(fd)
                if st.st_nlink > 0:
                    return st
            self._close_dir()
        fd = os.open(self._dir, _DIR_FLAGS)
        self._dir_fd = fd
        return os.fstat(fd)

    def _close_dir(self) -> None:
        if self._dir_fd is not None:
            fd, self._dir_fd = self._dir_fd, None
            with contextlib.suppress(OSError):
                os.close(fd)

    def _newest_size(self) -> tuple[Segment, int] | None:
        """The newest segment and its size now, when it is still the file indexed (None:
        look fully). The descriptor appends go through is that file itself: a segment is only
        ever created (``O_EXCL``) or unlinked, never renamed over, so while it has a link it
        is the one at its name, and an ``fstat`` says so without a path lookup."""
        seg = self.segments[max(self.segments)]
        try:
            if self._fd is not None and self._fd_number == seg.number:
                st = os.fstat(self._fd)
                if st.st_nlink == 0:
                    return None
            else:
                st = os.stat(self.path(seg.number), follow_symlinks=False)
        except OSError:
            return None
        if st.st_ino != seg.ino or st.st_size < seg.size:
            return None
        return seg, st.st_size

    def _reread(self, there: dict[int, os.stat_result]) -> None:
        for number, seg in list(self.segments.items()):
            st = there.get(number)
            if st is None or st.st_ino != seg.ino or st.st_size < seg.size:
                # Gone, another file, or cut short by hand: read it again from the start.
                self.drop(number)
        for number, st in sorted(there.items()):
            known = self.segments.get(number)
            if known is None:
                known = self.segments[number] = Segment(number, st.st_ino)
            if st.st_size != known.size:
                self._scan(known, st.st_size)

    def path(self, number: int) -> str:
        return os.path.join(self._dir, segment_name(number))

    def drop(self, number: int) -> None:
        seg = self.segments.pop(number)
        for digest in seg.records:
            place = self.index.get(digest)
            if place is not None and place[0] == number:
                del self.index[digest]
        if self._fd_number == number:
            self._close_fd()

    def _scan(self, seg: Segment, size: int) -> None:
        """Index the records from ``seg.end`` to ``size``; a torn tail seals the segment."""
        try:
            fd = os.open(self.path(seg.number), os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return
        try:
            pos = seg.end
            while pos + HEADER <= size:
                parsed = parse_header(os.pread(fd, HEADER, pos))
                if parsed is None:
                    found = next_header(fd, pos + 1, size)
                    seg.sealed = True
                    if found is None:
                        break
                    pos = found
                    continue
                digest, length = parsed
                end = pos + HEADER + length
                if end > size:
                    break
                seg.records[digest] = (pos, length)
                self.index.setdefault(digest, (seg.number, pos, length))
                pos = seg.end = end
            if pos != size:
                seg.sealed = True
            seg.size = size
        finally:
            os.close(fd)

    def size(self, digest: str) -> int | None:
        """The blob's length, when a segment holds it."""
        if self.stale:
            self.refresh()
        place = self.index.get(digest)
        return None if place is None else place[2]

    def disk_bytes(self) -> int:
        return sum(seg.size for seg in self.segments.values())

    # -- reading ---------------------------------------------------------------------------

    def get(self, digest: str) -> bytes | None:
        """The blob's bytes (None: no segment holds it); :class:`RecordCorrupt`, ``OSError``."""
        with self.lock:
            if self.stale:
                self.refresh()
            try:
                found = self._read(digest)
            except (RecordCorrupt, FileNotFoundError):
                found = None
            if found is not None:
                return found
            # Not where this process last saw it: another process may have compacted it
            # away, or appended it to a segment this one did not look at. Look again, fully;
            # a record this process released is still there until compacted, and asked for
            # it is referenced again (by another process).
            self.refresh(full=True)
            if digest not in self.index:
                for seg in self.segments.values():
                    if digest in seg.records:
                        self.index[digest] = (seg.number, *seg.records[digest])
                        self.dead.discard(digest)
                        seg.dead = max(0, seg.dead - HEADER - seg.records[digest][1])
                        break
            return self._read(digest)

    def _read(self, digest: str) -> bytes | None:
        place = self.index.get(digest)
        if place is None:
            return None
        return read_record(self.path(place[0]), place[1], digest, place[2])

    # -- appending -------------------------------------------------------------------------

    def put(self, digest: str, data: bytes | memoryview) -> None:
        """Append the blob unless a segment already holds it; ``OSError`` when it cannot be."""
        with self.lock:
            if self.stale:
                self.refresh()
            self.dead.discard(digest)
            if digest in self.index:
                return
            self.append([header(digest, len(data)), data], digest, len(data))

    def append(self, parts: list[bytes | memoryview], digest: str, length: int) -> int:
        """Append one record; return the segment it went to."""
        total = sum(len(p) for p in parts)
        while True:
            seg, fd = self._target()
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                size = os.fstat(fd).st_size
                if size != seg.size:
                    # Another process appended (or tore a record) since this one looked.
                    self._scan(seg, size)
                    if seg.sealed or seg.size >= self.cap:
                        continue
                if digest in self.index:
                    return self.index[digest][0]
                try:
                    write_all(fd, parts)
                except BaseException:
                    # Our own torn record, behind the lock no appender waits past: take it
                    # back, or seal the segment if even that fails.
                    try:
                        os.ftruncate(fd, size)
                    except OSError:
                        seg.sealed = True
                    raise
                seg.records[digest] = (size, length)
                self.index[digest] = (seg.number, size, length)
                seg.end = seg.size = size + total
                return seg.number
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)

    def first_segment(self) -> None:
        """Create a segment when there is none: made with the history, so the first backup
        appends rather than waits for a file creation on a filesystem busy with fsyncs (a
        good part of a turn's backups of small files). ``OSError`` when it cannot be."""
        with self.lock:
            if self.stale:
                self.refresh()
            if not self.segments:
                self._target()

    def _target(self) -> tuple[Segment, int]:
        """The segment to append to (the newest, unless sealed or full) and its descriptor."""
        newest = max(self.segments, default=None)
        if newest is not None:
            seg = self.segments[newest]
            if not seg.sealed and seg.size < self.cap:
                if self._fd_number != newest:
                    self._close_fd()
                    self._fd = os.open(self.path(newest), os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
                    self._fd_number = newest
                assert self._fd is not None
                return seg, self._fd
        number = (newest or 0) + 1
        try:
            fd = self._create(self.path(number))
        except FileExistsError:
            # Another process made it first: append there, as it does.
            self.refresh(full=True)
            return self._target()
        self._close_fd()
        self._fd, self._fd_number = fd, number
        seg = self.segments[number] = Segment(number, os.fstat(fd).st_ino)
        return seg, fd

    def _create(self, path: str) -> int:
        """A new segment; ``packs/`` is made when missing (never the history directory: a
        history deleted under this process is no place for a backup)."""
        flags = os.O_WRONLY | os.O_APPEND | os.O_EXCL
        try:
            return open_private(Path(path), flags)
        except FileNotFoundError:
            try:
                os.mkdir(self.root, DIR_MODE)
            except FileExistsError:
                pass
            else:
                os.chmod(self.root, DIR_MODE)
            return open_private(Path(path), flags)

    def _close_fd(self) -> None:
        if self._fd is not None:
            fd, self._fd, self._fd_number = self._fd, None, None
            with contextlib.suppress(OSError):
                os.close(fd)

    def close(self) -> None:
        with self.lock:
            self._close_fd()
            self._close_dir()

    def __del__(self) -> None:
        # Unreachable, so no thread holds the lock: the descriptors go without it.
        self._close_fd()
        self._close_dir()

    def reset(self) -> None:
        """Forget everything (the history was deleted under this process)."""
        with self.lock:
            self._close_fd()
            self._close_dir()
            self.segments.clear()
            self.index.clear()
            self.dead.clear()
            self.stale = True

    # -- eviction --------------------------------------------------------------------------

    def forget(self, digest: str) -> None:
        """Nothing references the blob any more; its bytes go at the next compaction."""
        with self.lock:
            place = self.index.pop(digest, None)
            if place is not None and place[0] in self.segments:
                self.segments[place[0]].dead += HEADER + place[2]
            self.dead.add(digest)
            self.released = True

    def discard_except(self, keep: Collection[str]) -> None:
        """Every packed blob not in ``keep`` is unreferenced (a clean journal says so)."""
        with self.lock:
            self.refresh(full=True)
            for seg in self.segments.values():
                for digest, (_, length) in seg.records.items():
                    if digest not in keep:
                        self.index.pop(digest, None)
                        self.dead.add(digest)
                        seg.dead += HEADER + length
            self.released = True

"""Whether a file holds given bytes, compared as they are read: its bytes are never kept.

A commit compares each file with the bytes its change was planned against, twice under its
locks (the re-read, then right before the rename). Read whole, a 10 MB file is a fresh
10 MB buffer each time, and its page faults cost the process more than the copy; read in
chunks into one buffer compared in place, it costs the copy. The file is reached, refused
and read to its end exactly as :func:`~waymark.store.walk.read_at` reads it, so the answer
is ``read_at(...) == expected`` and a refusal is the one ``read_at`` raises.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from waymark.store.walk import (
    Walks,
    _too_large,
    lstat_at,
    not_regular,
    os_error,
    split_text,
    symlink_refused,
    walk,
)

_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
# Large enough that a read costs little beside its copy, small enough to stay in the L2
# cache while it is compared; a fresh buffer's pages each cost a fault (~2 us here): 128 KiB
# compared a 10 MB file in 0.5 ms less CPU than 1 MiB did (bench/results.md, h54cli).
_CHUNK = 1 << 17


def holds(
    path: Path | str,
    expected: bytes | None,
    *,
    limit: int | None = None,
    walks: Walks | None = None,
) -> bool:
    """Whether the file at ``path`` holds exactly ``expected`` (``None``: it is absent),
    read as :func:`~waymark.store.files.read_found` reads it (``limit``, ``walks``)."""
    absolute, dirs, name = split_text(path, False)
    try:
        if walks is not None:
            return holds_at(absolute, name, walks.directory(absolute, dirs), expected, limit)
        with walk(absolute, dirs) as dir_fd:
            return holds_at(absolute, name, dir_fd, expected, limit)
    except FileNotFoundError:
        return expected is None
    except OSError as exc:
        raise os_error(exc, "read", Path(path)) from exc


def holds_at(
    path: Path | str, name: str, dir_fd: int, expected: bytes | None, limit: int | None = None
) -> bool:
    """:func:`holds` of the file ``name`` in ``dir_fd``."""
    before = lstat_at(name, dir_fd)
    if before is None:
        return expected is None
    if stat.S_ISLNK(before.st_mode):
        raise symlink_refused(path, str(path))
    if not stat.S_ISREG(before.st_mode):
        raise not_regular(path, before.st_mode)
    try:
        fd = os.open(name, _READ_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        return expected is None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise symlink_refused(path, str(path)) from exc
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise not_regular(path, st.st_mode)
        if limit is not None and st.st_size > limit:
            raise _too_large(path, st.st_size, limit)
        return _compared(fd, st.st_size, expected, path, limit)
    finally:
        os.close(fd)


def _compared(
    fd: int, size: int, expected: bytes | None, path: Path | str, limit: int | None
) -> bool:
    # read_at asks for more than the fstat's size and takes all those bytes, short of what it
    # asked, as the end; each read here asks for as much or a chunk's worth, so reads that
    # got all they asked for, then a short one with ``size`` bytes in all, are that end. A
    # file still growing is read to its end, over the limit refused, a mismatch found early
    # read on too: the refusals are read_at's. A small file is one read; a large one is read
    # into one chunk-sized buffer, again and again (only its pages are faulted in).
    ask = min(size + 1, _CHUNK)
    buffer = bytearray(ask) if ask == _CHUNK else None
    view = memoryview(buffer) if buffer is not None else None
    same = expected is not None
    total = 0
    whole = True  # every read so far got all it asked for
    while True:
        if buffer is None:
            chunk: bytes | memoryview = os.read(fd, ask)
            count = len(chunk)
        else:
            assert view is not None
            count = os.readv(fd, [buffer])
            chunk = view[:count]
        if not count:
            break
        if same:
            assert expected is not None
            same = expected.startswith(chunk, total)
        total += count
        if whole and total == size and count < ask:
            break
        whole = whole and count == ask
        if limit is not None and total > limit:
            raise _too_large(path, total, limit)
    return same and expected is not None and total == len(expected)

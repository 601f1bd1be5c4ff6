"""When the retention sweep of a history root must walk its histories again.

The sweep stats every history under the root (``retention.remove_stale``), and every history
opens it: a cost that grows with the user's machine, not the request. What it finds decides
when it can next find anything: a history only goes stale 30 days after its last use, and a
use only moves that later. So the sweep records, in ``STAMP`` under the root, the earliest
moment any history it listed can be stale, and the root's mtime before it listed them. A new
entry (a history created or copied in, a removal's ``.deleting-`` leftover) changes that
mtime; until then, and until that moment, an open reads the stamp and walks nothing.

The record is rewritten in place (a rename would change the root's mtime) and carries its own
checksum: a torn or interleaved write reads as no stamp, which only costs a sweep.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from pathlib import Path
from typing import Final

from waymark.store.private import open_private

STAMP: Final = "retention-stamp"
_MAGIC: Final = b"waymark-retention-1"
# Filesystem timestamps tick coarsely (up to 10 ms on Linux, a server's clock over NFS): an
# entry added in the tick the root was stat'ed could leave its mtime unchanged. A root mtime
# this recent is not recorded, so the next open sweeps again.
_SETTLED_NS: Final = 1_000_000_000


def root_mtime(root: Path) -> int | None:
    """The root's mtime in ns, taken before the sweep lists it (``None``: no root)."""
    try:
        return os.stat(root).st_mtime_ns
    except OSError:
        return None


def still_settled(root: Path, mtime_ns: int, now: float) -> bool:
    """Whether the stamp says no history under ``root`` can be stale at ``now``."""
    try:
        fd = os.open(root / STAMP, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        data = os.read(fd, 256)
    except OSError:
        return False
    finally:
        os.close(fd)
    parsed = _parse(data)
    return parsed is not None and parsed[0] == mtime_ns and now < parsed[1] / 1e9


def record(root: Path, mtime_ns: int, due: float) -> None:
    """Note that the sweep that stat'ed ``root`` at ``mtime_ns`` found nothing stale before
    ``due`` (a failure to write it only means the next open sweeps)."""
    if time.time_ns() - mtime_ns < _SETTLED_NS:
        mtime_ns = 0
    due_ns = max(0, min(int(due * 1e9), 10**19 - 1))
    try:
        fd = open_private(root / STAMP, os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            os.pwrite(fd, _line(mtime_ns, due_ns), 0)
    except OSError:
        pass
    finally:
        os.close(fd)


def _line(mtime_ns: int, due_ns: int) -> bytes:
    # Fixed widths: every record has the same length, so one overwrites the last whole.
    body = b"%s %020d %019d" % (_MAGIC, mtime_ns, due_ns)
    return b"%s %s\n" % (body, hashlib.sha256(body).hexdigest()[:16].encode())


def _parse(data: bytes) -> tuple[int, int] | None:
    parts = data.split(b" ")
    if len(parts) != 4 or parts[0] != _MAGIC or not all(p.isdigit() for p in parts[1:3]):
        return None
    if data != _line(int(parts[1]), int(parts[2])):
        return None
    return int(parts[1]), int(parts[2])

"""Compacting pack segments: reclaiming the space of records nothing references.

A released blob's record stays in its segment (dead) until its segment is compacted: a
segment with no live record is unlinked; one whose dead records outweigh its live ones (with
``pressed``, past the budget: one with any dead record) has its live records appended anew to
the newest segment, which is fsynced before the old one is unlinked — the copies may be of
data long on disk, and a power cut must not lose both. See docs/history.md.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Collection

from waymark.store.history.packformat import HEADER, RecordCorrupt, Segment, header, read_record
from waymark.store.history.packs import Packs


def compact(packs: Packs, live: Collection[str], *, pressed: bool = False) -> int:
    """Unlink segments with no live record; copy the live records of segments mostly dead
    (with ``pressed``: of every segment with a dead record) to the newest. Returns the
    bytes freed. Called under the history's lock, with ``live`` every referenced digest:
    a record is dead when it was released and nothing references it again."""
    freed = 0
    with packs.lock:
        packs.released = False
        packs.refresh(full=True)
        newest = max(packs.segments, default=None)
        copied: list[Segment] = []
        for number in sorted(packs.segments):
            seg = packs.segments[number]
            # Only a segment this process released enough of (or a damaged one) can be worth
            # it: compaction after each eviction must not walk every record of the history.
            if not (seg.sealed or (pressed and seg.dead) or 2 * seg.dead >= seg.size):
                continue
            keep = {d: r for d, r in seg.records.items() if d not in packs.dead or d in live}
            used = sum(HEADER + length for _, length in keep.values())
            if used == seg.size:
                continue
            if not keep:
                freed += _unlink(packs, seg)
            elif (pressed or 2 * used < seg.size) and (number != newest or pressed):
                copied.append(seg)
        if copied:
            freed += _copy_out(packs, copied, live)
    return freed


def _copy_out(packs: Packs, segments: list[Segment], live: Collection[str]) -> int:
    """Copy the live records of ``segments`` into fresh appends, fsync, unlink them."""
    targets: set[int] = set()
    emptied: list[Segment] = []
    for seg in segments:
        # A segment being emptied takes none of the copies.
        seg.sealed = True
        if _copy_live(packs, seg, live, targets):
            emptied.append(seg)
    for number in targets:
        fd = os.open(packs.path(number), os.O_RDONLY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    return sum(_unlink(packs, seg) for seg in emptied)


def _copy_live(packs: Packs, seg: Segment, live: Collection[str], targets: set[int]) -> bool:
    """Append ``seg``'s live records anew; False (the segment stays) when one of them
    cannot be read intact: a damaged record is never copied, it is reported at a rewind."""
    path = packs.path(seg.number)
    for digest, (offset, length) in seg.records.items():
        if digest in packs.dead and digest not in live:
            continue
        place = packs.index.get(digest)
        if place is not None and place[0] != seg.number:
            continue
        try:
            data = read_record(path, offset, digest, length)
        except (RecordCorrupt, OSError):
            return False
        packs.index.pop(digest, None)
        targets.add(packs.append([header(digest, length), data], digest, length))
    return True


def _unlink(packs: Packs, seg: Segment) -> int:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(packs.path(seg.number))
    size = seg.size
    packs.drop(seg.number)
    packs.dead.difference_update(d for d in seg.records if d not in packs.index)
    return size

"""Keeping the memory of a large file's run in the process for the next one.

A run on a file of N bytes has the file, its pieces' results and the joined output alive at
once: about 3N. glibc gives the top of its heap back to the kernel as soon as the free space
there reaches its trim threshold, which is twice the largest block it has unmapped so far:
2N once the read buffer of the first file is freed. When the output is larger than the file
(a rename to a longer name, a line appended after others), the freed run crosses that
threshold whatever its shape (the file and its output alone are already more than 2N), and
the next run faults every page in again: about 5,000 page faults on 8 MB, as much time as
the work itself (bench/results.md). Whether a run crosses it was decided within a few KB,
so the same program on the same file was fast in one process and slow in the next.

Freeing one block that glibc had to map for itself, larger than any before, raises both of
its thresholds (the dynamic mmap threshold, glibc's ``malloc.c``): a ``bytes`` of 2N made of
zeros is such a block, and costs a map and an unmap, since no page of it is ever written.
The heap then keeps up to 4N free for the next run instead of returning it. Other allocators
only see a large allocation freed at once. Python gives no other way to ask (``mallopt`` is
not exposed, and the engine loads no library).
"""

from __future__ import annotations

# Below this a file's run fits in the heap's default room; nothing to keep.
SMALL = 1 << 20
# glibc stops raising its thresholds for blocks above this (DEFAULT_MMAP_THRESHOLD_MAX on
# 64-bit machines): a larger block would be mapped and unmapped for nothing.
LARGEST = 32 << 20

_kept = 0


def keep_heap(size: int) -> None:
    """Before a run on ``size`` bytes: let the heap keep that run's memory for the next."""
    global _kept
    wanted = min(2 * size, LARGEST)
    if size < SMALL or wanted <= _kept:
        # Once raised, the thresholds stay: a second block would now come from the heap
        # itself, whose zeros are written (and its pages faulted in).
        return
    _kept = wanted
    bytes(wanted)

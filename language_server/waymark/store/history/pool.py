"""``map`` on a small thread pool with a bounded number of items in flight.

Hashing and reading release the GIL, so backups, restores and line counts of big files run a
few files at a time; the bound keeps memory at a few files' worth.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sized
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import Future

T = TypeVar("T")
R = TypeVar("R")

MAX_WORKERS = 4
# Backups and restores wait on the filesystem, not the CPU, so they use this many regardless
# of the core count, once there are enough bytes (:func:`io_workers`).
IO_WORKERS = 4
# Below this many bytes to read or write, files are in the page cache and done in microseconds
# each: threads would cost more (their start, the GIL handed back and forth) than they save.
POOL_BYTES = 32 << 20


def io_workers(total_bytes: int) -> int:
    """How many threads backups or restores of ``total_bytes`` in all are worth."""
    return IO_WORKERS if total_bytes >= POOL_BYTES else 1


def bounded_map(
    fn: Callable[[T], R], items: Iterable[T], workers: int | None = None
) -> Iterator[R]:
    """``map`` on a small pool, at most ``2 * workers`` items in flight; results in order."""
    count = workers or min(MAX_WORKERS, os.cpu_count() or 1)
    # A pool is worth its threads for several items only; a hook opening a turn usually has
    # none or one, and pays no thread start nor the import.
    if count <= 1 or (isinstance(items, Sized) and len(items) <= 1):
        yield from map(fn, items)
        return
    from concurrent.futures import ThreadPoolExecutor

    window = 2 * count
    pending: list[Future[R]] = []
    with ThreadPoolExecutor(max_workers=count, thread_name_prefix="waymark-stats") as pool:
        for item in items:
            pending.append(pool.submit(fn, item))
            if len(pending) >= window:
                yield pending.pop(0).result()
        for future in pending:
            yield future.result()

"""Line statistics for what a rewind would undo, in bounded time and memory.

Each file is compared on its own and its bytes are dropped before the next is read, so the
peak is a few files' worth whatever the number of tracked files. Files run on a small thread
pool (hashing and reading release the GIL) with a bounded number in flight.
"""

from __future__ import annotations

import difflib
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

from waymark.engine.diff import common_ends
from waymark.engine.errors import BinaryFile
from waymark.engine.text import TextFile

T = TypeVar("T")
R = TypeVar("R")

MAX_WORKERS = 4
# Backups and restores wait on the filesystem, not the CPU, so they use this many regardless
# of the core count.
IO_WORKERS = 4
# Past this many differing lines difflib's quadratic worst case is not worth it: the counts
# then come from line multisets (exact unless lines were reordered).
_EXACT_LINES = 20_000


@dataclass(frozen=True)
class LineCounts:
    insertions: int
    deletions: int
    binary: bool = False


def bounded_map(
    fn: Callable[[T], R], items: Iterable[T], workers: int | None = None
) -> Iterator[R]:
    """``map`` on a small pool, at most ``2 * workers`` items in flight; results in order."""
    count = workers or min(MAX_WORKERS, os.cpu_count() or 1)
    if count <= 1:
        yield from map(fn, items)
        return
    window = 2 * count
    pending: list[Future[R]] = []
    with ThreadPoolExecutor(max_workers=count, thread_name_prefix="waymark-stats") as pool:
        for item in items:
            pending.append(pool.submit(fn, item))
            if len(pending) >= window:
                yield pending.pop(0).result()
        for future in pending:
            yield future.result()


def _lines(data: bytes) -> list[str] | None:
    """The file's lines, or ``None`` when it is binary."""
    try:
        return list(TextFile.decode(data).lines)
    except BinaryFile:
        return None


def count_lines(old: bytes | None, new: bytes | None) -> LineCounts:
    """Lines inserted and deleted going from ``old`` to ``new`` (``None``: absent file)."""
    before = [] if old is None else _lines(old)
    after = [] if new is None else _lines(new)
    if before is None or after is None:
        return LineCounts(0, 0, binary=True)
    head, tail = common_ends(before, after)
    a, b = before[head : len(before) - tail], after[head : len(after) - tail]
    if not a or not b or len(a) + len(b) > _EXACT_LINES:
        old_c, new_c = Counter(a), Counter(b)
        return LineCounts(sum((new_c - old_c).values()), sum((old_c - new_c).values()))
    inserted = deleted = 0
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            deleted += i2 - i1
            inserted += j2 - j1
    return LineCounts(inserted, deleted)

"""The index of a file after an anchored edit, made from the index before it.

An edit changes a few regions; every other line keeps its hash and, unless a change is its
nearest non-blank neighbour, its context hash. So the prefix counts are the old ones adjusted
for the lines removed and added, and the context hashes are the old ones moved to their new
line numbers, hashed afresh only next to a change or for a line whose text became repeated.
The result answers exactly as a :class:`LineIndex` built from scratch (a differential test in
tests/unit/test_anchors_differential.py).
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from itertools import chain, repeat
from operator import add, is_, rshift

from waymark.engine.edits.safety import Change
from waymark.engine.line_index import LineIndex, where

_P6_SHIFT = 40


def _counts_after(old: LineIndex, hashes: list[int], changes: Sequence[Change]) -> Counter[int]:
    counts = old.p6_count.copy()
    removed = chain.from_iterable(old.p6[c.old_start : c.old_end] for c in changes)
    for key in removed:
        left = counts[key] - 1
        if left:
            counts[key] = left
        else:
            del counts[key]
    added = chain.from_iterable(hashes[c.new_start : c.new_end] for c in changes)
    counts.update(map(rshift, added, repeat(_P6_SHIFT)))
    return counts


class IndexAfterEdit(LineIndex):
    """The index of ``lines`` (``hashes``), which ``changes`` made from ``old``'s lines."""

    def __init__(
        self, old: LineIndex, lines: Sequence[str], hashes: list[int], changes: Sequence[Change]
    ) -> None:
        super().__init__(lines, hashes, _counts_after(old, hashes, changes))
        self._old = old
        self._changes = changes

    def _context_hashes(self) -> dict[int, str]:
        old = self._old
        if not old.ctx_known:  # nothing to reuse: the old file's were never needed
            return super()._context_hashes()
        wanted = self.repeated_lines
        kept = self._kept_context(old)
        found = list(map(kept.get, wanted))
        missing = where(map(is_, found, repeat(None)))
        fresh = self.context_hashes_of(list(map(wanted.__getitem__, missing)))
        list(map(found.__setitem__, missing, fresh.values()))
        return dict(zip(wanted, found, strict=True))  # type: ignore[arg-type]

    def _kept_context(self, old: LineIndex) -> dict[int, str]:
        """Old context hashes, at their new line numbers, of the lines whose nearest
        non-blank neighbours both lie in their own unchanged stretch (or past a file edge
        that stretch reaches)."""
        old_lines, n = old.lines, len(old.lines)
        keys = list(old.ctx)
        values = list(old.ctx.values())
        kept: dict[int, str] = {}
        start, shift, after_change = 0, 0, False
        for c in self._changes:
            kept.update(_stretch(old_lines, keys, values, start, c.old_start, shift, after_change))
            start, shift, after_change = c.old_end, c.new_end - c.old_end, True
        kept.update(_stretch(old_lines, keys, values, start, n, shift, after_change, last=True))
        return kept


def _stretch(
    lines: Sequence[str],
    keys: list[int],
    values: list[str],
    a: int,
    b: int,
    shift: int,
    after_change: bool,
    *,
    last: bool = False,
) -> zip[tuple[int, str]]:
    """The kept context hashes of the unchanged old lines ``[a, b)``, moved by ``shift``."""
    lo, hi = a, b
    if after_change:  # the lines up to the stretch's first non-blank one see the change
        while lo < b and not lines[lo].strip():
            lo += 1
        lo += 1
    if not last:  # and so do those from its last non-blank one on
        while hi > lo and not lines[hi - 1].strip():
            hi -= 1
        hi -= 1
    k0, k1 = bisect_left(keys, lo), bisect_left(keys, max(hi, lo))
    return zip(map(add, keys[k0:k1], repeat(shift)), values[k0:k1], strict=True)

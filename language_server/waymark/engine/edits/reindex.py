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
from collections.abc import Iterator, Sequence
from itertools import repeat
from operator import add, is_, rshift

from waymark.engine.edits.safety import Change
from waymark.engine.line_index import P6_SHIFT, LineIndex, where

# Prefixes no line has any more that an edited file's counts keep (at 0) before dropping them.
_ZEROS = 64


class IndexAfterEdit(LineIndex):
    """The index of ``lines`` (``hashes``), which ``changes`` made from ``old``'s lines."""

    def __init__(
        self, old: LineIndex, lines: Sequence[str], hashes: list[int], changes: Sequence[Change]
    ) -> None:
        self._old: LineIndex | None = old
        self._changes = changes
        super().__init__(lines, hashes)
        self._tables()  # now: they are made from the old index's, which is let go of later
        # The lines just written are where the next edit most likely points (the result
        # hands their anchors out): found by key, not by a scan of every line.
        p6, counts, known = self.p6, self.p6_count, self._known_pos
        for c in changes:
            for j in range(c.new_start, c.new_end):
                if counts[p6[j]] == 1:
                    known[p6[j]] = j

    def release(self) -> None:
        """Let go of the index before the edit: one kept for the next edit would otherwise
        keep every earlier one alive. Context hashes not made yet are then made afresh."""
        self._old = None

    @property
    def _before(self) -> LineIndex:
        assert self._old is not None, "the index before the edit is only released after it"
        return self._old

    def _stretches(self) -> Iterator[tuple[int, int, int, Change | None]]:
        """``(a, b, shift, change)``: old lines ``[a, b)`` are unchanged and ``shift`` lines
        further down now, and ``change`` (None after the last) follows them."""
        start = shift = 0
        for c in self._changes:
            yield start, c.old_start, shift, c
            start, shift = c.old_end, c.new_end - c.old_end
        yield start, len(self._before.lines), shift, None

    def _prefix_columns(self) -> tuple[list[int], Counter[int], list[int]]:
        return self._derived_columns()  # adjusting the old columns beats a fresh pass

    def _prefixes(self) -> list[int]:
        # One copy, spliced bottom-up in place: slicing and joining the stretches would touch
        # every prefix object three times.
        p6 = list(self._before.p6)
        for c in reversed(self._changes):
            p6[c.old_start : c.old_end] = map(
                rshift, self.hashes[c.new_start : c.new_end], repeat(P6_SHIFT)
            )
        return p6

    def _prefix_counts(self) -> Counter[int]:
        # A prefix whose last line left keeps its entry, at 0 (a count of 0 reads as absent
        # everywhere): a dict that ever lost a key is copied key by key, one that never did
        # as a block, and an index kept for the next edit is copied at that edit (1,000
        # lines: 15 µs against 2). The zeros are dropped once they pass ``_ZEROS``.
        old = self._before
        # Copied as a dict and counted key by key: Counter's own copy and update cost more in
        # their Python-level checks than the few keys an edit moves.
        counts: Counter[int] = Counter.__new__(Counter)
        dict.update(counts, old.p6_count)
        old_p6, p6 = old.p6, self.p6
        for c in self._changes:
            for key in old_p6[c.old_start : c.old_end]:
                counts[key] -= 1
        for c in self._changes:
            for key in p6[c.new_start : c.new_end]:
                counts[key] += 1
        if len(counts) > len(self.p6) + _ZEROS:
            counts = Counter({key: n for key, n in counts.items() if n})
        return counts

    def _shared_lines(self) -> list[int]:
        old, counts, p6 = self._before, self.p6_count, self.p6
        touched = {p6[j] for c in self._changes for j in range(c.new_start, c.new_end)}
        touched.update(old.p6[i] for c in self._changes for i in range(c.old_start, c.old_end))
        now = {key for key in touched if counts.get(key, 0) > 1}
        if not now and not old.several:  # no prefix shared before, none by the edit's lines
            self.several = set()
            return []
        self.several = (old.several - touched) | now
        shared: list[int] = []
        for a, b, shift, c in self._stretches():
            k0, k1 = bisect_left(old.shared, a), bisect_left(old.shared, b)
            shared += map(add, old.shared[k0:k1], repeat(shift))
            if c is not None:
                shared += (j for j in range(c.new_start, c.new_end) if p6[j] in now)
        left = touched - now
        if left & old.several:  # prefixes no longer shared: their last line leaves the list
            shared = [j for j in shared if p6[j] not in left]
        joined = now - old.several
        if joined:  # prefixes shared now: unchanged lines that have them join the list
            shared = sorted({*shared, *where(map(joined.__contains__, p6))})
        return shared

    def _context_hashes(self) -> dict[int, str]:
        old = self._old
        if old is None or not old.ctx_known:  # nothing to reuse (released, or never needed)
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
        lines, keys, values = old.lines, list(old.ctx), list(old.ctx.values())
        kept: dict[int, str] = {}
        for n, (a, b, shift, c) in enumerate(self._stretches()):
            lo, hi = a, b
            if n > 0:  # a change above: the lines up to the first non-blank one see it
                while lo < b and not lines[lo].strip():
                    lo += 1
                lo += 1
            if c is not None:  # and one below: those from the last non-blank one on
                while hi > lo and not lines[hi - 1].strip():
                    hi -= 1
                hi -= 1
            k0, k1 = bisect_left(keys, lo), bisect_left(keys, max(hi, lo))
            kept.update(zip(map(add, keys[k0:k1], repeat(shift)), values[k0:k1], strict=True))
        return kept

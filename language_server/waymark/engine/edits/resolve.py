"""Placing a batch of anchored operations on one snapshot, every failure collected."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from waymark.engine.anchors import HIGH, LOW, LineIndex
from waymark.engine.edits.operations import (
    AdvisoryLineIgnored,
    AmbiguousAnchor,
    Anchor,
    Failure,
    LowEntropyAnchor,
    OneLineRange,
    Operation,
    Overlap,
    RangeSwapped,
    ReversedRange,
    StaleAnchor,
)
from waymark.engine.edits.splice import Splice

_NEIGHBORS = 3
_NEIGHBOR_SCAN = 200


@dataclass(frozen=True)
class Placed:
    """An operation with the inclusive old-line interval it addresses, and its splice."""

    op: Operation
    first: int
    last: int
    splice: Splice


def _splice_of(op: Operation, first: int, last: int) -> Splice:
    content = op.content or ()
    if op.op == "insert_after":
        return Splice(first + 1, first + 1, content)
    if op.op == "insert_before":
        return Splice(first, first, content)
    return Splice(first, last + 1, content)


class Resolver:
    """Resolves a batch on one snapshot, collecting every failure rather than the first."""

    def __init__(
        self, lines: Sequence[str], swap_reversed: bool, index: LineIndex | None = None
    ) -> None:
        self.lines = lines
        self.swap_reversed = swap_reversed
        self.index = LineIndex(lines) if index is None else index
        self.failures: list[Failure] = []
        self.advisories: list[AdvisoryLineIgnored] = []
        self.swapped: list[RangeSwapped] = []

    def place(self, operations: Sequence[Operation]) -> list[Placed]:
        placed = []
        for op in operations:
            target = self._target_of(op)
            if target is not None:
                placed.append(Placed(op, *target, _splice_of(op, *target)))
        if not self.failures:
            self.failures += overlaps(placed)
        return placed

    def _resolve(self, op: Operation, anchor: Anchor, field: str, single: bool) -> int | None:
        found = self.index.candidates(anchor.token)
        if anchor.occurrence is not None:
            if anchor.occurrence > len(found):
                self.failures.append(
                    StaleAnchor(op.index, op.op, field, anchor.token, len(found), anchor.occurrence)
                )
                return None
            return found[anchor.occurrence - 1]
        if not found:
            self.failures.append(StaleAnchor(op.index, op.op, field, anchor.token, 0, None))
            return None
        if len(found) == 1:
            if anchor.line is not None and anchor.line != found[0] + 1:
                self.advisories.append(
                    AdvisoryLineIgnored(op.index, field, anchor.token, found[0] + 1, anchor.line)
                )
            return found[0]
        if anchor.line is not None and anchor.line - 1 in found:
            return anchor.line - 1
        candidates = tuple((i + 1, self.lines[i]) for i in found)
        self.failures.append(
            AmbiguousAnchor(op.index, op.op, field, anchor.token, single, candidates)
        )
        return None

    def _neighbors(self, i: int) -> tuple[str, ...]:
        before: list[str] = []
        after: list[str] = []
        lines = len(self.lines)
        for j in range(i - 1, max(i - _NEIGHBOR_SCAN, -1), -1):
            if len(before) < _NEIGHBORS and self.index.quality(j) == HIGH:
                before.append(f"{j + 1}#{self.index.display(j)}")
        for j in range(i + 1, min(i + _NEIGHBOR_SCAN, lines)):
            if len(after) < _NEIGHBORS and self.index.quality(j) == HIGH:
                after.append(f"{j + 1}#{self.index.display(j)}")
        return (*reversed(before), *after)

    def _target_of(self, op: Operation) -> tuple[int, int] | None:
        if op.target is not None:
            i = self._resolve(op, op.target, "hash", single=True)
            if i is None:
                return None
            if self.index.quality(i) == LOW:
                self.failures.append(
                    LowEntropyAnchor(op.index, op.op, i + 1, self.lines[i], self._neighbors(i))
                )
                return None
            return i, i
        assert op.start is not None and op.end is not None
        start = self._resolve(op, op.start, "start_hash", single=False)
        end = self._resolve(op, op.end, "end_hash", single=False)
        if start is None or end is None:
            return None
        if start == end:
            self.failures.append(OneLineRange(op.index, op.op, start + 1))
            return None
        if start > end and not self.swap_reversed:
            self.failures.append(ReversedRange(op.index, op.op, start + 1, end + 1))
            return None
        if start > end:
            self.swapped.append(RangeSwapped(op.index, start + 1, end + 1))
            start, end = end, start
        return start, end


def overlaps(placed: Sequence[Placed]) -> list[Failure]:
    """Ops overlap when both replace or delete a common line, when an insert's anchor line is
    replaced or deleted by another op, or when two inserts add at the same point (their order
    would be a guess). Inserts on both sides of one line are fine.

    A sweep over ops sorted by line finds, for every op that clashes, one op it clashes with.
    """
    if len(placed) < 2:
        return []  # one op clashes with none (the usual edit: no sweep)
    regions = sorted((p.first, p.last, k) for k, p in enumerate(placed) if not p.splice.is_insert)
    pairs: set[tuple[int, int]] = set()
    # reach[i]: the furthest last line among regions[: i + 1], and which region has it.
    reach: list[tuple[int, int]] = []
    for a0, a1, k in regions:
        if reach and a0 <= reach[-1][0]:
            pairs.add((min(k, reach[-1][1]), max(k, reach[-1][1])))
        reach.append(max(reach[-1], (a1, k)) if reach else (a1, k))
    starts = [a0 for a0, _, _ in regions]
    at_point: dict[int, int] = {}
    for k, p in enumerate(placed):
        if not p.splice.is_insert:
            continue
        other = at_point.setdefault(p.splice.start, k)
        if other != k:
            pairs.add((other, k))
        i = bisect.bisect_right(starts, p.first) - 1
        if i >= 0 and reach[i][0] >= p.first:
            pairs.add((min(k, reach[i][1]), max(k, reach[i][1])))
    failures: list[Failure] = []
    for a, b in sorted(pairs):
        pa, pb = placed[a], placed[b]
        both_insert = pa.splice.is_insert and pb.splice.is_insert
        lines = () if both_insert else (max(pa.first, pb.first) + 1, min(pa.last, pb.last) + 1)
        failures.append(Overlap(pb.op.index, pb.op.op, pa.op.index, lines))
    return failures

"""Anchored edits: a batch of line operations addressed by hash, planned on one snapshot.

Every operation resolves against the file as it was when the batch arrived; the batch is
atomic, so one bad operation rejects all of them, and the error lists every offending
operation rather than the first. docs/anchored-edits.md is the protocol reference.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from waymark.engine.anchors import HIGH, LOW, LOW_MARK, TOKEN_RE, LineIndex, gc_paused, hash_lines
from waymark.engine.edits.safety import Change, check_safety
from waymark.engine.errors import (
    AnchorAmbiguous,
    AnchorContextAmbiguous,
    AnchorLowEntropy,
    AnchorStale,
    InvalidParams,
    InvalidRangeOrder,
    NoOp,
    OperationsOverlap,
    SafetyCheckFailed,
    WaymarkError,
)
from waymark.engine.text import TextFile, split_lines

SINGLE_OPS = ("replace_line", "insert_after", "insert_before", "delete_line")
RANGE_OPS = ("replace_range", "delete_range")
_CONTENT_OPS = frozenset({"replace_line", "replace_range", "insert_after", "insert_before"})
_FIELDS = {
    **{op: ("hash", "occurrence", "line") for op in SINGLE_OPS},
    **{op: ("start_hash", "end_hash") for op in RANGE_OPS},
}
_ERRORS: dict[str, type[WaymarkError]] = {
    cls.code: cls
    for cls in (
        AnchorStale,
        AnchorAmbiguous,
        AnchorContextAmbiguous,
        AnchorLowEntropy,
        InvalidRangeOrder,
        OperationsOverlap,
    )
}
_LINE_PREFIX = re.compile(r"^\s*([0-9]+)\s*#")
_CONTEXT_LINES = 2
_NEIGHBORS = 3
_NEIGHBOR_SCAN = 200
_PREVIEW = 80
# One request may not ask for unbounded work (docs/anchored-edits.md, "Limits"); planning is
# O(lines + ops log ops), so this only bounds the size of the answer.
MAX_OPERATIONS = 10_000


@dataclass(frozen=True)
class Anchor:
    """A parsed anchor: display token, optional 1-based occurrence, optional advisory line."""

    token: str
    occurrence: int | None = None
    line: int | None = None


@dataclass(frozen=True)
class Operation:
    """One parsed operation; ``target`` for single-line ops, ``start``/``end`` for ranges."""

    index: int
    op: str
    target: Anchor | None = None
    start: Anchor | None = None
    end: Anchor | None = None
    content: tuple[str, ...] | None = None


@dataclass(frozen=True)
class AnchoredEdit:
    """A planned edit: the new file, the result details, a localized diff, warnings."""

    text_file: TextFile
    details: dict[str, Any]
    diff: list[dict[str, Any]]
    warnings: list[str]


def split_content(content: str) -> tuple[str, ...]:
    """Lines of ``content``: one trailing newline dropped, then split like file lines."""
    for eol in ("\r\n", "\n", "\r"):
        if content.endswith(eol):
            content = content[: -len(eol)]
            break
    return tuple(split_lines(content + "\n")[0])


def _field_error(field: str, problem: str) -> InvalidParams:
    return InvalidParams(f"{field} {problem}.", {"field": field})


def _int_field(item: dict[str, Any], key: str, where: str) -> int | None:
    value = item.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise _field_error(f"{where}.{key}", "must be an integer >= 1")
    return value


def _anchor(item: dict[str, Any], key: str, where: str, line: int | None = None) -> Anchor:
    field = f"{where}.{key}"
    value = item.get(key)
    if not isinstance(value, str):
        raise _field_error(field, "is required and must be a string such as 'a1b2c3'")
    text = value.strip().lower()
    match = _LINE_PREFIX.match(text)
    if match:
        # A model may paste the whole `LINE#HASH`; the line part is only advisory.
        line = line or int(match.group(1))
        text = text[match.end() :]
    text = text.rstrip("|").strip().removesuffix(LOW_MARK)
    parsed = TOKEN_RE.match(text)
    if not parsed:
        raise _field_error(field, f"is not an anchor: {value!r} (expected 6-16 hex chars)")
    occurrence = int(parsed.group(2)) if parsed.group(2) else None
    return Anchor(parsed.group(1), occurrence, line)


def _parse_one(i: int, item: object) -> Operation:
    where = f"operations[{i}]"
    if not isinstance(item, dict):
        raise _field_error(where, "must be an object")
    op = item.get("op")
    if op not in _FIELDS:
        allowed = ", ".join(_FIELDS)
        raise _field_error(f"{where}.op", f"must be one of {allowed}")
    allowed_keys = {"op", *_FIELDS[op], *(("content",) if op in _CONTENT_OPS else ())}
    for key in item:
        if key not in allowed_keys:
            raise _field_error(f"{where}.{key}", f"is not a field of {op}")
    content = None
    if op in _CONTENT_OPS:
        if not isinstance(item.get("content"), str):
            raise _field_error(f"{where}.content", "is required and must be a string")
        content = split_content(item["content"])
    if op in RANGE_OPS:
        start = _anchor(item, "start_hash", where)
        end = _anchor(item, "end_hash", where)
        return Operation(i, op, start=start, end=end, content=content)
    occurrence = _int_field(item, "occurrence", where)
    target = _anchor(item, "hash", where, _int_field(item, "line", where))
    if occurrence and target.occurrence and occurrence != target.occurrence:
        raise _field_error(f"{where}.occurrence", "contradicts the .N suffix of the hash")
    target = Anchor(target.token, occurrence or target.occurrence, target.line)
    return Operation(i, op, target=target, content=content)


def parse_operations(raw: object) -> list[Operation]:
    """Validate the JSON ``operations`` array; InvalidParams names the offending field."""
    if not isinstance(raw, list) or not raw:
        raise _field_error("operations", "must be a non-empty array of operations")
    if len(raw) > MAX_OPERATIONS:
        raise InvalidParams(
            f"operations has {len(raw)} entries, over the limit of {MAX_OPERATIONS} per edit; "
            "split the change into several edits (or use waymark.write for a rewrite).",
            {"field": "operations", "count": len(raw), "limit": MAX_OPERATIONS},
        )
    return [_parse_one(i, item) for i, item in enumerate(raw)]


def _preview(text: str) -> str:
    return text if len(text) <= _PREVIEW else text[: _PREVIEW - 1] + "…"


class _Planner:
    """Resolves a batch on one snapshot, collecting every failure before raising."""

    def __init__(self, tf: TextFile, ops: Sequence[Operation], swap_reversed: bool) -> None:
        self.tf = tf
        self.ops = ops
        self.swap_reversed = swap_reversed
        self.index = LineIndex(tf.lines)
        self.failures: list[dict[str, Any]] = []
        self.warnings: list[str] = []
        self.corrections: list[dict[str, Any]] = []

    def fail(self, op: Operation, reason: str, message: str, **extra: Any) -> None:
        self.failures.append(
            {"index": op.index, "op": op.op, "reason": reason, "message": message, **extra}
        )

    def candidates_json(self, found: Sequence[int]) -> list[dict[str, Any]]:
        return [{"line": i + 1, "preview": _preview(self.tf.lines[i])} for i in found]

    def resolve(self, op: Operation, anchor: Anchor, field: str, single: bool) -> int | None:
        where = f"operations[{op.index}].{field}"
        found = self.index.candidates(anchor.token)
        if anchor.occurrence is not None:
            if anchor.occurrence > len(found):
                self.fail(
                    op,
                    AnchorStale.code,
                    f"{where}: anchor {anchor.token} has {len(found)} candidate(s), "
                    f"not an occurrence {anchor.occurrence}; re-read the file",
                    hash=anchor.token,
                    field=field,
                )
                return None
            return found[anchor.occurrence - 1]
        if not found:
            self.fail(
                op,
                AnchorStale.code,
                f"{where}: anchor {anchor.token} is not in the file any more; re-read the file",
                hash=anchor.token,
                field=field,
            )
            return None
        if len(found) == 1:
            if anchor.line is not None and anchor.line != found[0] + 1:
                self.warnings.append(
                    f"{where}: anchor {anchor.token} is on line {found[0] + 1}, not on the "
                    f"advisory line {anchor.line}; the hash wins"
                )
            return found[0]
        if anchor.line is not None and anchor.line - 1 in found:
            return anchor.line - 1
        code = AnchorAmbiguous.code if single else AnchorContextAmbiguous.code
        hint = "add occurrence (or line)" if single else "use the .N form of the anchor"
        self.fail(
            op,
            code,
            f"{where}: anchor {anchor.token} matches {len(found)} lines; {hint} to pick one",
            hash=anchor.token,
            field=field,
            candidates=self.candidates_json(found),
            **({} if single else {"endpoint": field}),
        )
        return None

    def neighbors(self, i: int) -> list[str]:
        before: list[str] = []
        after: list[str] = []
        lines = len(self.tf.lines)
        for j in range(i - 1, max(i - _NEIGHBOR_SCAN, -1), -1):
            if len(before) < _NEIGHBORS and self.index.quality(j) == HIGH:
                before.append(f"{j + 1}#{self.index.display(j)}")
        for j in range(i + 1, min(i + _NEIGHBOR_SCAN, lines)):
            if len(after) < _NEIGHBORS and self.index.quality(j) == HIGH:
                after.append(f"{j + 1}#{self.index.display(j)}")
        return [*reversed(before), *after]

    def target_of(self, op: Operation) -> tuple[int, int] | None:
        """Resolve ``op`` to the inclusive old-line interval it addresses."""
        if op.target is not None:
            i = self.resolve(op, op.target, "hash", single=True)
            if i is None:
                return None
            if self.index.quality(i) == LOW:
                self.fail(
                    op,
                    AnchorLowEntropy.code,
                    f"operations[{op.index}]: line {i + 1} ({self.tf.lines[i].strip()!r}) is a "
                    "low-quality anchor; use a range whose ends are the neighbor anchors",
                    line=i + 1,
                    content=self.tf.lines[i],
                    neighbor_anchors=self.neighbors(i),
                )
                return None
            return i, i
        assert op.start is not None and op.end is not None
        start = self.resolve(op, op.start, "start_hash", single=False)
        end = self.resolve(op, op.end, "end_hash", single=False)
        if start is None or end is None:
            return None
        if start == end:
            self.fail(
                op,
                InvalidRangeOrder.code,
                f"operations[{op.index}]: the range starts and ends on line {start + 1}; "
                f"use {op.op.replace('range', 'line')} for one line",
                line=start + 1,
            )
            return None
        if start > end and not self.swap_reversed:
            self.fail(
                op,
                InvalidRangeOrder.code,
                f"operations[{op.index}]: start_hash is on line {start + 1}, after end_hash on "
                f"line {end + 1}, and the file changed since it was read; re-read the file",
                line=start + 1,
                end_line=end + 1,
                reversed=True,
            )
            return None
        if start > end:
            self.corrections.append(
                {
                    "type": "range_order_swapped",
                    "index": op.index,
                    "detail": f"operations[{op.index}]: start_hash is on line {start + 1} and "
                    f"end_hash on line {end + 1}; used lines {end + 1}-{start + 1}",
                }
            )
            start, end = end, start
        return start, end

    def raise_failures(self) -> None:
        first = self.failures[0]
        extra = {k: v for k, v in first.items() if k not in ("index", "op", "message", "reason")}
        details: dict[str, Any] = {**extra, "failures": self.failures}
        if first["reason"] == AnchorStale.code:
            details["suggested_action"] = "re-read_file"
        more = len(self.failures) - 1
        tail = f" ({more} more problem(s) in details.failures)" if more else ""
        raise _ERRORS[first["reason"]](f"{first['message']}{tail}.", details)


@dataclass(frozen=True)
class _Splice:
    """Old lines ``[start, end)`` become ``lines``; an insert has ``start == end``."""

    start: int
    end: int
    lines: tuple[str, ...]


def _splice_of(op: Operation, first: int, last: int) -> _Splice:
    content = op.content or ()
    if op.op == "insert_after":
        return _Splice(first + 1, first + 1, content)
    if op.op == "insert_before":
        return _Splice(first, first, content)
    return _Splice(first, last + 1, content)


def _overlaps(
    planner: _Planner, resolved: list[tuple[Operation, tuple[int, int], _Splice]]
) -> None:
    """Ops overlap when both replace or delete a common line, when an insert's anchor line is
    replaced or deleted by another op, or when two inserts add at the same point (their order
    would be a guess). Inserts on both sides of one line are fine.

    A sweep over ops sorted by line finds, for every op that clashes, one op it clashes with.
    """
    regions = sorted(
        (a0, a1, k) for k, (_, (a0, a1), sp) in enumerate(resolved) if sp.start != sp.end
    )
    pairs: set[tuple[int, int]] = set()
    # reach[i]: the furthest last line among regions[: i + 1], and which region has it.
    reach: list[tuple[int, int]] = []
    for a0, a1, k in regions:
        if reach and a0 <= reach[-1][0]:
            pairs.add((min(k, reach[-1][1]), max(k, reach[-1][1])))
        reach.append(max(reach[-1], (a1, k)) if reach else (a1, k))
    starts = [a0 for a0, _, _ in regions]
    at_point: dict[int, int] = {}
    for k, (_, (line, _), sp) in enumerate(resolved):
        if sp.start != sp.end:
            continue
        other = at_point.setdefault(sp.start, k)
        if other != k:
            pairs.add((other, k))
        i = bisect.bisect_right(starts, line) - 1
        if i >= 0 and reach[i][0] >= line:
            pairs.add((min(k, reach[i][1]), max(k, reach[i][1])))
    for a, b in sorted(pairs):
        op_a, (a0, a1), sp_a = resolved[a]
        op_b, (b0, b1), sp_b = resolved[b]
        both_insert = sp_a.start == sp_a.end and sp_b.start == sp_b.end
        planner.fail(
            op_b,
            OperationsOverlap.code,
            f"operations[{op_b.index}] and operations[{op_a.index}] touch the same "
            "lines; merge them into one operation",
            conflicts_with=op_a.index,
            lines=[] if both_insert else [max(a0, b0) + 1, min(a1, b1) + 1],
        )


def _apply(tf: TextFile, hashes: list[str], splices: list[_Splice]) -> tuple[TextFile, list[str]]:
    """Apply non-overlapping splices in one pass; the same bytes as :meth:`TextFile.splice`
    applied bottom-up, one by one (at one start the region first, so that an insert at that
    point lands before the region's new lines), without copying the file per splice."""
    eol = tf.eol
    eols = tf.eols
    override: dict[int, str] = {}  # terminators of untouched lines that a splice changed
    chunks: list[tuple[Sequence[str], Sequence[str], Sequence[str]]] = []  # reversed tail
    tail = 0  # lines after ``cursor`` in the file as edited so far
    cursor = len(tf.lines)

    def eol_at(i: int) -> str:
        return override.get(i, eols[i])

    def keep(start: int, stop: int) -> None:
        nonlocal tail
        if stop > start:
            kept = [eol_at(i) for i in range(start, stop)]
            chunks.append((tf.lines[start:stop], kept, hashes[start:stop]))
            tail += stop - start

    for sp in sorted(splices, key=lambda s: (s.start, s.end > s.start), reverse=True):
        keep(sp.end, cursor)
        cursor = sp.start
        new = list(sp.lines)
        if sp.end > sp.start:
            new_eols = [
                eol_at(sp.start + i) if sp.start + i < sp.end - 1 else eol for i in range(len(new))
            ]
            if new:
                new_eols[-1] = eol_at(sp.end - 1)
            elif tail == 0 and eol_at(sp.end - 1) == "" and sp.start > 0:
                # Deleting the unterminated last line: the new last line loses its terminator.
                override[sp.start - 1] = ""
        else:
            new_eols = [eol] * len(new)
            if new and tail == 0 and sp.start > 0 and eol_at(sp.start - 1) == "":
                # Appending after an unterminated last line: it gains one, the new end lacks one.
                override[sp.start - 1] = eol
                new_eols[-1] = ""
        if new:
            chunks.append((new, new_eols, hash_lines(new)))
            tail += len(new)
    keep(0, cursor)
    lines: list[str] = []
    new_eols_all: list[str] = []
    new_hashes: list[str] = []
    for chunk_lines, chunk_eols, chunk_hashes in reversed(chunks):
        lines.extend(chunk_lines)
        new_eols_all.extend(chunk_eols)
        new_hashes.extend(chunk_hashes)
    return TextFile(tuple(lines), tuple(new_eols_all), tf.encoding, tf.bom), new_hashes


def _changes(splices: list[_Splice]) -> list[Change]:
    """Touching splices merged, in new-file coordinates too."""
    changes: list[Change] = []
    offset = 0
    for sp in sorted(splices, key=lambda s: (s.start, s.end > s.start)):
        new_start = sp.start + offset
        offset += len(sp.lines) - (sp.end - sp.start)
        change = Change(sp.start, sp.end, new_start, new_start + len(sp.lines))
        if changes and change.old_start <= changes[-1].old_end:
            last = changes.pop()
            change = Change(last.old_start, change.old_end, last.new_start, change.new_end)
        changes.append(change)
    return changes


def _diff_line(index: LineIndex, kind: str, i: int) -> dict[str, Any]:
    return {
        "kind": kind,
        "line": i + 1,
        "text": index.lines[i],
        "hash": index.display(i),
        "quality": index.quality(i),
    }


def _diff(before: TextFile, new: LineIndex, changes: list[Change]) -> list[dict[str, Any]]:
    """Hunks with ``_CONTEXT_LINES`` of context; nearby changes share a hunk."""
    groups: list[list[Change]] = []
    for change in changes:
        if groups and change.old_start - groups[-1][-1].old_end <= 2 * _CONTEXT_LINES:
            groups[-1].append(change)
        else:
            groups.append([change])
    hunks = []
    for group in groups:
        lines: list[dict[str, Any]] = []
        first, last = group[0], group[-1]
        ctx_start = max(first.new_start - _CONTEXT_LINES, 0)
        cursor = ctx_start
        for change in group:
            lines += [_diff_line(new, "context", i) for i in range(cursor, change.new_start)]
            lines += [
                {"kind": "removed", "old_line": i + 1, "text": before.lines[i]}
                for i in range(change.old_start, change.old_end)
            ]
            lines += [_diff_line(new, "added", i) for i in range(change.new_start, change.new_end)]
            cursor = change.new_end
        ctx_end = min(last.new_end + _CONTEXT_LINES, len(new.lines))
        lines += [_diff_line(new, "context", i) for i in range(cursor, ctx_end)]
        old_start = first.old_start - (first.new_start - ctx_start)
        hunks.append(
            {
                "old_start": old_start + 1,
                "old_lines": last.old_end + (ctx_end - last.new_end) - old_start,
                "new_start": ctx_start + 1,
                "new_lines": ctx_end - ctx_start,
                "lines": lines,
            }
        )
    return hunks


def _valid_through(old: LineIndex, new: LineIndex, first_changed: int) -> int:
    """How many leading lines keep both their number and their displayed anchor."""
    # A line whose 6-char prefix is its own in both snapshots shows that prefix in both.
    special = sorted({i for i in (*old.shared, *new.shared) if i < first_changed})
    for i in special:
        if old.display(i) != new.display(i):
            return i
    return first_changed


@gc_paused()
def plan_anchored_edit(
    tf: TextFile, operations: Sequence[Operation], *, swap_reversed_ranges: bool = True
) -> AnchoredEdit:
    """Resolve every operation on ``tf``, check the batch, and build the edited file.

    A reversed range is swapped (and reported) by default. On a file that changed since the
    agent read it, a reversed range more likely means a moved block than a slip, and the
    swapped range would cover other lines: callers pass ``swap_reversed_ranges=False`` then,
    and the range is refused as ``invalid_range_order``.
    """
    planner = _Planner(tf, operations, swap_reversed_ranges)
    resolved = []
    for op in operations:
        target = planner.target_of(op)
        if target is not None:
            resolved.append((op, target, _splice_of(op, *target)))
    if not planner.failures:
        _overlaps(planner, resolved)
    if planner.failures:
        planner.raise_failures()
    splices = [sp for _, _, sp in resolved]
    after, hashes = _apply(tf, planner.index.hashes, splices)
    if after.lines == tf.lines and after.eols == tf.eols:
        raise NoOp(
            "The operations would leave the file exactly as it is; nothing was changed.",
            {"operations_applied": 0},
        )
    changes = _changes(splices)
    warnings = check_safety(tf, after, changes)
    if warnings:
        raise SafetyCheckFailed(
            f"The edit looks wrong ({warnings[0]['detail']}); nothing was changed, check the "
            "anchors and content and retry.",
            {"safety_warnings": warnings},
        )
    new_index = LineIndex(after.lines, hashes)
    valid = _valid_through(planner.index, new_index, changes[0].old_start)
    details = {
        "operations_applied": len(operations),
        "lines_before": len(tf.lines),
        "lines_after": len(after.lines),
        "net_change": len(after.lines) - len(tf.lines),
        "anchors_valid_through": valid,
        "must_refresh_from_line": valid + 1,
        "auto_corrections": planner.corrections,
        "safety_status": "ok",
    }
    return AnchoredEdit(after, details, _diff(tf, new_index, changes), planner.warnings)

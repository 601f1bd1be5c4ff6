"""Anchored edits: a batch of line operations addressed by hash, planned on one snapshot.

Every operation resolves against the file as it was when the batch arrived; the batch is
atomic, so one bad operation rejects all of them, and :class:`OperationsRefused` lists every
offending operation rather than the first. docs/anchored-edits.md is the protocol reference.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from waymark.engine.anchors import LineIndex, gc_paused
from waymark.engine.displays import displays
from waymark.engine.edits.line_ends import check_rereads, ends_apart
from waymark.engine.edits.operations import (
    AdvisoryLineIgnored,
    Operation,
    OperationsRefused,
    RangeSwapped,
)
from waymark.engine.edits.reindex import IndexAfterEdit
from waymark.engine.edits.resolve import Resolver
from waymark.engine.edits.safety import Change, check_safety
from waymark.engine.edits.splice import spliced_apart
from waymark.engine.edits.spliced_bytes import encode_spliced, reads_back
from waymark.engine.edits.valid_through import valid_through
from waymark.engine.errors import NoOp, SafetyCheckFailed
from waymark.engine.text import TextFile

_CONTEXT_LINES = 2


@dataclass(frozen=True)
class AnchoredEdit:
    """A planned edit: the new file, its counts, a localized diff, and what the planner
    noticed on the way (advisory lines it overrode, reversed ranges it swapped)."""

    text_file: TextFile
    details: dict[str, Any]
    diff: list[dict[str, Any]]
    advisories: list[AdvisoryLineIgnored]
    swapped: list[RangeSwapped]
    before: TextFile
    changes: list[Change]
    # The new file's index, for a caller that keeps it for the next edit of the same text.
    index: IndexAfterEdit

    def encode(self, data: bytes) -> bytes:
        """The new file's bytes, given ``data``, the bytes ``before`` was decoded from: the
        same as ``text_file.encode()``, with only the changed lines encoded."""
        return encode_spliced(self.before, data, self.text_file, self.changes)

    @property
    def reads_back(self) -> bool:
        """Whether :meth:`encode`'s bytes decode, in ``before``'s encoding, to ``text_file``'s
        text (then ``before.read_back(text_file)`` is the new file as they read)."""
        return reads_back(self.before, self.text_file, self.changes)

    @property
    def untouched(self) -> tuple[int, int]:
        """How many leading and trailing lines the edit left as they were, ends included: a
        splice may change the ending of the line just above it, never of one further away."""
        first, last = self.changes[0], self.changes[-1]
        return max(first.old_start - 1, 0), len(self.before.lines) - last.old_end


def _with_anchors(index: LineIndex, hunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each shown line's display anchor, decided for all of them together: a repeated line's
    costs one look at every repeated line, not every context hash of the file."""
    rows = [row for hunk in hunks for row in hunk["lines"] if row["kind"] != "removed"]
    at = sorted({row["line"] - 1 for row in rows})
    shown = dict(zip(at, displays(index, at, one_off=True), strict=True))
    for row in rows:  # as with_shown fills them in, without a call per row
        i = row["line"] - 1
        row["hash"], row["quality"] = shown[i], index.quality(i)
    return hunks


def with_shown(
    hunks: list[dict[str, Any]], shown: Callable[[int], tuple[str, str]]
) -> list[dict[str, Any]]:
    """The rows' display anchors and qualities filled in: ``shown(i)`` of new line ``i``
    (0-based)."""
    for hunk in hunks:
        for row in hunk["lines"]:
            if row["kind"] != "removed":
                row["hash"], row["quality"] = shown(row["line"] - 1)
    return hunks


def diff_hunks(
    before: Sequence[str], new: Sequence[str], changes: list[Change], offset: int = 0
) -> list[dict[str, Any]]:
    """Hunks with ``_CONTEXT_LINES`` of context; nearby changes share a hunk. ``before`` and
    ``new`` may be a stretch of each file starting at line ``offset`` (the changes in its
    coordinates, every hunk inside it); the rows' anchors are left to :func:`with_shown`."""

    groups: list[list[Change]] = []
    for change in changes:
        if groups and change.old_start - groups[-1][-1].old_end <= 2 * _CONTEXT_LINES:
            groups[-1].append(change)
        else:
            groups.append([change])
    hunks = []
    for group in groups:
        lines: list[dict[str, Any]] = []
        add = lines.append  # a loop, not a comprehension per run: a hunk holds few rows
        first, last = group[0], group[-1]
        ctx_start = max(first.new_start - _CONTEXT_LINES, 0)
        cursor = ctx_start
        for change in group:
            for i in range(cursor, change.new_start):
                add({"kind": "context", "line": i + 1 + offset, "text": new[i]})
            for i in range(change.old_start, change.old_end):
                add({"kind": "removed", "old_line": i + 1 + offset, "text": before[i]})
            for i in range(change.new_start, change.new_end):
                add({"kind": "added", "line": i + 1 + offset, "text": new[i]})
            cursor = change.new_end
        ctx_end = min(last.new_end + _CONTEXT_LINES, len(new))
        for i in range(cursor, ctx_end):
            add({"kind": "context", "line": i + 1 + offset, "text": new[i]})
        old_start = first.old_start - (first.new_start - ctx_start)
        hunks.append(
            {
                "old_start": old_start + 1 + offset,
                "old_lines": last.old_end + (ctx_end - last.new_end) - old_start,
                "new_start": ctx_start + 1 + offset,
                "new_lines": ctx_end - ctx_start,
                "lines": lines,
            }
        )
    return hunks


def _diff(before: TextFile, new: LineIndex, changes: list[Change]) -> list[dict[str, Any]]:
    return _with_anchors(new, diff_hunks(before.lines, new.lines, changes))


@gc_paused()
def plan_anchored_edit(
    tf: TextFile,
    operations: Sequence[Operation],
    *,
    swap_reversed_ranges: bool = True,
    index: LineIndex | None = None,
) -> AnchoredEdit:
    """Resolve every operation on ``tf``, check the batch, and build the edited file.

    A reversed range is swapped (and reported) by default. On a file that changed since the
    agent read it, a reversed range more likely means a moved block than a slip, and the
    swapped range would cover other lines: callers pass ``swap_reversed_ranges=False`` then,
    and the range is refused as a :class:`ReversedRange`. ``index``: ``tf``'s lines' index,
    if the caller kept one (it is used, and changed, by this plan alone).
    """
    resolver = Resolver(tf.lines, swap_reversed_ranges, index)
    placed = resolver.place(operations)
    if resolver.failures:
        raise OperationsRefused(resolver.failures)
    splices = [p.splice for p in placed]
    after, hashes, changes = spliced_apart(tf, resolver.index.hashes, splices, tf.eol)
    if after.lines == tf.lines and after.eols == tf.eols:
        raise NoOp(
            "The operations would leave the file exactly as it is; nothing was changed.",
            {"operations_applied": 0},
        )
    if not ends_apart(after):
        check_rereads(after.lines, after.eols, changes)
    warnings = check_safety(tf, after, changes)
    if warnings:
        raise SafetyCheckFailed(
            f"The edit looks wrong ({warnings[0]['detail']}); nothing was changed, check the "
            "anchors and content and retry.",
            {"safety_warnings": warnings},
        )
    new_index = IndexAfterEdit(resolver.index, after.lines, hashes, changes)
    valid = valid_through(resolver.index, new_index, changes)
    details = {
        "operations_applied": len(operations),
        "lines_before": len(tf.lines),
        "lines_after": len(after.lines),
        "net_change": len(after.lines) - len(tf.lines),
        "anchors_valid_through": valid,
        "must_refresh_from_line": valid + 1,
    }
    diff = _diff(tf, new_index, changes)
    return AnchoredEdit(
        after, details, diff, resolver.advisories, resolver.swapped, tf, changes, new_index
    )

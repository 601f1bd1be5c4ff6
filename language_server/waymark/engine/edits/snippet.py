"""The context snippet returned after a string edit: the new text around each change.

Format (documented in docs/string-replacement.md)::

    > 12 | changed or inserted line
      13 | context line
    -    | (2 lines deleted)
      ...

``>`` marks a line of the new text that a replacement wrote or altered; the common ends of
``old_string`` and ``new_string`` are trimmed first, so context an agent repeated in both is not
marked. Whole lines removed leave a ``-`` row where they were. Up to three context lines
surround each change, ``...`` separates distant places, and the snippet stays short: long
lines are cut and rows past a cap are summarised, because the full change is in the diff.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from waymark.engine.diff import common_ends
from waymark.engine.edits.matching import LineIndex

CONTEXT = 3
MAX_ROWS = 80
MAX_WIDTH = 200


@dataclass(frozen=True)
class Change:
    """Where a replacement landed in the new text: the span that differs, and what it replaced."""

    start: int
    end: int
    removed: str


def trimmed_change(start: int, old: str, new: str) -> Change:
    """The change made by writing ``new`` over ``old`` at ``start``, common ends trimmed."""
    head, tail = common_ends(old, new)
    return Change(start + head, start + len(new) - tail, old[head : len(old) - tail])


def _count_lines(removed: str) -> int:
    return removed.count("\n") + removed.count("\r") - removed.count("\r\n")


@dataclass(frozen=True)
class Snippet:
    text: str
    changed_lines: list[int]


def render_snippet(index: LineIndex, changes: Sequence[Change]) -> Snippet:
    """Render the snippet of the new text (``index``) for ``changes``."""
    total = len(index.lines)
    marked: set[int] = set()
    deleted: dict[int, int] = {}  # line the removed lines stood before (total + 1 = the end)
    for change in changes:
        if change.start < change.end:
            first, last = index.line_of(change.start), index.line_of(change.end - 1)
            marked.update(range(first, last + 1))
        elif change.removed[-1:] in ("\n", "\r") and index.at_line_start(change.start):
            before = total + 1 if change.start >= index.length else index.line_of(change.start)
            deleted[before] = deleted.get(before, 0) + _count_lines(change.removed)
        elif change.removed and total:
            marked.add(index.line_of(change.start))
    if not total:
        return Snippet("(the file is now empty)", [])

    focus = sorted(marked | set(deleted))
    groups: list[list[int]] = []
    for line in focus:
        lo, hi = max(1, line - CONTEXT), min(total, line + CONTEXT)
        if groups and lo <= groups[-1][1] + 1:
            groups[-1][1] = max(groups[-1][1], hi)
        else:
            groups.append([lo, hi])

    width = len(str(groups[-1][1])) if groups else 1
    rows: list[tuple[str, int]] = []  # (row, changed lines it shows)

    def deletion_row(line: int) -> None:
        count = deleted[line]
        rows.append((f"- {'':>{width}} | ({count} line{'s' if count != 1 else ''} deleted)", 1))

    for number, (lo, hi) in enumerate(groups):
        if number:
            rows.append(("  ...", 0))
        for line in range(lo, hi + 1):
            if line in deleted:
                deletion_row(line)
            content = index.lines[line - 1]
            if len(content) > MAX_WIDTH:
                content = f"{content[:MAX_WIDTH]} … (+{len(content) - MAX_WIDTH} chars)"
            is_marked = line in marked
            rows.append(
                (f"{'>' if is_marked else ' '} {line:>{width}} | {content}", int(is_marked))
            )
        if hi == total and total + 1 in deleted:
            deletion_row(total + 1)

    if len(rows) > MAX_ROWS:
        hidden = sum(count for _, count in rows[MAX_ROWS:])
        rows = rows[:MAX_ROWS]
        more = f" ({hidden} more changed rows not shown; see the diff)" if hidden else ""
        rows.append((f"  ...{more}", 0))
    return Snippet("\n".join(row for row, _ in rows), sorted(marked))

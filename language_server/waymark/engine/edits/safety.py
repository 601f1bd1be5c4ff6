"""Suspicious-edit checks: cheap signs that an edit went wrong, judged before anything is written.

Two signs, both relative to the file before the edit so that a file that was already odd is
not blamed on the agent: a bracket pair whose counts were equal and no longer are, and a new
identical adjacent copy of a non-blank line (the classic "inserted instead of replaced").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from waymark.engine.text import TextFile

BRACKETS = ("()", "[]", "{}")
Balance = Callable[[str, str], int]


@dataclass(frozen=True)
class Change:
    """Old lines ``[old_start, old_end)`` became new lines ``[new_start, new_end)`` (0-based)."""

    old_start: int
    old_end: int
    new_start: int
    new_end: int


def _adjacent_duplicates(lines: Sequence[str], start: int, end: int) -> dict[str, int]:
    """Non-blank lines equal to the line after them, among pairs inside ``[start, end)``."""
    found: dict[str, int] = {}
    for i in range(max(start, 0), min(end, len(lines)) - 1):
        line = lines[i]
        if line.strip() and line == lines[i + 1]:
            found[line] = found.get(line, 0) + 1
    return found


def _bracket_warnings(
    before: TextFile, after: TextFile, changed: Sequence[Change], balance: Balance | None
) -> list[dict[str, Any]]:
    removed = "".join("".join(before.lines[c.old_start : c.old_end]) for c in changed)
    added = "".join("".join(after.lines[c.new_start : c.new_end]) for c in changed)
    old_text: str | None = None
    warnings: list[dict[str, Any]] = []
    for pair in BRACKETS:
        opening, closing = pair[0], pair[1]
        # Only the changed lines differ, so their counts give the change in balance; when
        # it is none, the file's balance is what it was and the whole file need not be read.
        moved = (
            added.count(opening)
            - added.count(closing)
            - removed.count(opening)
            + removed.count(closing)
        )
        if moved == 0:
            continue
        if balance is not None:
            old_delta = balance(opening, closing)
        else:
            if old_text is None:
                old_text = "".join(before.lines)
            old_delta = old_text.count(opening) - old_text.count(closing)
        new_delta = old_delta + moved
        if old_delta == 0 and new_delta != 0:
            more = opening if new_delta > 0 else closing
            warnings.append(
                {
                    "type": "unbalanced_brackets",
                    "bracket": pair,
                    "imbalance": new_delta,
                    "detail": f"the file had as many {opening!r} as {closing!r}; after the edit "
                    f"it has {abs(new_delta)} more {more!r}",
                }
            )
    return warnings


def check_safety(
    before: TextFile, after: TextFile, changed: Sequence[Change], balance: Balance | None = None
) -> list[dict[str, Any]]:
    """Warnings for a suspicious edit; an empty list means the edit looks sane. ``balance``:
    how many more of an opening bracket than of its closing one the whole file before the
    edit holds, when ``before`` is only a stretch of it."""
    warnings = _bracket_warnings(before, after, changed, balance)
    for change in changed:
        # One line of context each side: a copy can land next to an untouched line.
        old = _adjacent_duplicates(before.lines, change.old_start - 1, change.old_end + 1)
        new = _adjacent_duplicates(after.lines, change.new_start - 1, change.new_end + 1)
        for line, count in new.items():
            if count > old.get(line, 0):
                where = next(
                    i + 1
                    for i in range(max(change.new_start - 1, 0), change.new_end + 1)
                    if after.lines[i] == line and after.lines[i + 1] == line
                )
                warnings.append(
                    {
                        "type": "adjacent_duplicate",
                        "line": where,
                        "text": line,
                        "detail": f"lines {where} and {where + 1} would both be {line.strip()!r}",
                    }
                )
    return warnings

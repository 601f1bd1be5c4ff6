"""What an anchored edit is made of, and what the planner reports back about it.

Operations arrive typed (the command layer parses the wire shape). Failures and notes are
data: which operation, which anchor, which lines; the command layer words them for the wire.
"""

from __future__ import annotations

from dataclasses import dataclass

from waymark.engine.text import split_lines

SINGLE_OPS = ("replace_line", "insert_after", "insert_before", "delete_line")
RANGE_OPS = ("replace_range", "delete_range")


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


def split_content(content: str) -> tuple[str, ...]:
    """Lines of ``content``: one trailing newline dropped, then split like file lines."""
    if "\n" not in content and "\r" not in content:
        return (content,)  # one line (an edit's usual content): nothing to split
    for eol in ("\r\n", "\n", "\r"):
        if content.endswith(eol):
            content = content[: -len(eol)]
            break
    return tuple(split_lines(content + "\n")[0])


# --- failures: one kind per way an operation cannot be placed ------------------------------
# ``field`` names the anchor of the operation that failed: "hash", "start_hash" or "end_hash".


@dataclass(frozen=True)
class Failure:
    index: int
    op: str


@dataclass(frozen=True)
class StaleAnchor(Failure):
    """No line has the anchor (``occurrence`` None), or fewer than ``occurrence`` lines do."""

    field: str
    token: str
    found: int
    occurrence: int | None


@dataclass(frozen=True)
class AmbiguousAnchor(Failure):
    """Several lines have the anchor; ``candidates`` are ``(line, text)``."""

    field: str
    token: str
    single: bool
    candidates: tuple[tuple[int, str], ...]


@dataclass(frozen=True)
class LowEntropyAnchor(Failure):
    """A single-line op addresses a line too common to be sure of; ``neighbors`` are the
    nearby ``LINE#HASH`` anchors a range could use instead."""

    line: int
    content: str
    neighbors: tuple[str, ...]


@dataclass(frozen=True)
class OneLineRange(Failure):
    line: int


@dataclass(frozen=True)
class ReversedRange(Failure):
    """The range ends before it starts, on a file that changed since it was read."""

    start_line: int
    end_line: int


@dataclass(frozen=True)
class Overlap(Failure):
    """The op touches lines operation ``other`` touches too; ``lines`` is the shared
    interval (empty for two inserts at one point)."""

    other: int
    lines: tuple[int, ...]


class OperationsRefused(Exception):
    """The batch cannot be placed: every failure, in the order of the operations."""

    def __init__(self, failures: list[Failure]) -> None:
        super().__init__(f"{len(failures)} operation(s) cannot be placed")
        self.failures = failures


# --- notes on an edit that was planned ----------------------------------------------------


@dataclass(frozen=True)
class AdvisoryLineIgnored:
    """A unique anchor is on ``line``, not on the advisory line the op gave."""

    index: int
    field: str
    token: str
    line: int
    advisory: int


@dataclass(frozen=True)
class RangeSwapped:
    """A reversed range was read the other way round: lines ``end_line``-``start_line``."""

    index: int
    start_line: int
    end_line: int

"""Diffs of proposed changes: opcodes, unified text and line counts (pure).

An editor gets a change as plain :class:`EditTarget` data; the door that speaks to it builds
its wire shape (the LSP ``WorkspaceEdit``) from those.
"""

from __future__ import annotations

import bisect
import difflib
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from waymark.engine.text import TextFile

Opcode = tuple[str, int, int, int, int]


# difflib's smallest diff is quadratic on lines that repeat (blank lines, braces): 10,000 such
# lines take seconds, 200,000 many minutes. Past this size a region is first cut at lines that
# occur once on each side, in order (as patience diff does), and only the pieces are diffed.
_MINIMAL_LINES = 5_000
_MAX_DEPTH = 8

Block = tuple[int, int, int]  # a run of equal lines: start in before, start in after, length


# Common ends are skipped a block at a time, then in smaller blocks, then item by item: a
# slice comparison runs in C where a loop over every item runs in Python (an edit in the middle
# of 1,000 lines: 40 µs → 9 µs).
_BLOCKS = (64, 8, 1)


def common_ends(before: Sequence[Any], after: Sequence[Any]) -> tuple[int, int]:
    """How many leading and trailing items two sequences share (never overlapping)."""
    return _ends(len(before), len(after), lambda i, j, n: before[i : i + n] == after[j : j + n])


def _ends(size_b: int, size_a: int, same: Callable[[int, int, int], bool]) -> tuple[int, int]:
    """Leading and trailing items two sequences of these sizes share, where ``same(i, j, n)``
    says whether ``n`` items from ``i`` in the first equal ``n`` from ``j`` in the second."""
    limit = min(size_b, size_a)
    head = 0
    for size in _BLOCKS:
        while head + size <= limit and same(head, head, size):
            head += size
    tail = 0
    for size in _BLOCKS:
        while tail + size <= limit - head and same(
            size_b - tail - size, size_a - tail - size, size
        ):
            tail += size
    return head, tail


def opcodes(before: Sequence[str], after: Sequence[str]) -> list[Opcode]:
    """Opcodes in difflib's form turning ``before`` into ``after``.

    Agents change a few lines of large files; trimming the common head and tail first keeps
    diffing proportional to the change instead of quadratic-ish in the file.
    """
    blocks: list[Block] = []
    _match(before, after, 0, len(before), 0, len(after), blocks, 0)
    return _opcodes(blocks, len(before), len(after))


def _opcodes(blocks: list[Block], size_a: int, size_b: int) -> list[Opcode]:
    """Opcodes from the equal runs, in order, of sequences of these sizes."""
    ops: list[Opcode] = []
    i = j = 0
    for a, b, size in [*blocks, (size_a, size_b, 0)]:
        if i < a or j < b:
            tag = "replace" if i < a and j < b else "delete" if i < a else "insert"
            ops.append((tag, i, a, j, b))
        if size:
            if ops and ops[-1][0] == "equal":
                ops[-1] = ("equal", ops[-1][1], a + size, ops[-1][3], b + size)
            else:
                ops.append(("equal", a, a + size, b, b + size))
        i, j = a + size, b + size
    return ops


def _match(
    a: Sequence[str],
    b: Sequence[str],
    alo: int,
    ahi: int,
    blo: int,
    bhi: int,
    out: list[Block],
    depth: int,
) -> None:
    """Append the equal runs of ``a[alo:ahi]`` and ``b[blo:bhi]``, in order, to ``out``."""
    head, tail = common_ends(a[alo:ahi], b[blo:bhi])
    if head:
        out.append((alo, blo, head))
    alo, blo, ahi, bhi = alo + head, blo + head, ahi - tail, bhi - tail
    if alo < ahi and blo < bhi:
        if max(ahi - alo, bhi - blo) <= _MINIMAL_LINES:
            matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
            out.extend((alo + i, blo + j, n) for i, j, n in matcher.get_matching_blocks() if n)
        else:
            # Each level cuts at what is unique within it; a few levels are plenty.
            anchors = _anchors(a, b, alo, ahi, blo, bhi) if depth < _MAX_DEPTH else []
            if anchors:
                for i, j in anchors:
                    _match(a, b, alo, i, blo, j, out, depth + 1)
                    out.append((i, j, 1))
                    alo, blo = i + 1, j + 1
                _match(a, b, alo, ahi, blo, bhi, out, depth + 1)
            else:
                # Nothing to cut at: difflib with its junk heuristic stays fast.
                matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=True)
                out.extend((alo + i, blo + j, n) for i, j, n in matcher.get_matching_blocks() if n)
    if tail:
        out.append((ahi, bhi, tail))


def _anchors(
    a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int
) -> list[tuple[int, int]]:
    """The longest in-order chain of lines that occur once in each range; failing those, of
    the k-th occurrences of lines that occur equally often in each (a line replaced elsewhere
    leaves its count alone, so repeated lines still line up)."""
    in_b: dict[str, list[int]] = {}
    for j in range(blo, bhi):
        in_b.setdefault(b[j], []).append(j)
    in_a: dict[str, list[int]] = {}
    for i in range(alo, ahi):
        in_a.setdefault(a[i], []).append(i)
    pairs = [
        (i, in_b[line][0])
        for line, (i, *more) in in_a.items()
        if not more and len(in_b.get(line, ())) == 1
    ]
    if not pairs:
        pairs = [
            pair
            for line, spots in in_a.items()
            if len(in_b.get(line, ())) == len(spots)
            for pair in zip(spots, in_b[line], strict=True)
        ]
    pairs.sort()
    # Longest increasing subsequence of the after-positions (patience sorting).
    tops: list[int] = []  # after-position ending the best chain of each length
    ends: list[int] = []  # index into pairs of that chain's last pair
    back: list[int] = [-1] * len(pairs)
    for k, (_, j) in enumerate(pairs):
        n = bisect.bisect_left(tops, j)
        if n == len(tops):
            tops.append(j)
            ends.append(k)
        else:
            tops[n] = j
            ends[n] = k
        back[k] = ends[n - 1] if n else -1
    chain: list[tuple[int, int]] = []
    k = ends[-1] if ends else -1
    while k >= 0:
        chain.append(pairs[k])
        k = back[k]
    return chain[::-1]


def _hunks(ops: list[Opcode], context: int) -> list[list[Opcode]]:
    """Group changes whose equal gap is at most ``2 * context`` lines, with context around."""
    changes = [op for op in ops if op[0] != "equal"]
    hunks: list[list[Opcode]] = []
    for op in changes:
        if hunks and op[1] - hunks[-1][-1][2] <= 2 * context:
            last = hunks[-1][-1]
            if op[1] > last[2]:
                hunks[-1].append(("equal", last[2], op[1], last[4], op[3]))
            hunks[-1].append(op)
        else:
            hunks.append([op])
    return hunks


def _range(start: int, length: int) -> str:
    # Unified-diff convention: 1-based start; an empty range names the line before it.
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


@dataclass(frozen=True)
class DiffStats:
    insertions: int
    deletions: int


@dataclass(frozen=True)
class FileDiff:
    """A file's unified diff and its line counts, from one diffing pass."""

    text: str
    stats: DiffStats


def _stats(ops: list[Opcode]) -> DiffStats:
    insertions = deletions = 0
    for tag, i1, i2, j1, j2 in ops:
        if tag in ("replace", "delete"):
            deletions += i2 - i1
        if tag in ("replace", "insert"):
            insertions += j2 - j1
    return DiffStats(insertions, deletions)


def _file_ends(before: TextFile | None, after: TextFile | None) -> tuple[int, int]:
    """:func:`common_ends` of the files' lines with their ends, compared as lines and ends
    side by side: nothing is joined for the lines an edit leaves alone."""
    if before is None or after is None:
        return 0, 0
    old, old_eols, new, new_eols = before.lines, before.eols, after.lines, after.eols
    if old_eols and new_eols and old_eols[0] == new_eols[0]:
        end = old_eols[0]
        if old_eols.count(end) == len(old_eols) and new_eols.count(end) == len(new_eols):
            # Every line of both ends alike (the common case): the lines alone decide.
            return common_ends(old, new)
    return _ends(
        len(old),
        len(new),
        lambda i, j, n: (
            old[i : i + n] == new[j : j + n] and old_eols[i : i + n] == new_eols[j : j + n]
        ),
    )


def _with_ends(file: TextFile | None, start: int, stop: int) -> list[str]:
    if file is None:
        return []
    return list(map(operator.add, file.lines[start:stop], file.eols[start:stop]))


def diff_file(
    display: str, before: TextFile | None, after: TextFile | None, context: int = 3
) -> FileDiff:
    """A ``git diff``-style unified diff (``None`` stands for an absent file) and its counts."""
    size_a = 0 if before is None else len(before.lines)
    size_b = 0 if after is None else len(after.lines)
    # The opcodes of the whole files, as opcodes() finds them: its first step, trimming the
    # common ends, done here without joining every line to its end.
    head, tail = _file_ends(before, after)
    middle: list[Block] = []
    _match(
        _with_ends(before, head, size_a - tail),
        _with_ends(after, head, size_b - tail),
        0,
        size_a - head - tail,
        0,
        size_b - head - tail,
        middle,
        0,
    )
    blocks = [(head + i, head + j, n) for i, j, n in middle]
    if head:
        blocks.insert(0, (0, 0, head))
    if tail:
        blocks.append((size_a - tail, size_b - tail, tail))
    ops = _opcodes(blocks, size_a, size_b)
    hunks = _hunks(ops, context)
    if not hunks:
        return FileDiff("", _stats(ops))
    out = [
        "--- /dev/null\n" if before is None else f"--- a/{display}\n",
        "+++ /dev/null\n" if after is None else f"+++ b/{display}\n",
    ]
    for hunk in hunks:
        a1 = max(hunk[0][1] - context, 0)
        b1 = max(hunk[0][3] - context, 0)
        a2 = min(hunk[-1][2] + context, size_a)
        b2 = min(hunk[-1][4] + context, size_b)
        out.append(f"@@ -{_range(a1, a2 - a1)} +{_range(b1, b2 - b1)} @@\n")
        lines = [" " + line for line in _with_ends(before, a1, hunk[0][1])]
        for tag, i1, i2, j1, j2 in hunk:
            if tag == "equal":
                lines.extend(" " + line for line in _with_ends(before, i1, i2))
                continue
            lines.extend("-" + line for line in _with_ends(before, i1, i2))
            lines.extend("+" + line for line in _with_ends(after, j1, j2))
        lines.extend(" " + line for line in _with_ends(before, hunk[-1][2], a2))
        out.extend(
            line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
            for line in lines
        )
    return FileDiff("".join(out), _stats(ops))


@dataclass(frozen=True)
class EditTarget:
    """One file of a proposed change, as an editor applies it."""

    uri: str
    display: str
    before: TextFile | None  # None: the file does not exist yet
    after: TextFile | None  # None: the file is deleted
    version: int | None  # the open document's version, when the editor has it open

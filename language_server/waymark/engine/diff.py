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

from waymark.engine import patience
from waymark.engine.diff_known import Opcode, one_stretch
from waymark.engine.linecount import equal_ahead, equal_back, matching_blocks
from waymark.engine.text import TextFile

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


def _ends(
    size_b: int,
    size_a: int,
    same: Callable[[int, int, int], bool],
    known: tuple[int, int] = (0, 0),
) -> tuple[int, int]:
    """Leading and trailing items two sequences of these sizes share, where ``same(i, j, n)``
    says whether ``n`` items from ``i`` in the first equal ``n`` from ``j`` in the second;
    ``known``: as many leading and trailing items as the caller knows to be alike, which are
    not compared again (the ends found are the same, only sooner)."""
    limit = min(size_b, size_a)
    head = min(known[0], limit)
    # Where the caller's ends stop at a difference (an edit's own lines), one item says so.
    if head < limit and same(head, head, 1):
        for size in _BLOCKS:
            while head + size <= limit and same(head, head, size):
                head += size
    tail = min(known[1], limit - head)
    if tail < limit - head and same(size_b - tail - 1, size_a - tail - 1, 1):
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
    if type(before) is not type(after):
        # Runs are found by comparing slices, and a list's never equal a tuple's.
        before, after = list(before), list(after)
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
    # Slices twice as long while equal: a piece between anchors, whose head is mostly
    # nothing, costs a comparison or two, and a large region is not copied.
    limit = min(ahi - alo, bhi - blo)
    head = equal_ahead(a, b, alo, blo, limit)
    tail = equal_back(a, b, ahi, bhi, limit - head)
    if head:
        out.append((alo, blo, head))
    alo, blo, ahi, bhi = alo + head, blo + head, ahi - tail, bhi - tail
    if alo < ahi and blo < bhi:
        if max(ahi - alo, bhi - blo) <= _MINIMAL_LINES:
            # Most pieces between anchors share no line (an edited line and its old self):
            # difflib would find nothing, at the cost of building its matcher.
            if not set(a[alo:ahi]).isdisjoint(b[blo:bhi]):
                blocks = matching_blocks(a[alo:ahi], b[blo:bhi])
                out.extend((alo + i, blo + j, n) for i, j, n in blocks)
        else:
            # Each level cuts at what is unique within it; a few levels are plenty.
            starts, partners, unique = (
                patience.anchors(a, b, alo, ahi, blo, bhi)
                if depth < _MAX_DEPTH
                else ([], [], False)
            )
            if starts:
                anchors = starts, partners
                _between(a, b, anchors, unique, alo, ahi, blo, bhi, out, depth + 1)
            else:
                # Nothing to cut at: difflib with its junk heuristic stays fast.
                matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=True)
                out.extend((alo + i, blo + j, n) for i, j, n in matcher.get_matching_blocks() if n)
    if tail:
        out.append((ahi, bhi, tail))


def _between(
    a: Sequence[str],
    b: Sequence[str],
    anchors: tuple[list[int], list[int]],
    unique: bool,
    alo: int,
    ahi: int,
    blo: int,
    bhi: int,
    out: list[Block],
    depth: int,
) -> None:
    """Append the anchors and the equal runs of the pieces between them, as matching each
    piece in turn would, but a run of equal lines through many anchors at once.

    A piece's common head continues the run of the anchor before it, and ends where the
    piece does only if the next anchor follows on the same diagonal: so runs are grown from
    anchors by comparing slices (in C), and only pieces left with lines on both sides are
    matched. When the anchors are lines unique on each side, a run reaching an anchor's line
    has reached that anchor, so a run is grown to its end and the anchors in it skipped."""
    starts, partners = anchors
    k, count = 0, len(starts)
    while k < count:
        i, j = starts[k], partners[k]
        _match(a, b, alo, i, blo, j, out, depth)
        if unique:
            size = 1 + equal_ahead(a, b, i + 1, j + 1, min(ahi - i, bhi - j) - 1)
            k = bisect.bisect_left(starts, i + size, k + 1)
        else:
            size = 1
            k += 1
            while True:
                ni, nj = (starts[k], partners[k]) if k < count else (ahi, bhi)
                size += equal_ahead(a, b, i + size, j + size, min(ni - i, nj - j) - size)
                if k == count or (i + size, j + size) != (ni, nj):
                    break
                size += 1
                k += 1
        out.append((i, j, size))
        alo, blo = i + size, j + size
    _match(a, b, alo, ahi, blo, bhi, out, depth)


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


def _uniform(before: TextFile, after: TextFile) -> bool:
    """Whether every line of both files ends alike (the common case): then the lines alone
    compare as the lines with their ends do, and nothing need be joined."""
    end = before.same_end
    return end is not None and end == after.same_end


def _file_ends(
    before: TextFile | None, after: TextFile | None, known: tuple[int, int]
) -> tuple[int, int]:
    """:func:`common_ends` of the files' lines with their ends, compared as lines and ends
    side by side: nothing is joined for the lines an edit leaves alone."""
    if before is None or after is None:
        return 0, 0
    old, old_eols, new, new_eols = before.lines, before.eols, after.lines, after.eols
    return _ends(
        len(old),
        len(new),
        lambda i, j, n: (
            old[i : i + n] == new[j : j + n] and old_eols[i : i + n] == new_eols[j : j + n]
        ),
        known,
    )


def _with_ends(file: TextFile | None, start: int, stop: int) -> list[str]:
    if file is None:
        return []
    return list(map(operator.add, file.lines[start:stop], file.eols[start:stop]))


def _prefixed(
    prefix: str, file: TextFile | None, end: str | None, start: int, stop: int
) -> list[str]:
    """The lines from ``start`` to ``stop`` with their ends, after ``prefix``: as one string
    when every line of the file ends in ``end``, a line feed (nothing to mark on them)."""
    if file is None or start >= stop:
        return []
    if end is not None:
        return [prefix + (end + prefix).join(file.lines[start:stop]) + end]
    lines, ends = file.lines[start:stop], file.eols[start:stop]
    return list(map(operator.add, map(prefix.__add__, lines), ends))


def _line_feed(file: TextFile | None) -> str | None:
    """The end every line of the file has, when one does and it ends in a line feed."""
    if file is None or not file.eols:
        return None
    end = file.eols[0]
    return end if end.endswith("\n") and file.eols.count(end) == len(file.eols) else None


def _ended(file: TextFile) -> bool:
    eols = file.eols
    return eols.count("\n") + eols.count("\r\n") == len(eols)


def _file_opcodes(
    before: TextFile | None, after: TextFile | None, uniform: bool, known: tuple[int, int]
) -> list[Opcode]:
    """The opcodes of the whole files, as opcodes() finds them: its first step, trimming the
    common ends, done here without joining every line to its end."""
    size_a = 0 if before is None else len(before.lines)
    size_b = 0 if after is None else len(after.lines)
    old: Sequence[str]
    new: Sequence[str]
    if uniform:
        assert before is not None and after is not None
        old_lines, new_lines = before.lines, after.lines
        head, tail = _ends(
            size_a,
            size_b,
            lambda i, j, n: old_lines[i : i + n] == new_lines[j : j + n],
            known,
        )
        old = before.lines[head : size_a - tail]
        new = after.lines[head : size_b - tail]
    else:
        head, tail = _file_ends(before, after, known)
        old = _with_ends(before, head, size_a - tail)
        new = _with_ends(after, head, size_b - tail)
    middle: list[Block] = []
    _match(old, new, 0, size_a - head - tail, 0, size_b - head - tail, middle, 0)
    blocks = [(head + i, head + j, n) for i, j, n in middle]
    if head:
        blocks.insert(0, (0, 0, head))
    if tail:
        blocks.append((size_a - tail, size_b - tail, tail))
    return _opcodes(blocks, size_a, size_b)


def diff_file(
    display: str,
    before: TextFile | None,
    after: TextFile | None,
    context: int = 3,
    *,
    known: tuple[int, int] = (0, 0),
    first_line: int = 0,
) -> FileDiff:
    """A ``git diff``-style unified diff (``None`` stands for an absent file) and its counts.

    ``known``: how many leading and trailing lines the caller knows the files share, ends
    included (an edit's planner knows where it changed the file): they are not compared
    again, and the diff is the same byte for byte. ``first_line``: the files are stretches of
    two files alike above them from this line on (0-based), wide enough to hold every hunk
    with its context: the hunks are numbered as in the whole files.
    """
    size_a = 0 if before is None else len(before.lines)
    size_b = 0 if after is None else len(after.lines)
    uniform = before is not None and after is not None and _uniform(before, after)
    ops = one_stretch(before, after, known, _MINIMAL_LINES) if uniform else None
    if ops is None:
        ops = _file_opcodes(before, after, uniform, known)
    hunks = _hunks(ops, context)
    out = [
        "--- /dev/null\n" if before is None else f"--- a/{display}\n",
        "+++ /dev/null\n" if after is None else f"+++ b/{display}\n",
    ]
    if not hunks:
        # An empty file made or removed has no line to show, but its reader must still be
        # told it now exists, or no longer does: the headers alone say so (as a patch).
        return FileDiff("".join(out) if (before is None) != (after is None) else "", _stats(ops))
    # Only a line not ending in a line feed is marked: when there is none, none is looked for.
    if uniform:
        # One end throughout both files: what the scans below would find, without them.
        assert before is not None
        end = before.eols[0]
        ended = end in ("\n", "\r\n")
        end_a = end_b = end if ended else None
    else:
        ended = all(_ended(file) for file in (before, after) if file is not None)
        end_a, end_b = _line_feed(before), _line_feed(after)
    for hunk in hunks:
        a1 = max(hunk[0][1] - context, 0)
        b1 = max(hunk[0][3] - context, 0)
        a2 = min(hunk[-1][2] + context, size_a)
        b2 = min(hunk[-1][4] + context, size_b)
        at_a, at_b = _range(a1 + first_line, a2 - a1), _range(b1 + first_line, b2 - b1)
        out.append(f"@@ -{at_a} +{at_b} @@\n")
        lines = _prefixed(" ", before, end_a, a1, hunk[0][1])
        for tag, i1, i2, j1, j2 in hunk:
            if tag == "equal":
                lines += _prefixed(" ", before, end_a, i1, i2)
                continue
            lines += _prefixed("-", before, end_a, i1, i2)
            lines += _prefixed("+", after, end_b, j1, j2)
        lines += _prefixed(" ", before, end_a, hunk[-1][2], a2)
        if ended:
            out += lines
        else:
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

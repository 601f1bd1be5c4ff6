"""An anchored edit planned from the file's bytes: the work is proportional to the request.

:func:`~waymark.engine.edits.anchored.plan_anchored_edit` decodes the whole file and indexes
every line. A UTF-8 file read by the compiled core needs neither: the core finds the lines
the anchors name in one pass over the bytes (``span_find``: by line hash, else by the
context hashes of the repeated lines, as the ladder does), the edit is planned by the
same code on the stretch of lines around it (decoded alone), its bytes are spliced into the
file's once, and the displayed anchors it reports are the core's, as a page of them shows
them, from the old file's spans and hashes (``span_anchors``): the diff's rows' of the new
file (only their tokens made, the tables of the whole file they depend on kept to the lines
that may share a text or a prefix with them), and which lines above the edit keep theirs
(both files' tokens compared in the core, only for the lines whose token the edit can
change). Whatever that cannot
answer exactly (a stale anchor or any other refusal, a token the ladder decides, a file not
in UTF-8) answers None, and the caller plans on the decoded file: the same answer, the old
way (tests/unit/test_edit_from_bytes.py compares both).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from waymark.engine import core
from waymark.engine.anchors import HIGH, LOW, MEDIUM, LineIndex, hash_lines
from waymark.engine.diff import DiffStats, FileDiff, common_ends, diff_file
from waymark.engine.edits.anchored import diff_hunks, with_shown
from waymark.engine.edits.line_ends import EndingsWouldMerge, check_rereads, ends_apart
from waymark.engine.edits.operations import AdvisoryLineIgnored, Operation, RangeSwapped
from waymark.engine.edits.resolve import Resolver
from waymark.engine.edits.safety import BRACKETS, check_safety
from waymark.engine.edits.splice import Splice, spliced_apart
from waymark.engine.encodings import decide_with_text, valid_utf8
from waymark.engine.errors import WaymarkError
from waymark.engine.line_index import P6_SHIFT, quality_of
from waymark.engine.text import TextFile, split_lines

# Lines kept around the changes: the unified diff's three of context, above a line whose
# terminator a splice just below it may change.
_MARGIN = 4
_DIFF_CONTEXT = 3
_TOKEN = re.compile(r"[0-9a-f]{6,16}")
_UTF8_BOM = b"\xef\xbb\xbf"


# span_find's answer: the line count, the lines each token names, their texts, how many
# lines have each of those, where the lines near them start, and every line's span and hash
# (for the new file's columns).
Found = tuple[int, list[list[int]], list[list[str]], list[list[int]], dict[int, int], object]


class _Unknown(Exception):
    """A question about a line the anchors did not name: the decoded file answers it."""


class _Named(LineIndex):
    """What the resolver asks of the lines the anchors name (the core found them): their
    candidates, texts and qualities; any other question is :class:`_Unknown`."""

    def __init__(self, count: int, found: dict[str, list[int]], texts: dict[int, tuple[str, int]]):
        super().__init__(_Lines(count, texts))
        self.found, self.texts = found, texts

    def candidates(self, token: str) -> list[int]:
        return self.found[token]

    def quality(self, i: int) -> str:
        if i not in self.texts:
            raise _Unknown
        return quality_of(*self.texts[i])

    def display(self, i: int) -> str:
        raise _Unknown


class _Lines(Sequence[str]):
    """The file's lines, of which only the named ones are known."""

    def __init__(self, size: int, texts: dict[int, tuple[str, int]]):
        self.size, self.texts = size, texts

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, i: Any) -> Any:
        if i not in self.texts:
            raise _Unknown
        return self.texts[i][0]

    def __iter__(self) -> Iterator[str]:
        raise _Unknown


# Not frozen: a frozen dataclass sets each of its twelve fields through object.__setattr__
# (~1 µs of every edit planned from the bytes), and nothing changes one after it is made.
@dataclass
class BytesEdit:
    """A planned edit: the new bytes, what :class:`AnchoredEdit` reports of it, and the
    stretch of both files around it (from line ``first_line``) for its unified diff, or that
    diff's hunk and counts when the core made them (``hunk``)."""

    after: bytes
    details: dict[str, Any]
    diff: list[dict[str, Any]]
    advisories: list[AdvisoryLineIgnored]
    swapped: list[RangeSwapped]
    untouched: tuple[int, int]
    before_stretch: TextFile | None = None
    after_stretch: TextFile | None = None
    first_line: int = 0
    known: tuple[int, int] = (0, 0)
    hunk: tuple[str, DiffStats] | None = None
    # The old lines [start, end) and the lines (and terminators) that replace them: the new
    # file's lines, given the old file's (edits/spliced_file.py).
    replaced: tuple[int, int, tuple[str, ...], tuple[str, ...]] = (0, 0, (), ())

    def unified(self, display: str) -> FileDiff:
        """:func:`diff_file` of the whole files, byte for byte."""
        if self.hunk is not None:
            body, stats = self.hunk
            return FileDiff(f"--- a/{display}\n+++ b/{display}\n{body}", stats)
        assert self.before_stretch is not None and self.after_stretch is not None
        return diff_file(
            display,
            self.before_stretch,
            self.after_stretch,
            known=self.known,
            first_line=self.first_line,
        )


def plan_from_bytes(
    data: bytes,
    declared: str | None,
    operations: Sequence[Operation],
    *,
    swap_reversed_ranges: bool = True,
) -> BytesEdit | None:
    """:func:`plan_anchored_edit` of ``data`` decoded, planned on its bytes; None: plan it
    on the decoded file instead (see the module's docstring)."""
    native = core.native
    if native is None:
        return None
    try:
        decision, _ = decide_with_text(data, declared, text_wanted=False)
    except WaymarkError:
        return None
    skip = len(_UTF8_BOM) if decision.bom else 0
    if decision.encoding != "utf-8" or (decision.source != "utf-8" and not valid_utf8(data[skip:])):
        return None
    eol = _dominant_eol(data)
    anchors = [a for op in operations for a in (op.target, op.start, op.end) if a is not None]
    tokens = sorted({a.token for a in anchors})
    if eol is None or not all(map(_TOKEN.fullmatch, tokens)):
        return None
    answer = native.span_find(data, skip, [(int(t, 16), len(t)) for t in tokens], _MARGIN + 1)
    if answer is None:
        return None  # two texts with one hash: the decoded file's
    count, found, texts, counts, _, _ = answer
    if not all(found):
        return None  # a stale anchor: refused the old way
    named = {
        i: (text, n)
        for at, t, c in zip(found, texts, counts, strict=True)
        for i, text, n in zip(at, t, c, strict=True)
    }
    index = _Named(count, dict(zip(tokens, found, strict=True)), named)
    resolver = Resolver(index.lines, swap_reversed_ranges, index)
    try:
        placed = resolver.place(operations)
    except _Unknown:
        return None
    if resolver.failures:
        return None
    return _Stretch(native, data, skip, answer, eol).plan(
        [p.splice for p in placed], len(operations), resolver
    )


class _Stretch:
    """The edit planned on the lines around it, then placed in the whole file."""

    def __init__(self, native: core.Core, data: bytes, skip: int, found: Found, eol: str) -> None:
        self.native, self.data, self.skip, self.eol = native, data, skip, eol
        self.count, self.starts, self.spans = found[0], found[4], found[5]
        self._brackets: dict[str, tuple[int, int]] | None = None

    def plan(self, splices: list[Splice], ops: int, resolver: Resolver) -> BytesEdit | None:
        data, count, skip = self.data, self.count, self.skip
        if len(splices) == 1:
            answered, plan = self._at_once(splices[0], ops, resolver)
            if answered:
                return plan
        w0 = max(min(s.start for s in splices) - _MARGIN, 0)
        w1 = min(max(s.end for s in splices) + _MARGIN, count)
        a, b = skip if w0 == 0 else self.starts[w0], self.starts[w1]
        lines, eols = split_lines(data[a:b].decode("utf-8"))
        before = TextFile(tuple(lines), tuple(eols))
        shifted = [Splice(s.start - w0, s.end - w0, s.lines) for s in splices]
        after, _, changes = spliced_apart(before, hash_lines(before.lines), shifted, self.eol)
        if after == before:
            return None  # nothing to do: refused the old way
        try:
            if not ends_apart(after):
                check_rereads(after.lines, after.eols, changes)
        except EndingsWouldMerge:
            return None
        if check_safety(before, after, changes, self._balance):
            return None
        # The unified diff aligns the files by their common ends, which may reach past the
        # changes (lines removed or added next to copies of them): the stretch must hold its
        # context on both sides, unless it reaches the file's own end there.
        head, tail = common_ends(before.lines_with_ends(), after.lines_with_ends())
        if (w0 > 0 and head < _DIFF_CONTEXT) or (w1 < count and tail < _DIFF_CONTEXT):
            return None
        try:
            middle = after.encode()
        except UnicodeEncodeError:
            return None
        if not valid_utf8(middle):
            return None  # a lone surrogate written as a byte: the decoded file's to index
        new_data = self.native.splice(data, a, middle, b)
        first, last = changes[0], changes[-1]
        hunks = diff_hunks(before.lines, after.lines, changes, w0)
        rows = {row["line"] - 1: row["text"] for h in hunks for row in h["lines"] if "line" in row}
        anchors = self._columns(new_data, rows, first.old_start + w0, (w0, w1))
        if anchors is None:
            return None
        shown, valid = anchors
        hunks = with_shown(hunks, shown.__getitem__)
        lines_after = count + len(after.lines) - len(before.lines)
        details = {
            "operations_applied": ops,
            "lines_before": count,
            "lines_after": lines_after,
            "net_change": lines_after - count,
            "anchors_valid_through": valid,
            "must_refresh_from_line": valid + 1,
        }
        known = max(first.old_start - 1, 0), len(before.lines) - last.old_end
        return BytesEdit(
            after=new_data,
            details=details,
            diff=hunks,
            advisories=resolver.advisories,
            swapped=resolver.swapped,
            untouched=(known[0] + w0, known[1] + count - w1),
            before_stretch=before,
            after_stretch=after,
            first_line=w0,
            known=known,
            replaced=(w0, w1, after.lines, after.eols),
        )

    def _at_once(self, sp: Splice, ops: int, resolver: Resolver) -> tuple[bool, BytesEdit | None]:
        """The commonest edit, one replace of plain lines, planned in one call of the core
        (_core_stretch.c): whether it was that edit, and then its plan (None: the decoded
        file's plan answers); when it was not, the steps of :meth:`plan` answer."""
        made = self.native.stretch_edit(
            self.data,
            self.skip,
            self.starts,
            self.count,
            self.spans,
            self.eol,
            sp.start,
            sp.end,
            sp.lines,
            ops,
        )
        if made is None:
            return False, None
        if made is False:
            return True, None
        new_data, details, hunks, untouched, body, insertions, deletions = made
        return True, BytesEdit(
            after=new_data,
            details=details,
            diff=hunks,
            advisories=resolver.advisories,
            swapped=resolver.swapped,
            untouched=untouched,
            hunk=(body, DiffStats(insertions, deletions)),
            replaced=(sp.start, sp.end, sp.lines, (self.eol,) * len(sp.lines)),
        )

    def _columns(
        self, new_data: bytes, rows: dict[int, str], first: int, replaced: tuple[int, int]
    ) -> tuple[dict[int, tuple[str, str]], int] | None:
        """The rows' anchors and qualities, and the leading lines that keep theirs, from the
        core's tables of the new bytes (the old file's lines but the ``replaced`` ones split
        and hashed already), and of both files above the edit; None where the ladder decides
        one."""
        native, data, skip = self.native, self.data, self.skip
        answer = native.span_anchors(
            self.spans, data, new_data, skip, *replaced, first, sorted(rows)
        )
        if answer is None:
            return None
        valid, (special, tokens, low, medium) = answer
        tokens_of = dict(zip(special, tokens, strict=True))
        if any(tokens_of.get(i, "") is None for i in rows):
            return None
        quality = dict.fromkeys(medium, MEDIUM) | dict.fromkeys(low, LOW)
        hashes = hash_lines(list(rows.values()))
        shown = {
            i: (tokens_of.get(i) or f"{h >> P6_SHIFT:06x}", quality.get(i, HIGH))
            for i, h in zip(rows, hashes, strict=True)
        }
        return shown, valid

    def _balance(self, opening: str, closing: str) -> int:
        if self._brackets is None:
            # One pass counts every pair: a pair's two counts are asked together.
            self._brackets = dict(zip(BRACKETS, self.native.brackets(self.data), strict=True))
        opened, closed = self._brackets[opening + closing]
        return opened - closed


def _dominant_eol(data: bytes) -> str | None:
    """:func:`~waymark.engine.text.dominant_eol` of the file's terminators, counted in its
    bytes; None for a tie between two kinds (decided by which comes first)."""
    if b"\r" not in data:
        return "\n"
    crlf = data.count(b"\r\n")
    counts = {"\n": data.count(b"\n") - crlf, "\r\n": crlf, "\r": data.count(b"\r") - crlf}
    best = max(counts.values())
    tied = [eol for eol, n in counts.items() if n == best]
    return tied[0] if len(tied) == 1 else None

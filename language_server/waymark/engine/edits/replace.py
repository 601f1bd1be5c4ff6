"""String-replacement edits (``waymark.replace``, ``multiReplace``, ``write``) as pure plans.

Text in, new text (or bytes) out, or a typed error; the command layer does the reading,
read-before-write guards, diffs, previews and writing. Decisions (docs/string-replacement.md):

- Matching is exact. The one allowance: an ``old_string`` without ``\\r`` reads every line
  terminator of the file as ``\\n`` (agents write ``\\n`` whatever the file uses), and a
  ``new_string`` without ``\\r`` gets the terminator of the region it replaces, so CRLF files
  stay CRLF. Tabs, spaces and trailing whitespace are never relaxed; a near miss is explained
  (see ``suggest``), never applied.
- ``expected_replacements`` must equal the number of non-overlapping occurrences.
- A multi-replace runs its edits one after another on a working copy, and is refused up front
  when that sequence is not the same as applying every edit to the file as read: targets that
  overlap in the file, or a later edit matching text an earlier edit wrote. So each
  ``old_string`` always refers to the file the agent read, and the batch is all or nothing.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from waymark.engine.edits.matching import LineIndex, Span, file_eol, find_spans, with_file_eols
from waymark.engine.edits.snippet import Change, render_snippet, trimmed_change
from waymark.engine.edits.suggest import explain_miss
from waymark.engine.errors import (
    InvalidParams,
    NoOp,
    OldStringNotFound,
    ReplacementCountMismatch,
    WaymarkError,
)
from waymark.engine.text import TextFile, convert_newlines, split_lines

_MAX_LISTED_LINES = 50


def _check_count(value: object, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidParams(
            f"`{field}` must be an integer of 1 or more: the number of occurrences to replace.",
            {"field": field},
        )
    return value


@dataclass(frozen=True)
class ReplaceEdit:
    """Replace ``old_string`` with ``new_string`` at exactly ``expected_replacements`` places."""

    old_string: str
    new_string: str
    expected_replacements: int = 1

    def __post_init__(self) -> None:
        _check_count(self.expected_replacements, "expected_replacements")


class EmptyOldString(Exception):
    """An edit's ``old_string`` is empty: there is nothing to find."""


class UnencodableText(Exception):
    """The text has a lone surrogate at ``offset``, which ``encoding`` cannot write."""

    def __init__(self, encoding: str, offset: int) -> None:
        super().__init__(f"cannot encode as {encoding} at offset {offset}")
        self.encoding = encoding
        self.offset = offset


class ConflictingEdits(Exception):
    """Edits of a batch overlap or depend on each other; ``conflicts`` lists every pair."""

    def __init__(self, conflicts: list[dict[str, Any]]) -> None:
        super().__init__(f"{len(conflicts)} conflicting pair(s)")
        self.conflicts = conflicts


class BatchEditFailed(Exception):
    """Edit ``index`` of a batch failed with ``error``, as it would have on its own."""

    def __init__(self, index: int, error: WaymarkError | EmptyOldString) -> None:
        super().__init__(f"edit {index}: {error}")
        self.index = index
        self.error = error


@dataclass(frozen=True)
class ReplaceResult:
    text: str
    """The new text, with the file's own terminators."""
    replacements: int
    """Occurrences replaced, over all edits."""
    snippet: str
    """The new text around each change, changed lines marked (format in ``snippet``)."""
    warnings: list[str]
    edits_applied: int
    """Edits of the batch applied: all of them, as a batch is all or nothing."""


@dataclass
class _Region:
    """Text an edit wrote, tracked through the later edits of a batch."""

    edit: int
    start: int
    end: int
    change: Change


def _touches(region: _Region, start: int, end: int) -> bool:
    if region.start == region.end:  # a deletion point: only a match across it uses it
        return start < region.start < end
    return region.start < end and start < region.end


def _mover(spans: Sequence[Span], written: Sequence[str]) -> Callable[[int, bool], int]:
    """Map offsets of a text through replacing ``spans`` by ``written``.

    An offset inside a replaced span goes to the start (or, for an end, the end) of what
    replaced it, so a region an edit overwrote grows to cover the overwrite.
    """
    starts = [s for s, _ in spans]
    ends = [e for _, e in spans]
    shift = [0]
    for (s, e), new in zip(spans, written, strict=True):
        shift.append(shift[-1] + len(new) - (e - s))

    def move(pos: int, is_end: bool) -> int:
        k = bisect_right(ends, pos)
        if k < len(spans) and starts[k] < pos:
            base = starts[k] + shift[k]
            return base + len(written[k]) if is_end else base
        return pos + shift[k]

    return move


@dataclass
class _Run:
    """The sequential application of a batch, and what it reveals."""

    text: str
    regions: list[_Region]
    depends: dict[tuple[int, int], None]
    unchanged: list[bool]


def _run(text: str, edits: Sequence[ReplaceEdit]) -> _Run:
    work = text
    # New lines take the style of the file as read, however earlier edits reshaped it.
    eol = file_eol(text)
    regions: list[_Region] = []
    depends: dict[tuple[int, int], None] = {}
    unchanged: list[bool] = []
    for i, edit in enumerate(edits):
        spans = find_spans(work, edit.old_string)
        starts = [r.start for r in regions]
        longest = max((r.end - r.start for r in regions), default=0)
        for s, e in spans:
            for r in regions[bisect_left(starts, s - longest) : bisect_left(starts, e)]:
                if _touches(r, s, e):
                    depends[(r.edit, i)] = None
        written = [with_file_eols(edit.new_string, work, span, eol) for span in spans]
        unchanged.append(all(w == work[s:e] for w, (s, e) in zip(written, spans, strict=True)))
        if not spans:
            continue
        move = _mover(spans, written)
        for r in regions:
            c = r.change
            r.start, r.end = move(r.start, False), move(r.end, True)
            r.change = Change(move(c.start, False), move(c.end, True), c.removed)
        pieces = []
        pos = 0
        for (s, e), w in zip(spans, written, strict=True):
            pieces += [work[pos:s], w]
            at = move(s, False)
            regions.append(_Region(i, at, at + len(w), trimmed_change(at, work[s:e], w)))
            pos = e
        pieces.append(work[pos:])
        work = "".join(pieces)
        regions.sort(key=lambda r: r.start)
    return _Run(work, regions, depends, unchanged)


def _conflicts(
    text: str, edits: Sequence[ReplaceEdit], found: Sequence[Sequence[Span]], run: _Run
) -> list[dict[str, Any]]:
    index: LineIndex | None = None
    pairs: dict[tuple[int, int], dict[str, Any]] = {}
    # Sweep the targets in the file as read; one edit's own targets never overlap each other.
    active: list[tuple[int, int]] = []
    for s, e, i in sorted((s, e, i) for i, spans in enumerate(found) for s, e in spans):
        active = [(end, j) for end, j in active if end > s]
        for _, j in active:
            if j != i and (min(i, j), max(i, j)) not in pairs:
                first, second = edits[min(i, j)], edits[max(i, j)]
                if first.old_string != second.old_string:
                    reason = "overlapping_targets"
                elif first.new_string == second.new_string:
                    reason = "duplicate_edit"
                else:
                    reason = "same_target"
                index = index or LineIndex(text)
                pairs[(min(i, j), max(i, j))] = {"reason": reason, "line": index.line_of(s)}
        active.append((e, i))
    for pair in run.depends:
        pairs.setdefault(pair, {"reason": "depends_on_earlier_output"})
    return [
        {"edits": list(pair), **pairs[pair]} for pair in sorted(pairs, key=lambda p: (p[1], p[0]))
    ]


def _indent_style(lines: Sequence[str]) -> str | None:
    tabs = sum(line.startswith("\t") for line in lines)
    spaces = sum(line.startswith("  ") for line in lines)
    if tabs and tabs >= 4 * spaces:
        return "tabs"
    if spaces and spaces >= 4 * tabs:
        return "spaces"
    return None


def _warnings(text: str, index: LineIndex, changed_lines: Sequence[int]) -> list[str]:
    warnings = []
    style = _indent_style(split_lines(text)[0])
    odd = "  " if style == "tabs" else "\t"
    if style:
        wrong = [n for n in changed_lines if index.lines[n - 1].startswith(odd)]
        if wrong:
            other = "spaces" if style == "tabs" else "tabs"
            shown = ", ".join(map(str, wrong[:10])) + (", …" if len(wrong) > 10 else "")
            warnings.append(
                f"The new text indents line(s) {shown} with {other}, but this file indents "
                f"with {style}; check that this is intended."
            )
    if text[-1:] in ("\n", "\r") and index.eols and index.eols[-1] == "":
        warnings.append(
            "The file no longer ends with a newline; if that was not intended, end new_string "
            "with one."
        )
    return warnings


def _plan(text: str, edits: Sequence[ReplaceEdit], batch: bool) -> ReplaceResult:
    def fail(i: int, error: WaymarkError | EmptyOldString) -> Exception:
        return BatchEditFailed(i, error) if batch else error

    for i, edit in enumerate(edits):
        if not edit.old_string:
            raise fail(i, EmptyOldString())
        if edit.old_string == edit.new_string:
            identical = "old_string and new_string are identical, so the edit would change nothing."
            raise fail(i, NoOp(identical))

    found = [find_spans(text, edit.old_string) for edit in edits]
    run = _run(text, edits)
    conflicts = _conflicts(text, edits, found, run) if batch else []
    if conflicts:
        raise ConflictingEdits(conflicts)

    for i, (edit, spans) in enumerate(zip(edits, found, strict=True)):
        if not spans:
            message, details = explain_miss(text, edit.old_string, edit.new_string)
            raise fail(i, OldStringNotFound(message, details))
        if len(spans) != edit.expected_replacements:
            lines = LineIndex(text).lines_of(spans)
            shown = ", ".join(map(str, lines[:10])) + (", …" if len(lines) > 10 else "")
            advice = (
                "add surrounding lines to old_string to pick one, or set "
                f"expected_replacements to {len(spans)} to replace them all"
                if edit.expected_replacements == 1
                else f"set expected_replacements to {len(spans)} or make old_string more specific"
            )
            raise fail(
                i,
                ReplacementCountMismatch(
                    f"old_string occurs {len(spans)} time(s) (line(s) {shown}), but "
                    f"expected_replacements is {edit.expected_replacements}; {advice}.",
                    {
                        "expected": edit.expected_replacements,
                        "found": len(spans),
                        "lines": lines[:_MAX_LISTED_LINES],
                    },
                ),
            )
        if run.unchanged[i]:
            raise fail(
                i,
                NoOp(
                    "old_string and new_string differ only in line endings, and replacements "
                    "keep the file's line endings, so the edit would change nothing."
                ),
            )

    index = LineIndex(run.text)
    snippet = render_snippet(index, [r.change for r in run.regions])
    return ReplaceResult(
        text=run.text,
        replacements=sum(map(len, found)),
        snippet=snippet.text,
        warnings=_warnings(text, index, snippet.changed_lines),
        edits_applied=len(edits),
    )


def plan_replace(text: str, edit: ReplaceEdit) -> ReplaceResult:
    """Replace ``edit.old_string`` in ``text`` (a decoded file, real terminators)."""
    return _plan(text, [edit], batch=False)


def plan_multi_replace(text: str, edits: Sequence[ReplaceEdit]) -> ReplaceResult:
    """Apply ``edits`` in order, all or nothing: :class:`ConflictingEdits` up front, else
    :class:`BatchEditFailed` naming the first edit that cannot apply."""
    return _plan(text, edits, batch=True)


def plan_write(existing: TextFile | None, content: str, new: TextFile | None = None) -> bytes:
    """The bytes ``waymark.write`` writes.

    A new file is ``content`` as given, in ``new``'s encoding (UTF-8 by default). Overwriting
    keeps the file's encoding and BOM, and ``content`` written with ``\\n`` only takes the
    file's dominant terminator.
    """
    # Not `or`: an empty TextFile is falsy (it has no lines).
    target = existing if existing is not None else new if new is not None else TextFile((), ())
    text = convert_newlines(content, target.eol) if existing else content
    try:
        return target.encode_text(text)
    except UnicodeEncodeError as exc:
        raise UnencodableText(target.encoding, exc.start) from exc

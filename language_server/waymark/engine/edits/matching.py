"""Finding an ``old_string`` in a file's text, and offsets ⇄ line numbers.

Agents write ``\\n`` whatever the file uses. So an ``old_string`` without ``\\r`` matches a
file's text with every terminator (``\\r\\n``, ``\\r``, ``\\n``) read as ``\\n``; the spans
returned are always offsets into the real text, covering whole ``\\r\\n`` pairs. An
``old_string`` that contains ``\\r`` was written with explicit terminators and matches
byte-exactly. Nothing else is ever normalised: tabs, spaces and trailing whitespace count.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from waymark.engine.text import dominant_eol, split_lines

Span = tuple[int, int]

_TERMINATOR_RE = re.compile(r"\r\n|\r|\n")


def find_spans(text: str, old: str) -> list[Span]:
    """Non-overlapping occurrences of ``old``, left to right, as ``(start, end)`` offsets."""
    if "\r" in old or "\r" not in text:
        return _find_exact(text, old)
    crlf = [m.start() - k for k, m in enumerate(re.finditer("\r\n", text))]
    flat = text.replace("\r\n", "\n").replace("\r", "\n")
    # A position in the flat text moves right by one for every \r\n that collapsed before it.
    return [(s + bisect_left(crlf, s), e + bisect_left(crlf, e)) for s, e in _find_exact(flat, old)]


def _find_exact(text: str, old: str) -> list[Span]:
    spans = []
    pos = text.find(old)
    while pos >= 0:
        spans.append((pos, pos + len(old)))
        pos = text.find(old, pos + len(old))
    return spans


def with_file_eols(new: str, text: str, span: Span, default_eol: str) -> str:
    """``new`` with its ``\\n`` written as the terminator the replaced region uses.

    The region's own terminator when it has exactly one kind, else ``default_eol`` (the
    file's dominant one). A ``new`` that contains ``\\r`` spells its terminators out and is
    kept as is.
    """
    if "\r" in new or "\n" not in new:
        return new
    kinds = set(_TERMINATOR_RE.findall(text, span[0], span[1]))
    eol = kinds.pop() if len(kinds) == 1 else default_eol
    return new if eol == "\n" else new.replace("\n", eol)


def file_eol(text: str) -> str:
    """The terminator new lines take in ``text`` (its dominant one)."""
    if "\r" not in text:
        return "\n"
    return dominant_eol(split_lines(text)[1])


class LineIndex:
    """1-based line numbers of offsets, with lines split as LSP does."""

    def __init__(self, text: str) -> None:
        self.lines, self.eols = split_lines(text)
        self.starts: list[int] = []
        pos = 0
        for line, eol in zip(self.lines, self.eols, strict=True):
            self.starts.append(pos)
            pos += len(line) + len(eol)
        self.length = pos

    def line_of(self, offset: int) -> int:
        """The line holding ``offset``; the end of the text counts as the last line."""
        return max(1, min(bisect_right(self.starts, offset), len(self.lines)))

    def at_line_start(self, offset: int) -> bool:
        if offset == self.length:
            return not self.eols or self.eols[-1] != ""
        pos = bisect_left(self.starts, offset)
        return pos < len(self.starts) and self.starts[pos] == offset

    def lines_of(self, spans: Sequence[Span]) -> list[int]:
        return [self.line_of(start) for start, _ in spans]

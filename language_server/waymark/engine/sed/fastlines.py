"""The lines one step of the whole-buffer path selects, found from the ends of its ranges alone.

With one command that is evaluated once per line and never reads ahead (no ``n``/``N``), GNU's
range state machine (``execute.py`` ``_Machine.matches``) selects a set of whole lines that can
be found from the ends of the ranges alone: line-number ends by arithmetic, regex ends by
searching the buffer from the next line. The selection is a list of spans of the text. A regex
that is a plain literal is found by a pattern opening with it (re then skips ahead fast). Text
is ``str``, or ``bytes`` for an ASCII file (``fastpath.py``).
"""

from __future__ import annotations

import re
from functools import cached_property, lru_cache
from itertools import repeat
from typing import AnyStr, Generic

from waymark.engine.sed.asciibytes import bytes_pattern
from waymark.engine.sed.regex import CompiledRegex
from waymark.engine.sed.script import Address

# Selected lines as two parallel lists of offsets, in order: each span starts at a line start
# and stops at the newline of its last line (or at the end of the last line).
Spans = tuple[list[int], list[int]]
# Hot loops run through map() over C functions: no Python frame per selected line.
PLUS_ONE = (1).__add__


def like(text: AnyStr, value: str) -> AnyStr:
    """``value`` as the same type as ``text`` (bytes: UTF-8)."""
    return value if isinstance(text, str) else value.encode("utf-8")


def pattern_for(regex: CompiledRegex, text: AnyStr) -> re.Pattern[AnyStr]:
    if isinstance(text, str):
        return regex.buffer_for(text)
    # Bytes are only ever ASCII text with patterns that compile for bytes (runs_on_bytes).
    pattern = bytes_pattern(regex.ascii_buffer_pattern)
    assert pattern is not None
    return pattern


class Lines(Generic[AnyStr]):
    """Line numbers and offsets in ``text[:end]`` (the text without its final newline),
    through a cursor that only moves forward."""

    def __init__(self, text: AnyStr, end: int) -> None:
        self.text: AnyStr = text
        self.end = end
        self.newline: AnyStr = like(text, "\n")
        self.line = 1
        self.offset = 0

    @cached_property
    def total(self) -> int:
        return self.text.count(self.newline, 0, self.end) + 1

    @cached_property
    def last_start(self) -> int:
        return self.text.rfind(self.newline, 0, self.end) + 1

    def start(self, number: int) -> int | None:
        """The offset of line ``number`` (not before the cursor's line), None past the last
        line; the cursor moves there (or to the last line)."""
        assert number >= self.line
        text, end, newline = self.text, self.end, self.newline
        while self.line < number:
            found = text.find(newline, self.offset, end)
            if found < 0:
                return None
            self.offset = found + 1
            self.line += 1
        return self.offset

    def to_last(self) -> int:
        """The number of the last line; the cursor moves there."""
        self.line, self.offset = self.total, self.last_start
        return self.line

    def locate(self, position: int) -> int:
        """The number of the line holding ``position`` (not before the cursor's line start)."""
        newlines = self.text.count(self.newline, self.offset, position)
        if newlines:
            self.line += newlines
            self.offset = self.text.rfind(self.newline, self.offset, position) + 1
        return self.line

    def stop(self, start: int) -> int:
        """The end of the line at ``start``: the offset of its newline, or the end."""
        found = self.text.find(self.newline, start, self.end)
        return self.end if found < 0 else found

    def search(self, regex: CompiledRegex, number: int) -> int | None:
        """The first line from ``number`` on where ``regex`` matches; the cursor moves there."""
        offset = self.start(number)
        if offset is None:
            return None
        match = pattern_for(regex, self.text).search(self.text, offset, self.end)
        return None if match is None else self.locate(match.start())


def _regex_lines(regex: CompiledRegex, lines: Lines[AnyStr]) -> Spans:
    """Every line where ``regex`` matches, each as its own span."""
    text, end, newline = lines.text, lines.end, lines.newline
    pattern = pattern_for(regex, text)
    required = regex.required_literal
    # Bytes are ASCII text: a literal that is not never matches, and the general loop says so.
    literal = like(text, required) if isinstance(text, str) or required.isascii() else None
    plain = bool(literal) and not pattern.flags & re.IGNORECASE
    if literal is not None and plain and pattern.pattern == re.escape(literal):
        # The regex is the literal itself: a pattern that starts with it lets re skip ahead
        # fast, and it takes the rest of the line, so each line is found once.
        found = list(_rest_of_line(literal).finditer(text, 0, end))
        newlines = map(text.rfind, repeat(newline), repeat(0), map(re.Match.start, found))
        return list(map(PLUS_ONE, newlines)), list(map(re.Match.end, found))
    if literal is not None and plain and pattern.pattern == like(text, "^") + re.escape(literal):
        # ``^literal``: the literal after a newline (or at the very start).
        found = list(_rest_of_line(newline + literal).finditer(text, 0, end))
        starts = list(map(PLUS_ONE, map(re.Match.start, found)))
        stops = list(map(re.Match.end, found))
        if text.startswith(literal, 0, end):
            starts.insert(0, 0)
            stops.insert(0, lines.stop(0))
        return starts, stops
    starts, stops = [], []
    position = 0
    while position <= end:
        match = pattern.search(text, position, end)
        if match is None:
            break
        start = match.start()
        starts.append(text.rfind(newline, 0, start) + 1)
        stop = text.find(newline, start, end)
        if stop < 0:
            stop = end
        stops.append(stop)
        position = stop + 1
    return starts, stops


@lru_cache(maxsize=64)
def _rest_of_line(literal: AnyStr) -> re.Pattern[AnyStr]:
    return re.compile(re.escape(literal) + like(literal, "[^\n]*"))


def _exists(lines: Lines[AnyStr], number: int) -> int | None:
    return number if lines.start(number) is not None else None


def _next(address: Address, number: int, lines: Lines[AnyStr]) -> int | None:
    """The first line from ``number`` on that ``address`` matches (as a single address); the
    cursor moves there."""
    kind = address.kind
    if kind == "line":
        return _exists(lines, address.value) if number <= address.value else None
    if kind == "last":
        return lines.to_last() if number <= lines.total else None
    if kind == "step":
        candidate = max(number, address.value)
        candidate += (address.value - candidate) % address.step
        return _exists(lines, candidate)
    assert address.regex is not None
    return lines.search(address.regex, number)


def _range_end(second: Address, start: int, lines: Lines[AnyStr]) -> int | None:
    """The last line of a range opened on line ``start`` (``_Machine.matches`` without n/N);
    None when the range runs to the last line."""
    kind = second.kind
    if kind == "line":
        return _exists(lines, max(second.value, start))
    if kind == "plus":
        return _exists(lines, start + second.value)
    if kind == "mult":
        # GNU ends at the next multiple after the start line, even when the start is one.
        if second.value == 0:
            return start
        return _exists(lines, start + second.value - start % second.value)
    if kind == "last":
        return None
    if kind == "step":
        # Tried on the start line too.
        return _next(second, start, lines)
    # A regex end is tried from the next line on; the range stays open if it never matches.
    assert second.regex is not None
    return lines.search(second.regex, start + 1)


def select_lines(first: Address | None, second: Address | None, lines: Lines[AnyStr]) -> Spans:
    """The lines GNU's cycle selects for one command evaluated once on every line."""
    if first is None:
        return [0], [lines.end]
    starts: list[int] = []
    stops: list[int] = []
    if second is None:
        if first.kind == "regex":
            assert first.regex is not None
            return _regex_lines(first.regex, lines)
        if first.kind == "last":
            return [lines.last_start], [lines.end]
        if first.kind == "step" and first.step == 1:
            found = _next(first, 1, lines)
            return ([], []) if found is None else ([lines.offset], [lines.end])
        number = 1
        while (found := _next(first, number, lines)) is not None:
            starts.append(lines.offset)
            stops.append(lines.stop(lines.offset))
            number = found + 1
        return starts, stops
    if first == Address("line", 0):
        # 0,/re/: open before line 1, so the end regex is tried on line 1 already.
        assert second.regex is not None
        found = lines.search(second.regex, 1)
        return [0], [lines.end if found is None else lines.stop(lines.offset)]
    number = 1
    while (found := _next(first, number, lines)) is not None:
        starts.append(lines.offset)
        end = _range_end(second, found, lines)
        if end is None:
            stops.append(lines.end)
            break
        lines.start(end)
        stops.append(lines.stop(lines.offset))
        if first.kind == "line":
            # A range starting at a line number opens once.
            break
        number = end + 1
    return starts, stops


def complement(spans: Spans, end: int) -> Spans:
    """The lines of ``text[:end]`` outside ``spans``."""
    starts: list[int] = []
    stops: list[int] = []
    following = 0
    for start, stop in zip(*spans, strict=True):
        if start > following:
            starts.append(following)
            stops.append(start - 1)
        following = stop + 1
    if following <= end:
        starts.append(following)
        stops.append(end)
    return starts, stops

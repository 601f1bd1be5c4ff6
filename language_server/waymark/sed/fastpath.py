"""Whole-buffer runs of the commonest one-command programs, instead of GNU's cycle per line.

The shapes: ``ADDR d`` and ``ADDR!d``; ``-n ADDR p`` and ``-n ADDR!p``; ``ADDR s/…/…/FLAGS``
and ``ADDR{s…;s…}`` (``!`` allowed, no ``p`` flag, inner ``s`` commands unaddressed). ADDR is a
line, ``$``, ``first~step``, a regex (``I`` allowed) or a range of those (``A,+N``, ``A,~N``,
``0,/re/`` included). With a single command that is evaluated once per line and never reads
ahead (no ``n``/``N``), GNU's range state machine (``execute.py`` ``_Machine.matches``) selects
a set of whole lines that can be found from the ends of the ranges alone: line-number ends by
arithmetic, regex ends by searching the buffer from the next line. The selection is a list of
spans of the text; deleting, keeping, or substituting inside them (with ``simulate.py``'s
whole-buffer ``s``) gives GNU's output, including its missing-final-newline bookkeeping: a
kept line keeps its own terminator, or its lack of one.

Anything outside these shapes is not a FastProgram; anything the fast path cannot decide as
precisely as the cycle (a locale check over lines the cycle would not have examined, an ``s``
inserting newlines into several spans) answers None, and the caller runs the cycle instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import chain

from .decline import SedDecline
from .regex import CompiledRegex
from .script import Address, SedScript, SubstCommand
from .simulate import _apply_buffer, check_locale

# Offsets (start, stop) of whole lines: ``start`` is a line start, ``stop`` the offset of the
# last selected line's newline, or the end of the last line.
Span = tuple[int, int]


@dataclass(frozen=True)
class FastProgram:
    """A program in one of the whole-buffer shapes.

    ``action``: "delete" (``d``), "print" (``-n … p``) or "subst" (``s`` or a block of them).
    """

    action: str
    addr1: Address | None
    addr2: Address | None
    negate: bool
    commands: tuple[SubstCommand, ...] = ()


def fast_program(script: SedScript) -> FastProgram | None:
    """The script as a FastProgram, or None when it is not one of the whole-buffer shapes."""
    program = script.program
    if script.commands is not None or not program:
        return None
    head = program[0]
    if len(program) == 1:
        if head.name == "d" and not script.quiet:
            return FastProgram("delete", head.addr1, head.addr2, head.negate)
        if head.name == "p" and script.quiet:
            return FastProgram("print", head.addr1, head.addr2, head.negate)
        if head.name == "s" and not script.quiet and head.addr1 is not None:
            subst = head.subst
            if subst is None or subst.print:
                return None
            return FastProgram("subst", head.addr1, head.addr2, head.negate, (subst,))
        return None
    if script.quiet or head.name != "{" or head.target != len(program):
        return None
    closer = program[-1]
    if closer.name != "}" or closer.addr1 is not None:
        return None
    commands: list[SubstCommand] = []
    for command in program[1:-1]:
        if command.name != "s" or command.addr1 is not None or command.negate:
            return None
        if command.subst is None or command.subst.print:
            return None
        commands.append(command.subst)
    if not commands:
        return None
    return FastProgram("subst", head.addr1, head.addr2, head.negate, tuple(commands))


def run_fast(program: FastProgram, text: str) -> str | None:
    """GNU's output for one file's text, or None when the cycle must decide instead."""
    if not text:
        return text
    end = len(text) - 1 if text.endswith("\n") else len(text)
    try:
        for address in (program.addr1, program.addr2):
            if address is not None and address.regex is not None:
                # The cycle checks the lines it tries the regex on; this checks them all, and
                # a refusal hands the file to the cycle, which may still decide it.
                check_locale(address.regex, text)
        spans = _select(program.addr1, program.addr2, _Lines(text, end))
        if program.action == "delete":
            return _keep(text, spans) if program.negate else _delete(text, spans)
        if program.action == "print":
            return _delete(text, spans) if program.negate else _keep(text, spans)
        if program.negate:
            spans = _complement(spans, end)
        return _substitute(program.commands, text, spans)
    except SedDecline:
        return None


class _Lines:
    """Line numbers and offsets in ``text[:end]`` (the text without its final newline),
    through a cursor that only moves forward."""

    def __init__(self, text: str, end: int) -> None:
        self.text = text
        self.end = end
        self.line = 1
        self.offset = 0

    @cached_property
    def total(self) -> int:
        return self.text.count("\n", 0, self.end) + 1

    @cached_property
    def last_start(self) -> int:
        return self.text.rfind("\n", 0, self.end) + 1

    def start(self, number: int) -> int | None:
        """The offset of line ``number`` (not before the cursor's line), None past the last
        line; the cursor moves there (or to the last line)."""
        assert number >= self.line
        text, end = self.text, self.end
        while self.line < number:
            found = text.find("\n", self.offset, end)
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
        newlines = self.text.count("\n", self.offset, position)
        if newlines:
            self.line += newlines
            self.offset = self.text.rfind("\n", self.offset, position) + 1
        return self.line

    def stop(self, start: int) -> int:
        """The end of the line at ``start``: the offset of its newline, or the end."""
        found = self.text.find("\n", start, self.end)
        return self.end if found < 0 else found

    def search(self, regex: CompiledRegex, number: int) -> int | None:
        """The first line from ``number`` on where ``regex`` matches; the cursor moves there."""
        offset = self.start(number)
        if offset is None:
            return None
        match = regex.buffer_pattern.search(self.text, offset, self.end)
        return None if match is None else self.locate(match.start())


def _regex_lines(regex: CompiledRegex, lines: _Lines) -> list[Span]:
    """Every line where ``regex`` matches, each as its own span."""
    pattern: re.Pattern[str] = regex.buffer_pattern
    text, end = lines.text, lines.end
    literal = regex.required_literal
    plain = bool(literal) and not pattern.flags & re.IGNORECASE
    if plain and pattern.pattern == re.escape(literal):
        # The regex is the literal itself: a pattern that starts with it lets re skip ahead
        # fast, and it takes the rest of the line, so each line is found once.
        rfind = text.rfind
        rest = _rest_of_line(literal)
        return [(rfind("\n", 0, m.start()) + 1, m.end()) for m in rest.finditer(text, 0, end)]
    if plain and pattern.pattern == "^" + re.escape(literal):
        # ``^literal``: the literal after a newline (or at the very start).
        first = [(0, lines.stop(0))] if text.startswith(literal, 0, end) else []
        rest = _rest_of_line("\n" + literal)
        return first + [(m.start() + 1, m.end()) for m in rest.finditer(text, 0, end)]
    spans: list[Span] = []
    position = 0
    while position <= end:
        match = pattern.search(text, position, end)
        if match is None:
            break
        found = match.start()
        start = text.rfind("\n", 0, found) + 1
        stop = text.find("\n", found, end)
        if stop < 0:
            stop = end
        spans.append((start, stop))
        position = stop + 1
    return spans


@lru_cache(maxsize=64)
def _rest_of_line(literal: str) -> re.Pattern[str]:
    return re.compile(re.escape(literal) + "[^\n]*")


def _exists(lines: _Lines, number: int) -> int | None:
    return number if lines.start(number) is not None else None


def _next(address: Address, number: int, lines: _Lines) -> int | None:
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


def _range_end(second: Address, start: int, lines: _Lines) -> int | None:
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


def _select(first: Address | None, second: Address | None, lines: _Lines) -> list[Span]:
    """The lines GNU's cycle selects for one command evaluated once on every line."""
    if first is None:
        return [(0, lines.end)]
    spans: list[Span] = []
    if second is None:
        if first.kind == "regex":
            assert first.regex is not None
            return _regex_lines(first.regex, lines)
        if first.kind == "last":
            return [(lines.last_start, lines.end)]
        if first.kind == "step" and first.step == 1:
            found = _next(first, 1, lines)
            return [] if found is None else [(lines.offset, lines.end)]
        number = 1
        while (found := _next(first, number, lines)) is not None:
            spans.append((lines.offset, lines.stop(lines.offset)))
            number = found + 1
        return spans
    if first == Address("line", 0):
        # 0,/re/: open before line 1, so the end regex is tried on line 1 already.
        assert second.regex is not None
        found = lines.search(second.regex, 1)
        return [(0, lines.end if found is None else lines.stop(lines.offset))]
    number = 1
    while (found := _next(first, number, lines)) is not None:
        start = lines.offset
        end = _range_end(second, found, lines)
        if end is None:
            spans.append((start, lines.end))
            break
        lines.start(end)
        spans.append((start, lines.stop(lines.offset)))
        if first.kind == "line":
            # A range starting at a line number opens once.
            break
        number = end + 1
    return spans


def _complement(spans: list[Span], end: int) -> list[Span]:
    """The lines of ``text[:end]`` outside ``spans``."""
    out: list[Span] = []
    following = 0
    for start, stop in spans:
        if start > following:
            out.append((following, start - 1))
        following = stop + 1
    if following <= end:
        out.append((following, end))
    return out


def _delete(text: str, spans: list[Span]) -> str:
    """The text without the spans' lines (each with its newline)."""
    if not spans:
        return text
    pieces: list[str] = []
    following = 0
    size = len(text)
    for start, stop in spans:
        pieces.append(text[following:start])
        following = min(stop + 1, size)
    pieces.append(text[following:])
    return "".join(pieces)


def _keep(text: str, spans: list[Span]) -> str:
    """Only the spans' lines, each with its newline (or its lack of one)."""
    size = len(text)
    return "".join([text[start : min(stop + 1, size)] for start, stop in spans])


def _substitute(commands: tuple[SubstCommand, ...], text: str, spans: list[Span]) -> str | None:
    if not spans:
        return text
    if any(c.replacement.may_insert_newline for c in commands[:-1]):
        # A later command would see a pattern space of several lines.
        return None
    if len(spans) == 1:
        start, stop = spans[0]
        body = text[start:stop]
        new = body
        for command in commands:
            new = _apply_buffer(command, new)
        return text if new == body else text[:start] + new + text[stop:]
    if commands[-1].replacement.may_insert_newline:
        # The lines could no longer be put back span by span.
        return None
    body = "\n".join([text[start:stop] for start, stop in spans])
    new = body
    for command in commands:
        new = _apply_buffer(command, new)
    if new == body:
        return text
    new_lines = new.split("\n")
    if len(new_lines) == len(spans):
        # Every span is one line (each holds at least one): interleave with the gaps.
        previous = [0, *[stop for _, stop in spans]]
        gaps = [text[previous[i] : start] for i, (start, _) in enumerate(spans)]
        woven = chain.from_iterable(zip(gaps, new_lines, strict=True))
        return "".join(woven) + text[previous[-1] :]
    pieces: list[str] = []
    following = 0
    index = 0
    for start, stop in spans:
        count = text.count("\n", start, stop) + 1
        pieces.append(text[following:start])
        pieces.append("\n".join(new_lines[index : index + count]))
        index += count
        following = stop
    pieces.append(text[following:])
    return "".join(pieces)

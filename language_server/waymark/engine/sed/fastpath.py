"""Whole-buffer runs of the commonest programs, instead of GNU's cycle per line.

A program here is a sequence of steps, each one command: ``ADDR d`` / ``ADDR!d``,
``ADDR s/…/…/FLAGS`` or ``ADDR{s…;s…}`` (no ``p`` flag, inner ``s`` commands unaddressed),
``ADDR y/…/…/``, and last only ``ADDR i``/``a``/``c TEXT`` on one line per selection; or the
single ``-n ADDR p`` / ``-n ADDR!p``. ADDR is a line, ``$``, ``first~step``, a regex (``I``,
``M`` allowed) or a range of those (``A,+N``, ``A,~N``, ``0,/re/`` included). Running the steps
one after the other over the whole text is GNU's cycle when every line reaches each command as
the one before left it (``_runs_in_order``). With one command that is evaluated once per line
and never reads ahead (no ``n``/``N``), GNU's range state machine (``execute.py``
``_Machine.matches``) selects a set of whole lines that can be found from the ends of the
ranges alone: line-number ends by arithmetic, regex ends by searching the buffer from the next
line. The selection is a list of spans of the text; deleting, keeping, substituting (with
``simulate.py``'s whole-buffer ``s``), translating or writing text around them gives GNU's
output, including its missing-final-newline bookkeeping: a kept line keeps its own
terminator, or its lack of one. A regex that is a plain literal is found by a pattern opening
with it (re then skips ahead fast), a lone ``/^literal/`` address cuts the file with one
``re.split``, lines a regex selects are deleted by one ``re.split`` on "the regex, then the
rest of its line", and a line range is substituted a piece of lines at a time
(``pieces.PIECE_SIZE``: smaller copies, reused memory).

An ASCII file is processed as the bytes it is (``run_fast`` takes ``str`` or ``bytes``):
on ASCII text the ASCII-cut patterns match the same way in either form, and skipping the
decode and encode spares two copies of the file, each of which costs page faults.

Anything outside these shapes is not a FastProgram; anything the fast path cannot decide as
precisely as the cycle (a locale check over lines the cycle would not have examined, an ``s``
inserting newlines into several spans) answers None, and the caller runs the cycle instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import chain, repeat
from operator import itemgetter
from typing import AnyStr, Generic

from waymark.engine.sed import pieces as file_pieces
from waymark.engine.sed.decline import SedDecline
from waymark.engine.sed.regex import CompiledRegex
from waymark.engine.sed.script import Address, Command, SedScript, SubstCommand
from waymark.engine.sed.simulate import apply_commands_to_buffer, check_locale

# Selected lines as two parallel lists of offsets, in order: each span starts at a line start
# and stops at the newline of its last line (or at the end of the last line).
Spans = tuple[list[int], list[int]]
# Hot loops run through map() over C functions: no Python frame per selected line.
_PLUS_ONE = (1).__add__
# A piece's text up to and including its last newline, from its rpartition().
_HEAD = itemgetter(0, 1)


# Actions that write a text of their own; a later command would see it as lines of input.
_TEXT_ACTIONS = ("insert", "append", "change")
_TEXT_COMMANDS = {"i": "insert", "a": "append", "c": "change"}
# Actions a lone /^literal/ address runs by one re.split of the text.
_SPLIT_ACTIONS = ("delete", "print", "subst")


@dataclass(frozen=True)
class FastStep:
    """One command, or one ``ADDR{s…;s…}`` block, of a FastProgram.

    ``action``: "delete" (``d``), "print" (``-n … p``), "subst" (``s`` or a block of them),
    "translate" (``y``, ``table``), or "insert", "append", "change" (``i``, ``a``, ``c``,
    ``text``).
    """

    action: str
    addr1: Address | None
    addr2: Address | None
    negate: bool
    commands: tuple[SubstCommand, ...] = ()
    text: str = ""
    table: dict[int, str] | None = None

    @property
    def regex_only(self) -> bool:
        """No address, or one regex: which lines it selects does not depend on their numbers."""
        first = self.addr1
        return self.addr2 is None and (first is None or first.kind == "regex")

    @property
    def splits_lines(self) -> bool:
        """Whether a line it changes may come out as several (a later command would see a
        pattern space of several lines)."""
        if self.action == "translate":
            assert self.table is not None
            return any("\n" in value for value in self.table.values())
        return self.action == "subst" and any(
            c.replacement.may_insert_newline for c in self.commands
        )


@dataclass(frozen=True)
class FastProgram:
    """A program of FastSteps, run one after the other over the whole text."""

    steps: tuple[FastStep, ...]

    @property
    def line_local(self) -> bool:
        """No step depends on line numbers: a line's output depends on that line alone (the
        file can be run in pieces)."""
        return all(step.regex_only for step in self.steps)

    @cached_property
    def runs_on_bytes(self) -> bool:
        """Whether an ASCII file may be run as bytes: the address patterns are ASCII."""
        return all(
            address is None
            or address.regex is None
            or address.regex.ascii_buffer_pattern.pattern.isascii()
            for step in self.steps
            for address in (step.addr1, step.addr2)
        )


def fast_program(script: SedScript) -> FastProgram | None:
    """The script as a FastProgram, or None when it is not one of the whole-buffer shapes."""
    program = script.program
    if script.commands is not None or not program:
        return None
    if script.quiet:
        head = program[0]
        if len(program) == 1 and head.name == "p":
            return FastProgram((FastStep("print", head.addr1, head.addr2, head.negate),))
        return None
    steps: list[FastStep] = []
    index = 0
    while index < len(program):
        command = program[index]
        step = _block(program, index) if command.name == "{" else _step(command)
        if step is None:
            return None
        steps.append(step)
        index = command.target if command.name == "{" else index + 1
    return FastProgram(tuple(steps)) if _runs_in_order(steps) else None


def _step(command: Command) -> FastStep | None:
    name, first, second, negate = command.name, command.addr1, command.addr2, command.negate
    if name == "d":
        return FastStep("delete", first, second, negate)
    if name == "s":
        subst = command.subst
        if subst is None or subst.print:
            return None
        return FastStep("subst", first, second, negate, (subst,))
    if name == "y":
        assert command.table is not None
        # A pattern space of one line never holds a newline to translate.
        table = {key: value for key, value in command.table.items() if key != 10}
        return FastStep("translate", first, second, negate, table=table)
    if name in _TEXT_COMMANDS:
        # One line per selection: a line, $, a regex or a step that is not every line.
        if second is not None or negate or first is None:
            return None
        if first.kind == "step" and first.step == 1:
            return None
        return FastStep(_TEXT_COMMANDS[name], first, None, False, text=command.text)
    return None


def _block(program: tuple[Command, ...], index: int) -> FastStep | None:
    """``ADDR{s…;s…}``: unaddressed ``s`` commands (no ``p`` flag) and nothing else."""
    head = program[index]
    closer = program[head.target - 1]
    if closer.name != "}" or closer.addr1 is not None:
        return None
    commands: list[SubstCommand] = []
    for command in program[index + 1 : head.target - 1]:
        if command.name != "s" or command.addr1 is not None or command.negate:
            return None
        if command.subst is None or command.subst.print:
            return None
        commands.append(command.subst)
    if not commands:
        return None
    return FastStep("subst", head.addr1, head.addr2, head.negate, tuple(commands))


def _runs_in_order(steps: list[FastStep]) -> bool:
    """Whether running the steps one after the other over the whole text is GNU's cycle.

    It is when every line reaches each step as it left the step before: no step but the last
    may split a line or write a text of its own, and after a step that deletes lines, the
    input's line numbers (and its last line) are no longer the text's, so later steps may
    only select by regex.
    """
    deleted = False
    for number, step in enumerate(steps, 1):
        last = number == len(steps)
        if not last and (step.action in _TEXT_ACTIONS or step.splits_lines):
            return False
        if deleted and not step.regex_only:
            return False
        deleted = deleted or step.action == "delete"
    return True


def run_fast(program: FastProgram, text: AnyStr) -> AnyStr | None:
    """GNU's output for one file's text, or None when the cycle must decide instead.

    ``text`` is bytes only for an ASCII file and a program that ``runs_on_bytes``.
    """
    result: AnyStr | None = text
    for number, step in enumerate(program.steps):
        if not result:
            return result
        if isinstance(result, bytes) and not result.isascii():
            # An earlier step wrote non-ASCII text: the rest runs on it decoded.
            rest = FastProgram(program.steps[number:])
            decoded = run_fast(rest, result.decode("utf-8"))
            return None if decoded is None else decoded.encode("utf-8")
        result = _run_step(step, result)
    return result


def _run_step(step: FastStep, text: AnyStr) -> AnyStr | None:
    newline = _like(text, "\n")
    end = len(text) - 1 if text.endswith(newline) else len(text)
    try:
        for address in (step.addr1, step.addr2):
            if isinstance(text, str) and address is not None and address.regex is not None:
                # The cycle checks the lines it tries the regex on; this checks them all, and
                # a refusal hands the file to the cycle, which may still decide it.
                check_locale(address.regex, text)
        at_line_start = _line_start_literal(step)
        if at_line_start is not None and step.action in _SPLIT_ACTIONS:
            return _run_line_start_literal(step, text, _like(text, at_line_start))
        # d, -n !p or c (never negated here): the selected lines go, or give way to a text.
        cutting = step.action in (("print",) if step.negate else ("delete", "change"))
        if cutting and step.addr2 is None and step.addr1 is not None:
            regex = step.addr1.regex
            if regex is not None and not regex.nullable:
                written = _like(text, step.text)
                kept = _cut_regex_lines(_pattern(regex, text), text, written)
                if kept is not None:
                    return kept
        spans = _select(step.addr1, step.addr2, _Lines(text, end))
        if step.action == "delete":
            return _keep(text, spans) if step.negate else _delete(text, spans)
        if step.action == "print":
            return _delete(text, spans) if step.negate else _keep(text, spans)
        if step.action in _TEXT_ACTIONS:
            return _write_text(step.action, _like(text, step.text), text, spans)
        if step.negate:
            spans = _complement(spans, end)
        if step.action == "translate":
            assert step.table is not None
            return _translate(step.table, text, spans)
        return _substitute(step.commands, text, spans)
    except SedDecline:
        return None


def _write_text(action: str, written: AnyStr, text: AnyStr, spans: Spans) -> AnyStr:
    """``i``, ``a`` or ``c`` on lines that are one span each: the text goes before the line,
    after it (a line without its newline gets one first, as GNU writes it), or instead of it
    and its newline."""
    starts, stops = spans
    if not starts:
        return text
    after = list(map(_PLUS_ONE, stops))
    tail = text[:0]
    if action == "insert":
        cuts_from, cuts_to = chain((0,), starts), chain(starts, (len(text),))
    elif action == "change":
        cuts_from, cuts_to = chain((0,), after), chain(starts, (len(text),))
    else:
        if after[-1] > len(text):
            after.pop()
            tail = _like(text, "\n") + written
        cuts_from, cuts_to = chain((0,), after), chain(after, (len(text),))
    return written.join(_pieces(text, cuts_from, cuts_to)) + tail


def _translate(table: dict[int, str], text: AnyStr, spans: Spans) -> AnyStr:
    """``y`` on the spans' lines."""
    starts, stops = spans
    if not starts:
        return text
    gaps = _pieces(text, chain((0,), stops), starts)
    changed = map(_translate_piece, repeat(table), _pieces(text, starts, stops))
    woven = chain.from_iterable(zip(gaps, changed, strict=True))
    return text[:0].join(chain(woven, (text[stops[-1] :],)))


def _translate_piece(table: dict[int, str], piece: AnyStr) -> AnyStr:
    if isinstance(piece, str):
        return piece.translate(table)
    return piece.decode("ascii").translate(table).encode("utf-8")


def _like(text: AnyStr, value: str) -> AnyStr:
    """``value`` as the same type as ``text`` (bytes: UTF-8)."""
    return value if isinstance(text, str) else value.encode("utf-8")


def _pattern(regex: CompiledRegex, text: AnyStr) -> re.Pattern[AnyStr]:
    if isinstance(text, str):
        return regex.buffer_for(text)
    return _bytes_pattern(regex.ascii_buffer_pattern)


@lru_cache(maxsize=64)
def _bytes_pattern(pattern: re.Pattern[str]) -> re.Pattern[bytes]:
    """The ASCII-cut pattern for bytes: on ASCII text the two match alike."""
    return re.compile(pattern.pattern.encode("ascii"), pattern.flags & ~re.UNICODE)


def _apply(commands: tuple[SubstCommand, ...], body: AnyStr) -> AnyStr:
    """The ``s`` commands over whole lines of either type (bytes ones are ASCII)."""
    if isinstance(body, str):
        return apply_commands_to_buffer(commands, body)
    return apply_commands_to_buffer(commands, body.decode("ascii")).encode("utf-8")


def _line_start_literal(step: FastStep) -> str | None:
    """The literal of a lone ``/^literal/`` address (no ``I``), else None."""
    first = step.addr1
    if step.action == "subst" and step.negate:
        return None
    if step.addr2 is not None or first is None or first.regex is None:
        return None
    # Its shape only: a regex with glibc's tables is never a bare literal.
    pattern = first.regex.ascii_buffer_pattern
    literal = first.regex.required_literal
    if not literal or pattern.flags & re.IGNORECASE:
        return None
    return literal if pattern.pattern == "^" + re.escape(literal) else None


@lru_cache(maxsize=64)
def _line_splitter(literal: AnyStr) -> re.Pattern[AnyStr]:
    return re.compile(_like(literal, "\n(") + re.escape(literal) + _like(literal, "[^\n]*)"))


def _run_line_start_literal(step: FastStep, text: AnyStr, literal: AnyStr) -> AnyStr | None:
    """``/^literal/``: one re.split of the text finds every selected line and the text
    between them, in C (a pattern opening with a literal scans fast)."""
    empty = text[:0]
    newline = _like(text, "\n")
    parts = _line_splitter(literal).split(text)
    gaps, lines = parts[0::2], parts[1::2]
    # text == gaps[0] + "\n" + lines[0] + gaps[1] + … + "\n" + lines[-1] + gaps[-1], except
    # that a selected line 1 has no newline before it: it is cut from the front of gaps[0],
    # and ``first`` says the first newline of that equation is not in the text.
    first = text.startswith(literal)
    if first:
        cut = gaps[0].find(newline)
        cut = len(gaps[0]) if cut < 0 else cut
        lines.insert(0, gaps[0][:cut])
        gaps[0:1] = [empty, gaps[0][cut:]]
    # The last selected line ends the file without a newline exactly when gaps[-1] is empty
    # (a literal never matches in the empty "line" after a final newline).
    terminated = bool(gaps[-1])
    keep = (step.action == "delete") == step.negate
    if step.action != "subst" and keep:
        return newline.join(lines) + newline if lines and terminated else newline.join(lines)
    if not lines:
        return text
    if step.action != "subst":
        # Each selected line goes with the newline before it; without one before line 1,
        # the text's first remaining newline goes instead. The same text, except that a kept
        # line (an empty one too) before an unterminated last line that goes keeps its
        # newline.
        if first:
            _drop_first_character(gaps)
        kept = empty.join(gaps)
        if terminated or len(lines) == text.count(newline) + 1:
            return kept
        return kept + newline
    commands = step.commands
    if any(c.replacement.may_insert_newline for c in commands[:-1]):
        return None
    body = newline.join(lines)
    new = _apply(commands, body)
    if new == body:
        return text
    new_lines = new.split(newline) if len(lines) > 1 else [new]
    if len(new_lines) != len(lines):
        # The last command inserted newlines: the lines cannot be put back one by one.
        return None
    pieces = list(chain.from_iterable(zip(gaps, repeat(newline), new_lines, strict=False)))
    pieces.append(gaps[-1])
    if first:
        pieces[1] = empty
    return empty.join(pieces)


def _drop_first_character(pieces: list[AnyStr]) -> None:
    """Remove the first character of ``"".join(pieces)`` without copying it all."""
    for index, piece in enumerate(pieces):
        if piece:
            pieces[index] = piece[1:]
            return


@lru_cache(maxsize=64)
def _through_line_end(pattern: re.Pattern[AnyStr]) -> re.Pattern[AnyStr]:
    """The pattern, then the rest of its line and the line's newline."""
    source = pattern.pattern
    wrapped = _like(source, "(?:") + source + _like(source, ")[^\n]*\n?")
    return re.compile(wrapped, pattern.flags)


def _cut_regex_lines(pattern: re.Pattern[AnyStr], text: AnyStr, written: AnyStr) -> AnyStr | None:
    """The text with each line where ``pattern`` (never empty, never across a newline)
    matches, newline included, replaced by ``written`` (empty: deleted); None when the
    pattern has groups, which re.split would return."""
    if pattern.groups:
        return None
    # Each split finds a line's first match and takes the line from there through its
    # newline, so every piece but the last ends with the start of a cut line; what a piece
    # keeps runs through its last newline (rpartition: one C call, no Python frame).
    pieces = _through_line_end(pattern).split(text)
    last = pieces.pop()
    empty = text[:0]
    heads = map(_HEAD, map(type(text).rpartition, pieces, repeat(_like(text, "\n"))))
    if not written:
        return empty.join(chain(chain.from_iterable(heads), (last,)))
    return written.join(chain(map(empty.join, heads), (last,)))


class _Lines(Generic[AnyStr]):
    """Line numbers and offsets in ``text[:end]`` (the text without its final newline),
    through a cursor that only moves forward."""

    def __init__(self, text: AnyStr, end: int) -> None:
        self.text: AnyStr = text
        self.end = end
        self.newline: AnyStr = _like(text, "\n")
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
        match = _pattern(regex, self.text).search(self.text, offset, self.end)
        return None if match is None else self.locate(match.start())


def _regex_lines(regex: CompiledRegex, lines: _Lines[AnyStr]) -> Spans:
    """Every line where ``regex`` matches, each as its own span."""
    text, end, newline = lines.text, lines.end, lines.newline
    pattern = _pattern(regex, text)
    required = regex.required_literal
    # Bytes are ASCII text: a literal that is not never matches, and the general loop says so.
    literal = _like(text, required) if isinstance(text, str) or required.isascii() else None
    plain = bool(literal) and not pattern.flags & re.IGNORECASE
    if literal is not None and plain and pattern.pattern == re.escape(literal):
        # The regex is the literal itself: a pattern that starts with it lets re skip ahead
        # fast, and it takes the rest of the line, so each line is found once.
        found = list(_rest_of_line(literal).finditer(text, 0, end))
        newlines = map(text.rfind, repeat(newline), repeat(0), map(re.Match.start, found))
        return list(map(_PLUS_ONE, newlines)), list(map(re.Match.end, found))
    if literal is not None and plain and pattern.pattern == _like(text, "^") + re.escape(literal):
        # ``^literal``: the literal after a newline (or at the very start).
        found = list(_rest_of_line(newline + literal).finditer(text, 0, end))
        starts = list(map(_PLUS_ONE, map(re.Match.start, found)))
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
    return re.compile(re.escape(literal) + _like(literal, "[^\n]*"))


def _exists(lines: _Lines[AnyStr], number: int) -> int | None:
    return number if lines.start(number) is not None else None


def _next(address: Address, number: int, lines: _Lines[AnyStr]) -> int | None:
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


def _range_end(second: Address, start: int, lines: _Lines[AnyStr]) -> int | None:
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


def _select(first: Address | None, second: Address | None, lines: _Lines[AnyStr]) -> Spans:
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


def _complement(spans: Spans, end: int) -> Spans:
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


def _pieces(text: AnyStr, starts: Iterable[int], stops: Iterable[int]) -> Iterator[AnyStr]:
    return map(text.__getitem__, map(slice, starts, stops))


def _delete(text: AnyStr, spans: Spans) -> AnyStr:
    """The text without the spans' lines (each with its newline; slices clamp at the end)."""
    starts, stops = spans
    if not starts:
        return text
    following = chain((0,), map(_PLUS_ONE, stops))
    return text[:0].join(_pieces(text, following, chain(starts, (len(text),))))


def _keep(text: AnyStr, spans: Spans) -> AnyStr:
    """Only the spans' lines, each with its newline (or its lack of one)."""
    starts, stops = spans
    return text[:0].join(_pieces(text, starts, map(_PLUS_ONE, stops)))


def _substitute(commands: tuple[SubstCommand, ...], text: AnyStr, spans: Spans) -> AnyStr | None:
    starts, stops = spans
    if not starts:
        return text
    if any(c.replacement.may_insert_newline for c in commands[:-1]):
        # A later command would see a pattern space of several lines.
        return None
    if len(starts) == 1:
        return _substitute_range(commands, text, starts[0], stops[0])
    if commands[-1].replacement.may_insert_newline:
        # The lines could no longer be put back span by span.
        return None
    empty, newline = text[:0], _like(text, "\n")
    body = newline.join(_pieces(text, starts, stops))
    new = _apply(commands, body)
    if new == body:
        return text
    new_lines = new.split(newline)
    gaps = _pieces(text, chain((0,), stops), starts)
    if len(new_lines) == len(starts):
        # Every span is one line (each holds at least one): weave them with the gaps.
        woven = chain.from_iterable(zip(gaps, new_lines, strict=True))
        return empty.join(chain(woven, (text[stops[-1] :],)))
    pieces: list[AnyStr] = []
    index = 0
    for gap, start, stop in zip(gaps, starts, stops, strict=True):
        count = text.count(newline, start, stop) + 1
        pieces.append(gap)
        pieces.append(newline.join(new_lines[index : index + count]))
        index += count
    pieces.append(text[stops[-1] :])
    return empty.join(pieces)


def _substitute_range(
    commands: tuple[SubstCommand, ...], text: AnyStr, start: int, stop: int
) -> AnyStr:
    """The commands run on one span of lines (the last one may insert newlines), a piece of
    lines at a time, so the regex engine's copies stay small and reuse the same memory."""
    newline = _like(text, "\n")
    size = file_pieces.PIECE_SIZE
    pieces = [text[:start]]
    changed = False
    while start <= stop:
        cut = text.find(newline, start + size, stop) if stop - start > size else -1
        end = stop if cut < 0 else cut
        body = text[start:end]
        new = _apply(commands, body)
        changed = changed or new != body
        pieces.append(new)
        pieces.append(text[end : end + 1] if cut >= 0 else text[stop:])
        start = end + 1
    return text[:0].join(pieces) if changed else text

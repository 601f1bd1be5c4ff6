"""Whole-buffer runs of the commonest programs, instead of GNU's cycle per line.

``fastprogram.py`` says which programs these are and ``fastlines.py`` finds the lines each
step selects, as a list of spans of the text; deleting, keeping, substituting (with
``simulate.py``'s whole-buffer ``s``), translating or writing text around them gives GNU's
output, including its missing-final-newline bookkeeping: a kept line keeps its own
terminator, or its lack of one. A lone ``/^literal/`` address cuts the file with one
``re.split``, lines a regex selects are deleted by one ``re.split`` on "the regex, then the
rest of its line", and a line range is substituted a piece of lines at a time
(``pieces.PIECE_SIZE``: smaller copies, reused memory).

An ASCII file is processed as the bytes it is (``run_fast`` takes ``str`` or ``bytes``):
on ASCII text the ASCII-cut patterns match the same way in either form, and skipping the
decode and encode spares two copies of the file, each of which costs page faults.

Anything the fast path cannot decide as precisely as the cycle (a locale check over lines the
cycle would not have examined, an ``s`` inserting newlines into several spans) answers None,
and the caller runs the cycle instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from itertools import chain, repeat
from operator import itemgetter
from typing import AnyStr

from waymark.engine.sed import pieces as file_pieces
from waymark.engine.sed.decline import SedDecline
from waymark.engine.sed.fastfixed import replace_in_lines
from waymark.engine.sed.fastlines import (
    PLUS_ONE,
    Lines,
    Spans,
    complement,
    like,
    pattern_for,
    select_lines,
)
from waymark.engine.sed.fastprogram import TEXT_ACTIONS, FastProgram, FastStep
from waymark.engine.sed.fasttext import cut_at_literal, write_at_literal
from waymark.engine.sed.script import SubstCommand
from waymark.engine.sed.simulate import (
    apply_commands_to_ascii,
    apply_commands_to_buffer,
    check_locale,
)

# A piece's text up to and including its last newline, from its rpartition().
_HEAD = itemgetter(0, 1)
# Every byte but the newline: what bytes.rstrip takes off the end of a line's start.
_NOT_NEWLINE = bytes(byte for byte in range(256) if byte != 10)
# Actions a lone /^literal/ address runs by one re.split of the text.
_SPLIT_ACTIONS = ("delete", "print", "subst")


def run_fast(program: FastProgram, text: AnyStr) -> AnyStr | None:
    """GNU's output for one file's text, or None when the cycle must decide instead.

    ``text`` is bytes only for an ASCII file and a program that ``runs_on_bytes``.
    """
    result: AnyStr | None = text
    for number, step in enumerate(program.steps):
        if not result:
            return result
        if number and isinstance(result, bytes) and not result.isascii():
            # An earlier step wrote non-ASCII text: the rest runs on it decoded.
            rest = FastProgram(program.steps[number:])
            decoded = run_fast(rest, result.decode("utf-8"))
            return None if decoded is None else decoded.encode("utf-8")
        result = _run_step(step, result)
    return result


def _run_step(step: FastStep, text: AnyStr) -> AnyStr | None:
    newline = like(text, "\n")
    end = len(text) - 1 if text.endswith(newline) else len(text)
    try:
        for address in (step.addr1, step.addr2):
            if isinstance(text, str) and address is not None and address.regex is not None:
                # The cycle checks the lines it tries the regex on; this checks them all, and
                # a refusal hands the file to the cycle, which may still decide it.
                check_locale(address.regex, text)
        if step.action in ("append", "insert"):
            around = write_at_literal(step, text)
            if around is not None:
                return around
        cut = cut_at_literal(step, text)
        if cut is not None:
            return cut
        at_line_start = _line_start_literal(step)
        if at_line_start is not None and step.action in _SPLIT_ACTIONS:
            return _run_line_start_literal(step, text, like(text, at_line_start))
        # d, -n !p or c (never negated here): the selected lines go, or give way to a text.
        cutting = step.action in (("print",) if step.negate else ("delete", "change"))
        if cutting and step.addr2 is None and step.addr1 is not None:
            regex = step.addr1.regex
            if regex is not None and not regex.nullable:
                written = like(text, step.text)
                kept = _cut_regex_lines(pattern_for(regex, text), text, written)
                if kept is not None:
                    return kept
        spans = select_lines(step.addr1, step.addr2, Lines(text, end))
        if step.action == "delete":
            return _keep(text, spans) if step.negate else _delete(text, spans)
        if step.action == "print":
            return _delete(text, spans) if step.negate else _keep(text, spans)
        if step.action in TEXT_ACTIONS:
            return _write_text(step.action, like(text, step.text), text, spans)
        if step.negate:
            spans = complement(spans, end)
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
    after = list(map(PLUS_ONE, stops))
    tail = text[:0]
    if action == "insert":
        cuts_from, cuts_to = chain((0,), starts), chain(starts, (len(text),))
    elif action == "change":
        cuts_from, cuts_to = chain((0,), after), chain(starts, (len(text),))
    else:
        if after[-1] > len(text):
            after.pop()
            tail = like(text, "\n") + written
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


def _apply(commands: tuple[SubstCommand, ...], body: AnyStr) -> AnyStr:
    """The ``s`` commands over whole lines of either type (bytes ones are ASCII)."""
    if isinstance(body, str):
        return apply_commands_to_buffer(commands, body)
    return apply_commands_to_ascii(commands, body)


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
    return re.compile(like(literal, "\n(") + re.escape(literal) + like(literal, "[^\n]*)"))


def _run_line_start_literal(step: FastStep, text: AnyStr, literal: AnyStr) -> AnyStr | None:
    """``/^literal/``: one re.split of the text finds every selected line and the text
    between them, in C (a pattern opening with a literal scans fast)."""
    if step.action == "subst":
        replaced = replace_in_lines(step.commands, text, literal)
        if replaced is not None:
            return replaced
    empty = text[:0]
    newline = like(text, "\n")
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
    wrapped = like(source, "(?:") + source + like(source, ")[^\n]*\n?")
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
    if isinstance(text, bytes):
        # Stripping every byte but the newline from the end keeps the same head, as one
        # object per piece (rpartition makes a tuple and two): 4.2 → 1.8 ms on 8 MB.
        kept = map(bytes.rstrip, pieces, repeat(_NOT_NEWLINE))
        return written.join(chain(kept, (last,)))
    heads = map(_HEAD, map(type(text).rpartition, pieces, repeat(like(text, "\n"))))
    if not written:
        return empty.join(chain(chain.from_iterable(heads), (last,)))
    return written.join(chain(map(empty.join, heads), (last,)))


def _pieces(text: AnyStr, starts: Iterable[int], stops: Iterable[int]) -> Iterator[AnyStr]:
    return map(text.__getitem__, map(slice, starts, stops))


def _delete(text: AnyStr, spans: Spans) -> AnyStr:
    """The text without the spans' lines (each with its newline; slices clamp at the end)."""
    starts, stops = spans
    if not starts:
        return text
    following = chain((0,), map(PLUS_ONE, stops))
    return text[:0].join(_pieces(text, following, chain(starts, (len(text),))))


def _keep(text: AnyStr, spans: Spans) -> AnyStr:
    """Only the spans' lines, each with its newline (or its lack of one)."""
    starts, stops = spans
    return text[:0].join(_pieces(text, starts, map(PLUS_ONE, stops)))


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
    empty, newline = text[:0], like(text, "\n")
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
    newline = like(text, "\n")
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

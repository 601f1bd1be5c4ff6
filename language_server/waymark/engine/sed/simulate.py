"""Apply a compiled script to file bytes exactly as ``sed -i`` would under C.UTF-8.

GNU sed works line by line: the pattern space is a line without its ``\\n`` (a ``\\r`` stays
part of it), and a missing final newline stays missing. When no command can put a newline
into the pattern space before a later command runs, the commands are applied to the whole
buffer at once with multi-line anchors and patterns that never match ``\\n``: that is the
same result, computed in C by ``re.sub`` instead of a Python loop per line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache, partial

from waymark.engine import core
from waymark.engine.sed.asciibytes import around_every_line, runs_on_ascii, subst_ascii
from waymark.engine.sed.ctype import has_unassigned
from waymark.engine.sed.decline import SedDecline
from waymark.engine.sed.pieces import by_pieces
from waymark.engine.sed.regex import CompiledRegex
from waymark.engine.sed.replacement import Replacement
from waymark.engine.sed.script import SubstCommand

_Repl = str | Callable[[re.Match[str]], str]


def _locale_decline(regex: CompiledRegex) -> SedDecline:
    return SedDecline(
        f"regex {regex.source!r} has the I flag and a line it could match has non-ASCII "
        "characters, whose case folding is not simulated"
    )


def check_locale(regex: CompiledRegex, text: str) -> None:
    """Refuse text whose matching the simulation cannot vouch for (``text``: whole lines).

    A class or word boundary is exact except on code points unassigned in the tables'
    Unicode version. Under the I flag, a line without the regex's required literal cannot
    match; the literal is looked for with every case glibc may fold into it.
    """
    if text.isascii():
        return
    if regex.uses_tables and has_unassigned(text):
        raise SedDecline(
            f"regex {regex.source!r} uses a character class or word boundary and the text has "
            "a code point unassigned in Unicode 14, which a newer glibc may classify"
        )
    if not regex.locale_dependent:
        return
    finder = regex.literal_finder
    if finder is None:
        raise _locale_decline(regex)
    for found in finder.finditer(text):
        start = text.rfind("\n", 0, found.start()) + 1
        end = text.find("\n", found.start())
        end = len(text) if end < 0 else end
        if not text[start:end].isascii():
            raise _locale_decline(regex)


def check_space(regex: CompiledRegex, space: str) -> None:
    """Refuse a pattern space (of one or several lines) on which the regex's match is not
    vouched for."""
    if regex.multiline and "\n" in space:
        raise SedDecline(
            f"regex {regex.source!r} has the M flag and the pattern space holds a newline, "
            "around which M changes ^, $, . and [^…]; that is not simulated"
        )
    if space.isascii():
        return
    # Under I a match may span the lines of a multi-line pattern space: any place its literal
    # (or, without one, any place at all) may hold a non-ASCII letter folded by glibc.
    spans_lines = regex.locale_dependent and "\n" in space
    if spans_lines and (regex.literal_finder is None or regex.literal_finder.search(space)):
        raise _locale_decline(regex)
    check_locale(regex, space)


def _repl(replacement: Replacement) -> _Repl:
    """What ``Pattern.sub`` needs for a plain pattern."""
    if not replacement.has_case:
        return replacement.template()
    return replacement.expand


@lru_cache(maxsize=64)
def _two_per_line(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """Finds a line with two non-overlapping matches (or a superset of such lines).

    Greedy, not lazy, between the two: the same lines match, and ``re`` runs a greedy class
    repeat in one tight loop instead of retrying the second pattern after every character.
    """
    return re.compile(f"(?:{pattern.pattern})[^\\n]*(?:{pattern.pattern})", pattern.flags)


def _may_match_twice_on_a_line(regex: CompiledRegex, pattern: re.Pattern[str], text: str) -> bool:
    """Whether a line may hold two matches: every match holds the regex's required literal,
    so a line without it twice has not (the compiled core asks a whole ASCII text in one
    pass, 8 MB: 1.4 ms against 3.5 for the regex below); else whether one does."""
    literal = regex.required_literal
    if (
        core.native is not None
        and literal
        and not pattern.flags & re.IGNORECASE
        and literal.isascii()
        and text.isascii()
        and not core.native.twice_on_a_line(text, literal.encode("ascii"))
    ):
        return False
    return _two_per_line(pattern).search(text) is not None


def _first_per_line(replacement: Replacement) -> Callable[[re.Match[str]], str]:
    """A ``sub()`` callback that replaces only the first match of each line.

    Matches never span lines, so the first match ``sub()`` finds on a line is that line's
    leftmost one, the one GNU replaces; later matches on the same line are left as they are.
    """
    line_end = -1

    def replace(match: re.Match[str]) -> str:
        nonlocal line_end
        if match.start() <= line_end:
            return match.group(0)
        line_end = match.string.find("\n", match.end())
        if line_end < 0:
            line_end = len(match.string)
        return replacement.expand(match)

    return replace


def _step_over(text: str, position: int) -> int:
    """GNU steps one *byte* past an empty match; inside a multibyte character we can't follow."""
    if position < len(text) and not text[position].isascii():
        raise SedDecline(
            "an empty regex match next to a non-ASCII character makes GNU sed step into the "
            "middle of the character, which is not simulated"
        )
    return position + 1


def _gnu_subst(pattern: re.Pattern[str], text: str, command: SubstCommand) -> str:
    result = gnu_subst(pattern, text, command)
    return text if result is None else result


def gnu_subst(pattern: re.Pattern[str], text: str, command: SubstCommand) -> str | None:
    """GNU do_subst on one pattern space (None: nothing replaced); an empty match right after
    a match is skipped."""
    replacement = command.replacement
    out: list[str] = []
    copied = 0
    position = 0
    previous_end = -1
    count = 0
    while position <= len(text):
        match = pattern.search(text, position)
        if match is None:
            break
        start, end = match.span()
        if start == end == previous_end:
            position = _step_over(text, start)
            continue
        count += 1
        if count >= command.nth:
            out.append(text[copied:start])
            out.append(replacement.expand(match))
            copied = end
            if not command.glob:
                break
        previous_end = end
        position = end if end > start else _step_over(text, end)
    if not out:
        return None
    out.append(text[copied:])
    return "".join(out)


def _replace_trailing_runs(text: str, chars: str, minimum: int, literal: str) -> str:
    lines = text.split("\n")
    if minimum == 0:
        return "\n".join([line.rstrip(chars) + literal for line in lines])
    out = []
    for line in lines:
        stripped = line.rstrip(chars)
        out.append(stripped + literal if len(line) - len(stripped) >= minimum else line)
    return "\n".join(out)


def apply_commands_to_buffer(commands: tuple[SubstCommand, ...], text: str) -> str:
    """Unaddressed ``s`` commands, one after the other, over whole lines (``text``: lines
    joined by newlines, none of which a command but the last may split)."""
    for command in commands:
        text = _apply_buffer(command, text)
    return text


def _apply_buffer(command: SubstCommand, text: str) -> str:
    regex = command.regex
    check_locale(regex, text)
    pattern = regex.buffer_for(text)
    replacement = command.replacement
    literal = replacement.literal
    if command.nth == 1 and literal is not None:
        # Shapes agents use on every line (indent, append, strip trailing blanks), done
        # with str methods: each has exactly one match per line, g or not.
        if regex.lone_anchor == "bol":
            return literal + text.replace("\n", "\n" + literal)
        if regex.lone_anchor == "eol":
            return text.replace("\n", literal + "\n") + literal
        if regex.trailing_run is not None:
            return _replace_trailing_runs(text, *regex.trailing_run, literal)
    if command.nth == 1 and (
        regex.line_anchored
        or (command.glob and (not regex.nullable or (replacement.is_empty and text.isascii())))
    ):
        # GNU and Python differ only around empty matches (GNU skips one right after a match,
        # and steps one byte, not one character, past an empty match): a regex that cannot
        # match empty has none, and on ASCII text an empty replacement makes them invisible.
        # A regex anchored at the line start matches at most once per line, g or not.
        return pattern.sub(_repl(replacement), text)
    if command.nth == 1 and not command.glob:
        if not regex.nullable and not _may_match_twice_on_a_line(regex, pattern, text):
            # No line has a second match, so replacing all of them is replacing the first.
            return pattern.sub(_repl(replacement), text)
        return pattern.sub(_first_per_line(replacement), text)
    return "\n".join(_gnu_subst(pattern, line, command) for line in text.split("\n"))


def apply_commands_to_ascii(commands: tuple[SubstCommand, ...], text: bytes) -> bytes:
    """``apply_commands_to_buffer`` on ASCII text as its bytes: with ``bytes`` methods when
    every command ``runs_on_ascii``, else on the decoded text."""
    if all(runs_on_ascii(command) for command in commands):
        for command in commands:
            text = subst_ascii(command, text)
        return text
    return apply_commands_to_buffer(commands, text.decode("ascii")).encode("utf-8")


def _apply_lines(commands: tuple[SubstCommand, ...], text: str) -> str:
    lines = text.split("\n")
    for index, line in enumerate(lines):
        for command in commands:
            # A pattern space may hold several lines here, and a match may span them.
            check_space(command.regex, line)
            line = _gnu_subst(command.regex.space_for(line), line, command)
        lines[index] = line
    return "\n".join(lines)


def decode(data: bytes | memoryview, offset: int = 0) -> str:
    """The file (or its piece at ``offset``) as text; GNU's matching around invalid UTF-8 is
    declined."""
    try:
        return str(data, "utf-8")
    except UnicodeDecodeError as exc:
        raise SedDecline(
            f"the file is not valid UTF-8 (byte {offset + exc.start}); GNU sed's matching around "
            "invalid bytes is not simulated"
        ) from None


def apply_buffer_script(commands: tuple[SubstCommand, ...], data: bytes) -> bytes:
    """The bytes GNU ``sed -i`` leaves after unaddressed ``s`` commands, or SedDecline."""
    around = around_every_line(commands, data)
    if around is not None:
        return around
    # Each line's output depends on that line alone.
    new = by_pieces(partial(_apply_to_piece, commands), data)
    assert new is not None
    return new


def _apply_to_piece(commands: tuple[SubstCommand, ...], data: bytes, offset: int) -> bytes:
    if not data:
        return data
    # A later command would see a multi-line pattern space: go line by line.
    line_mode = any(c.replacement.may_insert_newline for c in commands[:-1])
    # The text after a final newline is not a line, but ^, $ and empty matches would find it:
    # leave the final newline out whenever one of those could.
    trim = data.endswith(b"\n") and (
        line_mode or any(c.regex.nullable or c.regex.has_line_anchor for c in commands)
    )
    if not line_mode and data.isascii() and all(runs_on_ascii(c) for c in commands):
        ascii_body = data[:-1] if trim else data
        new_ascii = apply_commands_to_ascii(commands, ascii_body)
        if new_ascii == ascii_body:
            return data
        return new_ascii + b"\n" if trim else new_ascii
    view = memoryview(data)
    body = decode(view[:-1] if trim else view, offset)
    if line_mode:
        new_body = _apply_lines(commands, body)
    else:
        new_body = apply_commands_to_buffer(commands, body)
    if new_body == body:
        return data
    encoded = new_body.encode("utf-8")
    return encoded + b"\n" if trim else encoded

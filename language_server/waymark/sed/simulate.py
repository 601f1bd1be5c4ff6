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
from functools import lru_cache

from .decline import SedDecline
from .regex import CompiledRegex
from .replacement import Replacement
from .script import SedScript, SubstCommand

_Repl = str | Callable[[re.Match[str]], str]


def _check_locale(regex: CompiledRegex, text: str) -> None:
    """Refuse non-ASCII text a locale-dependent regex might examine."""
    if not regex.locale_dependent or text.isascii():
        return
    literal = regex.required_literal
    if not literal:
        raise SedDecline(
            f"regex {regex.source!r} uses a locale class or word boundary and the text has "
            "non-ASCII characters, whose classification is not simulated"
        )
    found = text.find(literal)
    while found >= 0:
        start = text.rfind("\n", 0, found) + 1
        end = text.find("\n", found)
        end = len(text) if end < 0 else end
        if not text[start:end].isascii():
            raise SedDecline(
                f"regex {regex.source!r} uses a locale class or word boundary and a line it "
                "could match has non-ASCII characters, whose classification is not simulated"
            )
        found = text.find(literal, max(end, found + 1))


def _repl(replacement: Replacement) -> _Repl:
    """What ``Pattern.sub`` needs for a plain pattern."""
    if not replacement.has_case:
        return replacement.template()
    return replacement.expand


def _line_repl(replacement: Replacement, groups: int) -> _Repl:
    """The same for ``_first_per_line``: group 1 is the line before the match, group 2 the
    match (so GNU group k is group k + 2), the last group the line after it."""
    rest = groups + 3
    if not replacement.has_case:
        return "\\g<1>" + replacement.template(2) + f"\\g<{rest}>"
    return lambda match: match.group(1) + replacement.expand(match, 2) + match.group(rest)


@lru_cache(maxsize=64)
def _first_per_line(pattern: re.Pattern[str]) -> re.Pattern[str]:
    # A lazy prefix from the line start tries start positions in the same order as search(),
    # so it finds each line's leftmost match; the tail swallows the rest of the line, so sub()
    # can't find a second match on it. One C-level sub() then does "first match per line".
    return re.compile(r"^([^\n]*?)(" + pattern.pattern + r")([^\n]*)", pattern.flags)


def _step_over(text: str, position: int) -> int:
    """GNU steps one *byte* past an empty match; inside a multibyte character we can't follow."""
    if position < len(text) and not text[position].isascii():
        raise SedDecline(
            "an empty regex match next to a non-ASCII character makes GNU sed step into the "
            "middle of the character, which is not simulated"
        )
    return position + 1


def _gnu_subst(pattern: re.Pattern[str], text: str, command: SubstCommand) -> str:
    """GNU do_subst on one pattern space: an empty match right after a match is skipped."""
    replacement = command.replacement
    template = None if replacement.has_case else replacement.template()
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
            out.append(match.expand(template) if template is not None else replacement.expand(match))
            copied = end
            if not command.glob:
                break
        previous_end = end
        position = end if end > start else _step_over(text, end)
    if not out:
        return text
    out.append(text[copied:])
    return "".join(out)


def _apply_buffer(command: SubstCommand, text: str) -> str:
    regex = command.regex
    _check_locale(regex, text)
    pattern = regex.buffer_pattern
    replacement = command.replacement
    if command.nth == 1 and command.glob and (
        not regex.nullable or (replacement.is_empty and text.isascii())
    ):
        # GNU and Python differ only around empty matches (GNU skips one right after a match,
        # and steps one byte, not one character, past an empty match): a regex that cannot
        # match empty has none, and on ASCII text an empty replacement makes them invisible.
        return pattern.sub(_repl(replacement), text)
    if command.nth == 1 and not command.glob:
        if pattern.search(text) is None:
            return text
        return _first_per_line(pattern).sub(_line_repl(replacement, regex.groups), text)
    return "\n".join(_gnu_subst(pattern, line, command) for line in text.split("\n"))


def _apply_lines(commands: tuple[SubstCommand, ...], text: str) -> str:
    lines = text.split("\n")
    for index, line in enumerate(lines):
        for command in commands:
            _check_locale(command.regex, line)
            line = _gnu_subst(command.regex.space_pattern, line, command)
        lines[index] = line
    return "\n".join(lines)


def apply_script(script: SedScript, data: bytes) -> bytes:
    """The bytes GNU ``sed -i`` leaves in a file that held ``data``; SedDecline if unprovable."""
    if not data:
        return data
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SedDecline(
            f"the file is not valid UTF-8 (byte {exc.start}); GNU sed's matching around "
            "invalid bytes is not simulated"
        ) from None
    final_newline = text.endswith("\n")
    body = text[:-1] if final_newline else text
    commands = script.commands
    if any(c.replacement.may_insert_newline for c in commands[:-1]):
        # A later command would see a multi-line pattern space: go line by line.
        new_body = _apply_lines(commands, body)
    else:
        new_body = body
        for command in commands:
            new_body = _apply_buffer(command, new_body)
    if new_body == body:
        return data
    return (new_body + "\n" if final_newline else new_body).encode("utf-8")

"""A sed script made only of ``s`` commands, parsed the way GNU sed 4.9's compile.c reads it.

``_match_slash`` and ``_snarf_bracket`` follow GNU's delimiter scan (the delimiter does not
end the regex inside a bracket expression; ``\\`` + delimiter becomes the bare delimiter,
which then keeps its regex meaning); ``_normalize`` follows its escape pass (``\\n \\t
\\r \\f \\v \\a`` become characters everywhere, brackets included).
"""

from __future__ import annotations

from dataclasses import dataclass

from .decline import SedDecline
from .regex import CompiledRegex, compile_regex
from .replacement import Replacement, parse_replacement

_CHAR_ESCAPES = {"a": "\a", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\n": "\n"}
_SPACE = " \t\n\v\f\r"
_UNSUPPORTED_FLAGS = {
    "p": "the p flag prints the pattern space",
    "w": "the w flag writes to another file",
    "e": "the e flag runs the pattern space as a shell command",
    "i": "the i (case-insensitive) flag needs locale case tables",
    "I": "the I (case-insensitive) flag needs locale case tables",
    "m": "the m (multi-line) flag is not simulated",
    "M": "the M (multi-line) flag is not simulated",
}


@dataclass(frozen=True)
class SubstCommand:
    """One ``s/regex/replacement/flags``: replace match ``nth``, and all later ones if ``glob``."""

    regex: CompiledRegex
    replacement: Replacement
    nth: int
    glob: bool


@dataclass(frozen=True)
class SedScript:
    """The compiled script: its ``s`` commands in order."""

    commands: tuple[SubstCommand, ...]
    text: str


def _normalize(text: str) -> str:
    out: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text):
            follower = text[index + 1]
            if follower in _CHAR_ESCAPES:
                out.append(_CHAR_ESCAPES[follower])
                index += 2
                continue
            if follower in "doxc":
                raise SedDecline(f"the numeric/control escape \\{follower} is not simulated")
            out.append("\\" + follower)
            index += 2
            continue
        out.append(char)
        index += 1
    return "".join(out)


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def next(self) -> str:
        """The next character, or "" at the end."""
        if self.pos >= len(self.text):
            self.pos += 1
            return ""
        char = self.text[self.pos]
        self.pos += 1
        return char

    def nonblank(self) -> str:
        char = self.next()
        while char in (" ", "\t"):
            char = self.next()
        return char


def _snarf_bracket(reader: _Reader, out: list[str]) -> str:
    """Copy a bracket expression after its ``[``; return the char that ended it."""
    char = reader.next()
    if char == "^":
        out.append(char)
        char = reader.next()
    if char == "]":
        out.append(char)
        char = reader.next()
    state = 0
    delim = ""
    while True:
        if char in ("", "\n"):
            return char
        if char in ".:=":
            if state == 1:
                delim, state = char, 2
                out.append(char)
                char = reader.next()
                continue
            if state == 2 and char == delim:
                state = 3
                out.append(char)
                char = reader.next()
                continue
        elif char == "[":
            if state == 0:
                state = 1
            out.append(char)
            char = reader.next()
            continue
        elif char == "]":
            if state in (0, 1):
                return char
            if state == 3:
                state = 0
        state &= ~1
        out.append(char)
        char = reader.next()


def _match_slash(reader: _Reader, slash: str, regex: bool) -> str:
    out: list[str] = []
    while True:
        char = reader.next()
        if char in ("", "\n"):
            raise SedDecline("the s command is unterminated: GNU sed rejects it")
        if char == slash:
            return "".join(out)
        if char == "\\":
            char = reader.next()
            if char == "":
                raise SedDecline("the s command is unterminated: GNU sed rejects it")
            if char != "\n" and (char != slash or (not regex and char == "&")):
                out.append("\\")
        elif char == "[" and regex:
            out.append(char)
            char = _snarf_bracket(reader, out)
            if char != "]":
                raise SedDecline("the s command is unterminated: GNU sed rejects it")
        out.append(char)


def _flags(reader: _Reader) -> tuple[int, bool]:
    nth = 0
    glob = False
    while True:
        char = reader.nonblank()
        if char == "g":
            if glob:
                raise SedDecline("the g flag is given twice: GNU sed rejects it")
            glob = True
        elif char.isdigit() and char.isascii():
            if nth:
                raise SedDecline("two numeric flags: GNU sed rejects them")
            digits = char
            while reader.pos < len(reader.text) and reader.text[reader.pos] in "0123456789":
                digits += reader.next()
            nth = int(digits)
            if nth == 0:
                raise SedDecline("the numeric flag 0 is an error in GNU sed")
        elif char in ("", "\n", ";"):
            return nth or 1, glob
        elif char == "\r" and reader.text.startswith("\n", reader.pos):
            reader.next()
            return nth or 1, glob
        elif char in _UNSUPPORTED_FLAGS:
            raise SedDecline(_UNSUPPORTED_FLAGS[char] + ", so it is not simulated")
        elif char in "}#":
            raise SedDecline(f"{char!r} after an s command is not simulated")
        else:
            raise SedDecline(f"unknown s flag {char!r}: GNU sed rejects it")


def _command_decline(char: str) -> SedDecline:
    if char.isdigit() or char in "/\\$":
        return SedDecline("addresses are not simulated (only plain s commands on every line are)")
    if char == "#":
        return SedDecline("comments in the sed script are not simulated")
    if char in "{}!":
        return SedDecline(f"{char!r} blocks and negation are not simulated")
    if char == "y":
        return SedDecline("the y command is not simulated, only s")
    return SedDecline(f"the sed command {char!r} is not simulated, only s")


def parse_script(expressions: list[str], extended: bool) -> SedScript:
    """Compile ``s`` commands separated by ``;`` or newlines; decline anything else.

    Each ``-e`` expression is compiled on its own, as GNU does: a command cannot continue
    into the next expression.
    """
    commands: list[SubstCommand] = []
    for expression in expressions:
        _parse_expression(expression, extended, commands)
    if not commands:
        raise SedDecline("the script has no s command, so there is nothing to simulate")
    return SedScript(tuple(commands), "\n".join(expressions))


def _parse_expression(text: str, extended: bool, commands: list[SubstCommand]) -> None:
    reader = _Reader(text)
    while True:
        char = reader.next()
        while char == ";" or (char and char in _SPACE):
            char = reader.next()
        if char == "":
            break
        if char != "s":
            raise _command_decline(char)
        slash = reader.next()
        if slash in ("", "\n", "\\"):
            raise SedDecline("the s command has no valid delimiter: GNU sed rejects it")
        if not slash.isascii() or slash.isalnum():
            raise SedDecline(
                f"the delimiter {slash!r} is not simulated; use a punctuation character"
            )
        regex_text = _normalize(_match_slash(reader, slash, regex=True))
        replacement_text = _normalize(_match_slash(reader, slash, regex=False))
        nth, glob = _flags(reader)
        if regex_text:
            regex = compile_regex(regex_text, extended)
        elif commands:
            regex = commands[-1].regex
        else:
            raise SedDecline("s//…/ with an empty regex and no previous regex: GNU sed rejects it")
        replacement = parse_replacement(replacement_text, regex.groups, regex.group_nullable)
        if not regex_text and replacement.max_ref:
            raise SedDecline("group references after an empty (reused) regex are not simulated")
        commands.append(SubstCommand(regex, replacement, nth, glob))

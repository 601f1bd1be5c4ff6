"""The character level of GNU sed 4.9's script reading: delimiters, escapes and ``s`` flags.

``match_slash`` and ``_snarf_bracket`` follow GNU's delimiter scan (the delimiter does not
end the regex inside a bracket expression; ``\\`` + delimiter becomes the bare delimiter,
which then keeps its regex meaning); ``normalize`` follows its escape pass (``\\n \\t
\\r \\f \\v \\a`` become characters everywhere, brackets included).
"""

from __future__ import annotations

from waymark.engine.sed.decline import SedDecline

_CHAR_ESCAPES = {"a": "\a", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\n": "\n"}
_UNSUPPORTED_FLAGS = {"e": "the e flag runs the pattern space as a shell command"}
# Names GNU opens as its own streams instead of files.
_SPECIAL_FILES = {
    "/dev/stdout": "writes to sed's standard output",
    "/dev/stderr": "writes to sed's standard error",
    "/dev/stdin": "reads sed's standard input",
}


_NUMERIC_ESCAPES = {"d": (10, 3), "o": (8, 3), "x": (16, 2)}


def _numeric_escapes(text: str, index: int) -> tuple[bytes, int]:
    """The bytes of the run of ``\\dNNN``/``\\oNNN``/``\\xHH`` escapes at ``index``."""
    produced = bytearray()
    while text.startswith("\\", index) and text[index + 1 : index + 2] in _NUMERIC_ESCAPES:
        base, width = _NUMERIC_ESCAPES[text[index + 1]]
        start = end = index + 2
        while end < min(len(text), start + width) and _is_digit(text[end], base):
            end += 1
        if end == start:
            raise SedDecline(f"\\{text[index + 1]} without digits is not simulated")
        value = int(text[start:end], base)
        if value > 255:
            raise SedDecline(f"the escape {text[index:end]!r} is over 255: not simulated")
        produced.append(value)
        index = end
    return bytes(produced), index


_DIGITS = {10: "0123456789", 8: "01234567", 16: "0123456789abcdefABCDEF"}


def _is_digit(char: str, base: int) -> bool:
    return char != "" and char in _DIGITS[base]


def normalize(text: str, replacement: bool = False) -> str:
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
            if follower in _NUMERIC_ESCAPES:
                produced, index = _numeric_escapes(text, index)
                try:
                    chars = produced.decode("utf-8")
                except UnicodeDecodeError:
                    raise SedDecline(
                        "numeric escapes that make no whole UTF-8 character are not simulated"
                    ) from None
                for made in chars:
                    if made == "\\" and not replacement:
                        raise SedDecline("a backslash made by a numeric escape is not simulated")
                    # GNU keeps a produced & or backslash literal in a replacement; in a
                    # regex a produced character has its usual meaning, as in GNU.
                    out.append("\\" + made if replacement and made in "&\\" else made)
                continue
            if follower == "c":
                raise SedDecline("the control escape \\c is not simulated")
            out.append("\\" + follower)
            index += 2
            continue
        out.append(char)
        index += 1
    return "".join(out)


class Reader:
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


def _snarf_bracket(reader: Reader, out: list[str]) -> str:
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


def match_slash(reader: Reader, slash: str, regex: bool) -> str:
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


def subst_flags(reader: Reader) -> tuple[int, bool, bool, bool, bool]:
    """nth, g, p, I and M."""
    nth = 0
    glob = printed = icase = multiline = False
    while True:
        char = reader.nonblank()
        if char in ("", "\n", ";"):
            return nth or 1, glob, printed, icase, multiline
        if char == "g":
            if glob:
                raise SedDecline("the g flag is given twice: GNU sed rejects it")
            glob = True
        elif char == "p":
            if printed:
                raise SedDecline("the p flag is given twice: GNU sed rejects it")
            printed = True
        elif char in ("i", "I"):
            icase = True
        elif char in ("m", "M"):
            multiline = True
        elif char.isdigit() and char.isascii():
            if nth:
                raise SedDecline("two numeric flags: GNU sed rejects them")
            digits = char
            while reader.pos < len(reader.text) and reader.text[reader.pos] in "0123456789":
                digits += reader.next()
            nth = int(digits)
            if nth == 0:
                raise SedDecline("the numeric flag 0 is an error in GNU sed")
        elif char == "\r" and reader.text.startswith("\n", reader.pos):
            reader.next()
            return nth or 1, glob, printed, icase, multiline
        elif char in ("}", "#", "w"):
            # The w flag's file name runs to the end of the line: the caller reads it.
            reader.pos -= 1
            return nth or 1, glob, printed, icase, multiline
        elif char in _UNSUPPORTED_FLAGS:
            raise SedDecline(
                _UNSUPPORTED_FLAGS[char] + ", so it is not simulated", needs_shell=True
            )
        else:
            raise SedDecline(f"unknown s flag {char!r}: GNU sed rejects it")


def read_filename(reader: Reader, command: str) -> str:
    """The file name of ``r``/``R``/``w``/``W`` or the ``w`` flag, read as GNU reads it: from
    the first non-blank to the end of the line, ``;`` and ``}`` included."""
    char = reader.nonblank()
    start = reader.pos - 1
    while char not in ("", "\n"):
        char = reader.next()
    name = reader.text[start : reader.pos - 1] if char else reader.text[start:]
    if not name:
        raise SedDecline(f"'{command}' needs a file name: GNU sed rejects the script")
    if name in _SPECIAL_FILES:
        raise SedDecline(f"{command} {name} {_SPECIAL_FILES[name]}, which is not simulated")
    return name

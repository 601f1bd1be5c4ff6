"""Random s-commands and inputs for the fuzzer (hypothesis) and the soak bench (random).

Both drive the same generator through a two-method ``Chooser``, so the soak explores exactly
the space the suite's fuzzer does, only longer.
"""

from __future__ import annotations

import random
import shlex
from dataclasses import dataclass
from typing import Protocol, TypeVar

T = TypeVar("T")

_BRE_ATOMS = [
    "a",
    "b",
    "x",
    "ab",
    "ba",
    ".",
    "[ab]",
    "[^a]",
    "[^ab]",
    "[a-c]",
    "[[:digit:]]",
    "[[:alpha:]]",
    "[[:space:]]",
    "[]a]",
    "[^]a]",
    "[\\.]",
    "\\.",
    "\\*",
    "\\w",
    "\\W",
    "\\s",
    "\\S",
    "\\b",
    "\\<",
    "\\>",
    "\\n",
    "\\t",
    "\\r",
    "+",
    "?",
    "(",
    ")",
    "{",
    "}",
    "|",
    "1",
    "é",
    "\\$",
    "\\^",
    "-",
    " ",
    "\\`",
    "\\'",
    "&",
    "\\/",
]
_ERE_ATOMS = [
    "a",
    "b",
    "x",
    "ab",
    ".",
    "[ab]",
    "[^a]",
    "[a-c]",
    "[[:digit:]]",
    "[[:alpha:]]",
    "[]a]",
    "[\\.]",
    "\\.",
    "\\*",
    "\\w",
    "\\s",
    "\\b",
    "\\<",
    "\\>",
    "\\n",
    "\\t",
    "\\r",
    "\\+",
    "\\?",
    "\\(",
    "\\)",
    "\\{",
    "\\|",
    "1",
    "é",
    "-",
    " ",
    "(a|b)",
    "(ab|a)",
    "(a|ba|x)",
    "&",
]
_BRE_QUANTIFIERS = ["", "", "", "", "", "*", "*", "\\+", "\\?", "\\{2\\}", "\\{1,2\\}", "\\{0,\\}"]
_BRE_QUANTIFIERS.append("\\{,2\\}")
_ERE_QUANTIFIERS = ["", "", "", "", "", "*", "*", "+", "?", "{2}", "{1,2}", "{0,}", "{,2}"]
# Repeated groups of literal text: (ab)+, \(o\)\{1,\}.
_GROUP_TEXTS = ["ab", "o", "fo", "x", "a"]
_ZERO_WIDTH = ("\\b", "\\<", "\\>", "\\`", "\\'")
_REPLACEMENT_PIECES = [
    "X",
    "y",
    "",
    "&",
    "\\&",
    "\\0",
    "\\1",
    "\\2",
    "\\n",
    "\\t",
    "\\\\",
    "\\U",
    "\\L",
    "\\E",
    "\\u",
    "\\l",
    "[",
    "é",
    "\\/",
    "-",
    "\\q",
    "ß",
]
_FLAGS = [
    "",
    "",
    "",
    "",
    "",
    "g",
    "g",
    "g",
    "g",
    "g",
    "2",
    "3",
    "2g",
    "g2",
    " g",
    "0",
    "gg",
    "p",
    "I",
    "M",
    "gm",
]
_DELIMITERS = ["/", "/", "/", "|", ",", "#", ":", "@", "%", "!", "_", ".", "*"]
_LINE_PIECES = [
    "a",
    "aa",
    "b",
    "ab",
    "ba",
    "x",
    "xx",
    " ",
    "\t",
    ".",
    "*",
    "[",
    "]",
    "\\",
    "/",
    "|",
    "+",
    "?",
    "(",
    ")",
    "{",
    "}",
    "^",
    "$",
    "&",
    "-",
    "_",
    "0",
    "12",
    "A",
    "Ab",
    "é",
    "ß",
    "€",
    "😀",
    "\r",
    "foo",
    "bar",
    "Foo",
    "\x00",
    "\v",
    "\u00a0",
    "\u2028",
    "\u3000",
    "\u2007",
]


class Chooser(Protocol):
    def choice(self, options: list[T]) -> T: ...

    def integer(self, low: int, high: int) -> int: ...


class RandomChooser:
    """A Chooser over ``random.Random``, for the soak bench."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choice(self, options: list[T]) -> T:
        return self.rng.choice(options)

    def integer(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)


@dataclass(frozen=True)
class Case:
    """One generated command (its shell line and GNU argv) and the inputs to run it on."""

    line: str
    gnu_args: list[str]
    inputs: list[bytes]


def _regex(chooser: Chooser, extended: bool) -> str:
    atoms = _ERE_ATOMS if extended else _BRE_ATOMS
    quantifiers = _ERE_QUANTIFIERS if extended else _BRE_QUANTIFIERS
    parts = []
    if chooser.integer(0, 4) == 0:
        parts.append("^")
    for _ in range(chooser.integer(0 if chooser.integer(0, 9) == 0 else 1, 4)):
        atom = chooser.choice(atoms)
        # Mostly quantify what GNU lets one quantify, so most commands exercise the engine.
        quantifier = chooser.choice(quantifiers)
        if atom[:2] in _ZERO_WIDTH or (atom.startswith("(") and chooser.integer(0, 5) != 0):
            quantifier = ""
        open_group, close_group = ("(", ")") if extended else ("\\(", "\\)")
        if chooser.integer(0, 7) == 0:
            text = chooser.choice(_GROUP_TEXTS)
            parts.append(open_group + text + close_group + chooser.choice(quantifiers))
        elif chooser.integer(0, 5) == 0:
            inner = atom + quantifier + chooser.choice(atoms)
            repeat = chooser.choice(quantifiers) if chooser.integer(0, 5) == 0 else ""
            parts.append(open_group + inner + close_group + repeat)
        else:
            parts.append(atom + quantifier)
    if chooser.integer(0, 9) == 0:
        parts.append("|" if extended else "\\|")
        parts.append(chooser.choice(atoms))
    if chooser.integer(0, 4) == 0:
        parts.append("$")
    return "".join(parts)


def _command(chooser: Chooser, extended: bool) -> str:
    delimiter = chooser.choice(_DELIMITERS)
    regex = _regex(chooser, extended)
    replacement = "".join(chooser.choice(_REPLACEMENT_PIECES) for _ in range(chooser.integer(0, 4)))
    body = [
        regex.replace(delimiter, "\\" + delimiter),
        replacement.replace(delimiter, "\\" + delimiter),
    ]
    return "s" + delimiter + body[0] + delimiter + body[1] + delimiter + chooser.choice(_FLAGS)


def _input(chooser: Chooser) -> bytes:
    lines = []
    for _ in range(chooser.integer(0, 5)):
        line = "".join(chooser.choice(_LINE_PIECES) for _ in range(chooser.integer(0, 6)))
        lines.append(line)
    eol = chooser.choice(["\n", "\n", "\r\n"])
    text = eol.join(lines)
    if lines and chooser.integer(0, 3) != 0:
        text += eol
    return text.encode("utf-8")


def generate(chooser: Chooser, inputs: int = 4) -> Case:
    """One random command line (BRE or ERE, one to three s commands) with ``inputs`` inputs."""
    extended = chooser.integer(0, 2) == 0
    commands = [_command(chooser, extended) for _ in range(chooser.choice([1, 1, 1, 1, 1, 2, 3]))]
    split = chooser.integer(0, 2)
    if split == 0:
        expressions = [";".join(commands)]
    elif split == 1:
        expressions = ["\n".join(commands)]
    else:
        expressions = commands
    args = ["-i"] + (["-E"] if extended else [])
    for expression in expressions:
        args += ["-e", expression]
    line = " ".join(["sed", *(shlex.quote(a) for a in args), "file.txt"])
    return Case(line, args, [_input(chooser) for _ in range(inputs)])


_ADDRESS_REGEXES = ["foo", "^a", "b$", "^$", "[0-9]", "o", "x*y", "Foo"]
# Addresses only test for a match: back-references and ambiguous repetitions are simulated.
_ADDRESS_REGEXES += ["\\(o\\)\\1", "\\(.\\)\\1", "^\\(.*\\)\\n\\1$", "a.*b.*", "o*o*"]
_PROGRAM_COMMANDS = [
    "d",
    "p",
    "D",
    "P",
    "n",
    "N",
    "$!N",
    "h",
    "H",
    "g",
    "G",
    "x",
    "z",
    "=",
    "q",
    "Q",
    "y/ab/ba/",
    "a added",
    "i inserted",
    "c changed",
    "a\\\n  kept",
    "$a\\",
    "b",
    "t",
    "T",
]


def _address(chooser: Chooser) -> str:
    kind = chooser.integer(0, 6)
    if kind == 0:
        return ""
    if kind == 1:
        return str(chooser.integer(1, 4))
    if kind == 2:
        return "$"
    if kind == 3:
        regex = chooser.choice(_ADDRESS_REGEXES)
        return "/" + regex + "/" + chooser.choice(["", "", "I", "M"])
    if kind == 4:
        return f"{chooser.integer(0, 2)}~{chooser.integer(0, 3)}"
    start = chooser.choice(["1", "2", "3", "/o/", "/^a/", "0", "1~2", "2~0"])
    end = chooser.choice(
        ["3", "4", "$", "/b/", "+1", "+0", "1", "0", "/^$/", "~2", "~3", "~0", "2~3", "0~2"]
    )
    if start == "0":
        end = "/" + chooser.choice(_ADDRESS_REGEXES) + "/"
    return start + "," + end


def _program_command(chooser: Chooser, extended: bool) -> str:
    address = _address(chooser)
    negate = "!" if address and chooser.integer(0, 4) == 0 else ""
    kind = chooser.integer(0, 3)
    if kind == 0:
        body = _command(chooser, extended)
    elif kind == 1 and address:
        body = "{" + _command(chooser, extended) + ";" + chooser.choice(["p", "d", "h", "G"]) + "}"
    else:
        body = chooser.choice(_PROGRAM_COMMANDS)
    return address + negate + body


def generate_program(chooser: Chooser, inputs: int = 4) -> Case:
    """A random sed program (addresses, ranges, hold space, text commands, branches, -n) run
    on ``inputs`` files at once."""
    extended = chooser.integer(0, 3) == 0
    commands = [_program_command(chooser, extended) for _ in range(chooser.integer(1, 4))]
    # Text commands run to the end of the line, so each command gets its own line.
    expressions = ["\n".join(commands)] if chooser.integer(0, 1) else commands
    if chooser.integer(0, 5) == 0:
        expressions = [":top", *expressions, "/foo/s/foo/FOO/;ttop"]
    args = ["-i"] + (["-n"] if chooser.integer(0, 5) == 0 else []) + (["-E"] if extended else [])
    for expression in expressions:
        args += ["-e", expression]
    files = " ".join(f"f{n}.txt" for n in range(inputs))
    line = " ".join(["sed", *(shlex.quote(a) for a in args), files])
    return Case(line, args, [_input(chooser) for _ in range(inputs)])

"""A sed script read the way GNU sed 4.9's compile.c reads it: addresses, commands, blocks
and labels, into the flat program of ``script.py``."""

from __future__ import annotations

import re
from dataclasses import replace

from waymark.engine.sed.decline import SedDecline
from waymark.engine.sed.regex import CompiledRegex, compile_regex
from waymark.engine.sed.replacement import parse_replacement
from waymark.engine.sed.script import Address, Command, SedScript, SubstCommand
from waymark.engine.sed.script_scan import (
    Reader,
    match_slash,
    normalize,
    read_filename,
    subst_flags,
)

_SPACE = " \t\n\v\f\r"
_LABEL = re.compile(r"[A-Za-z0-9_.-]+")
_DECLINED_COMMANDS = {
    "e": "the e command runs a shell command",
    "l": "the l command's line wrapping and escaping",
    "F": "the F command prints the file name",
    "v": "the v command",
    "L": "the L command",
}


def parse_script(expressions: list[str], extended: bool, quiet: bool = False) -> SedScript:
    """Compile the ``-e`` expressions (each on its own, as GNU does: a command cannot continue
    into the next one) into one program; SedDecline for anything not simulated."""
    if expressions and expressions[0].startswith("#n") and expressions[0][2:3] in ("", "\n"):
        raise SedDecline("a script starting with '#n' turns off autoprint; use -n instead")
    parser = _Parser(extended)
    for number, expression in enumerate(expressions):
        reader = Reader(expression)
        if parser.open_text:
            # GNU joins the -e expressions with newlines, so 'a\\' ends in the next one.
            parser.open_text = False
            index = len(parser.program) - 1
            parser.program[index] = _with_text(parser.program[index], parser.text_body(reader))
        parser.expression(reader, last=number == len(expressions) - 1)
    program = parser.finish()
    plain = all(
        c.name == "s" and c.addr1 is None and c.subst and not c.subst.print for c in program
    )
    if not program:
        raise SedDecline("the script has no command, so there is nothing to simulate")
    reads = tuple(dict.fromkeys(c.text for c in program if c.name in ("r", "R")))
    written = (c.subst.write if c.subst else c.text for c in program if c.name in "wWs")
    writes = tuple(dict.fromkeys(name for name in written if name is not None))
    if writes:
        plain = False
    commands = tuple(c.subst for c in program if c.subst) if plain and not quiet else None
    return SedScript(program, quiet, commands, "\n".join(expressions), reads, writes)


class _Parser:
    def __init__(self, extended: bool) -> None:
        self.extended = extended
        self.program: list[Command] = []
        self.blocks: list[int] = []
        self.labels: dict[str, int] = {}
        self.jumps: list[tuple[int, str]] = []
        self.last_regex: CompiledRegex | None = None
        self.open_text = False
        self.last_expression = True

    def finish(self) -> tuple[Command, ...]:
        if self.blocks:
            raise SedDecline("a '{' is never closed: GNU sed rejects the script")
        program = self.program
        for index, label in self.jumps:
            if label and label not in self.labels:
                raise SedDecline(f"the label {label!r} is not defined: GNU sed rejects the script")
            target = self.labels[label] if label else len(program)
            program[index] = _with_target(program[index], target)
        return tuple(program)

    def regex(
        self, text: str, icase: bool, address: bool = False, multiline: bool = False
    ) -> CompiledRegex:
        if not text:
            raise SedDecline(
                "an empty regex reuses the last regex used at run time, which is not simulated"
            )
        self.last_regex = compile_regex(text, self.extended, icase, address)
        if multiline:
            # The same pattern: it only ever runs on a pattern space of one line (see
            # CompiledRegex.multiline).
            self.last_regex = replace(self.last_regex, multiline=True)
        return self.last_regex

    def address(self, reader: Reader, char: str, second: bool) -> Address | None:
        if char.isdigit() and char.isascii():
            value = self.number(reader, char)
            if reader.text.startswith("~", reader.pos):
                reader.next()
                following = reader.next()
                if not (following.isdigit() and following.isascii()):
                    raise SedDecline("a first~step address needs a step number")
                step = self.number(reader, following)
                if step == 0:
                    # GNU reads first~0 as the line number itself.
                    return Address("line", value)
                return Address("step", value, step)
            return Address("line", value)
        if char in ("+", "~") and second:
            following = reader.next()
            if not (following.isdigit() and following.isascii()):
                raise SedDecline(f"'{char}' in an address needs a number: GNU sed rejects it")
            value = self.number(reader, following)
            return Address("plus" if char == "+" else "mult", value)
        if char == "$":
            return Address("last")
        if char in ("/", "\\"):
            slash = char if char == "/" else reader.next()
            if slash in ("", "\n", "\\"):
                raise SedDecline("a regex address has no valid delimiter: GNU sed rejects it")
            text = normalize(match_slash(reader, slash, regex=True))
            flags = ""
            while reader.text[reader.pos : reader.pos + 1] in ("I", "M"):
                flags += reader.next()
            regex = self.regex(text, "I" in flags, address=True, multiline="M" in flags)
            return Address("regex", regex=regex)
        return None

    @staticmethod
    def number(reader: Reader, first: str) -> int:
        digits = first
        while reader.text[reader.pos : reader.pos + 1].isdigit():
            digits += reader.next()
        if not digits.isascii():
            raise SedDecline("non-ASCII digits in an address are not simulated")
        return int(digits)

    def expression(self, reader: Reader, last: bool) -> None:
        self.last_expression = last
        while True:
            char = reader.next()
            while char == ";" or (char and char in _SPACE):
                char = reader.next()
            if char == "":
                return
            if char == "#":
                while char not in ("", "\n"):
                    char = reader.next()
                continue
            addr1 = self.address(reader, char, second=False)
            addr2 = None
            if addr1 is not None:
                char = reader.nonblank()
                if char == ",":
                    addr2 = self.address(reader, reader.nonblank(), second=True)
                    if addr2 is None:
                        raise SedDecline("a range has no valid end address: GNU sed rejects it")
                    char = reader.nonblank()
                if addr1 == Address("line", 0) and (addr2 is None or addr2.kind != "regex"):
                    raise SedDecline("line address 0 is only valid in 0,/re/: GNU rejects it")
            negate = False
            if char == "!":
                negate = True
                char = reader.nonblank()
                if char == "!":
                    raise SedDecline("multiple '!' are an error in GNU sed")
            self.command(reader, char, Command("", addr1, addr2, negate))

    def command(self, reader: Reader, char: str, head: Command) -> None:
        addressed = head.addr1 is not None
        if char in ("", "\n", ";"):
            raise SedDecline("an address without a command: GNU sed rejects it")
        if char in _DECLINED_COMMANDS:
            # e runs a program: its output is not determined by the line and the files.
            raise SedDecline(
                f"{_DECLINED_COMMANDS[char]} is not simulated", needs_shell=char == "e"
            )
        if char == "{":
            self.blocks.append(len(self.program))
            self.program.append(_named(head, "{"))
            return
        if char == "}":
            if addressed or head.negate:
                raise SedDecline("'}' takes no address: GNU sed rejects it")
            if not self.blocks:
                raise SedDecline("an unexpected '}': GNU sed rejects the script")
            opener = self.blocks.pop()
            self.program[opener] = _with_target(self.program[opener], len(self.program) + 1)
            self.program.append(_named(head, "}"))
        elif char == ":":
            if addressed:
                raise SedDecline("a label takes no address: GNU sed rejects it")
            label = self.label(reader)
            if not label:
                raise SedDecline("':' needs a label name: GNU sed rejects it")
            if label in self.labels:
                raise SedDecline(f"the label {label!r} is defined twice: GNU sed rejects it")
            self.labels[label] = len(self.program)
            return
        elif char in "btT":
            self.jumps.append((len(self.program), self.label(reader)))
            self.program.append(_named(head, char))
            return
        elif char in "aic":
            self.program.append(_named(head, char))
            text = self.text(reader)
            self.program[-1] = _with_text(self.program[-1], text)
            return
        elif char == "s":
            self.program.append(_named(head, "s", subst=self.subst(reader, head)))
            return
        elif char in "rRwW":
            self.program.append(_named(head, char, text=read_filename(reader, char)))
            return
        elif char == "y":
            self.program.append(_named(head, "y", table=self.table(reader)))
        elif char in "qQ":
            if head.addr2 is not None:
                raise SedDecline(f"'{char}' takes one address at most: GNU sed rejects it")
            following = reader.nonblank()
            if following.isdigit():
                raise SedDecline(f"'{char}' with an exit code is not simulated")
            reader.pos -= 1
            self.program.append(_named(head, char))
        elif char == "=" or char in "dDgGhHxnNpPz":
            self.program.append(_named(head, char))
        else:
            raise SedDecline(f"unknown sed command {char!r}: GNU sed rejects it")
        _end_of_command(reader)

    @staticmethod
    def label(reader: Reader) -> str:
        char = reader.nonblank()
        start = reader.pos - 1
        while char not in ("", "\n", ";") and char not in _SPACE:
            char = reader.next()
        label = reader.text[start : reader.pos - 1] if char else reader.text[start:]
        if char == ";" or char in _SPACE:
            reader.pos -= 1
        if label and not _LABEL.fullmatch(label):
            raise SedDecline(f"the label {label!r} is not simulated (use letters, digits, _ . -)")
        _end_of_command(reader)
        return label

    def text(self, reader: Reader) -> str:
        """The text of ``a``, ``i``, ``c``: GNU's one-liner (leading blanks dropped) and
        ``a\\`` forms (blanks kept)."""
        char = reader.nonblank()
        if char == "":
            raise SedDecline("'a', 'i' and 'c' need text: GNU sed rejects the line")
        if char != "\\":
            reader.pos -= 1
            return self.text_body(reader)
        if reader.text.startswith("\n", reader.pos):
            reader.next()
        elif reader.pos >= len(reader.text):
            self.open_text = not self.last_expression
            return ""
        return self.text_body(reader)

    @staticmethod
    def text_body(reader: Reader) -> str:
        char = reader.next()
        out: list[str] = []
        while char not in ("", "\n"):
            if char == "\\":
                char = reader.next()
                if char != "\n":
                    raise SedDecline("backslash escapes in a/i/c text are not simulated")
            out.append(char)
            char = reader.next()
        return "".join(out) + "\n"

    def subst(self, reader: Reader, head: Command) -> SubstCommand:
        slash = reader.next()
        if slash in ("", "\n", "\\"):
            raise SedDecline("the s command has no valid delimiter: GNU sed rejects it")
        if not slash.isascii() or slash.isalnum():
            raise SedDecline(
                f"the delimiter {slash!r} is not simulated; use a punctuation character"
            )
        regex_text = normalize(match_slash(reader, slash, regex=True))
        replacement_text = normalize(match_slash(reader, slash, regex=False), replacement=True)
        nth, glob, printed, icase, multiline = subst_flags(reader)
        write = None
        if reader.text.startswith("w", reader.pos):
            reader.next()
            write = read_filename(reader, "w")
        flagged = icase or multiline
        plain = head.addr1 is None and all(c.name == "s" and c.addr1 is None for c in self.program)
        own = _own_regex(head)
        if not regex_text and own is not None and not flagged:
            # The command's own address regex is always the last one GNU tried before it.
            regex = own
        elif not regex_text and plain and self.last_regex is not None and not flagged:
            # Every earlier command is an unaddressed s, so the last regex used is the last one.
            regex = self.last_regex
        else:
            regex = self.regex(regex_text, icase, multiline=multiline)
        if regex.undetermined is not None:
            raise SedDecline(f"the empty regex reuses an address regex: {regex.undetermined}")
        replacement = parse_replacement(replacement_text, regex.groups, regex.group_nullable)
        if not regex_text and replacement.max_ref:
            raise SedDecline("group references after an empty (reused) regex are not simulated")
        return SubstCommand(regex, replacement, nth, glob, printed, write)

    @staticmethod
    def table(reader: Reader) -> dict[int, str]:
        slash = reader.next()
        if slash in ("", "\n", "\\") or not slash.isascii() or slash.isalnum():
            raise SedDecline("the y command's delimiter is not simulated")
        sides = []
        for _ in range(2):
            raw = match_slash(reader, slash, regex=False)
            out: list[str] = []
            index = 0
            while index < len(raw):
                char = raw[index]
                if char == "\\":
                    follower = raw[index + 1 : index + 2]
                    if follower not in ("\\", "n"):
                        raise SedDecline("escapes other than \\\\ and \\n in y are not simulated")
                    char = "\n" if follower == "n" else "\\"
                    index += 1
                out.append(char)
                index += 1
            sides.append("".join(out))
        source, dest = sides
        if len(source) != len(dest) or len(set(source)) != len(source):
            raise SedDecline("y needs two strings of equal length without repeats")
        return {ord(a): b for a, b in zip(source, dest, strict=True)}


def _own_regex(head: Command) -> CompiledRegex | None:
    """The regex ``/re/`` or ``0,/re/`` addresses; GNU evaluates it each time before the command."""
    first, second = head.addr1, head.addr2
    if first is not None and first.kind == "regex" and second is None:
        return first.regex
    if first == Address("line", 0) and second is not None and second.kind == "regex":
        return second.regex
    return None


def _end_of_command(reader: Reader) -> None:
    char = reader.nonblank()
    if char in ("}", "#"):
        reader.pos -= 1
    elif char not in ("", "\n", ";"):
        raise SedDecline(f"extra characters after a command ({char!r}): GNU sed rejects them")


def _named(head: Command, name: str, **fields: object) -> Command:
    return Command(name, head.addr1, head.addr2, head.negate, **fields)  # type: ignore[arg-type]


def _with_text(command: Command, text: str) -> Command:
    return Command(command.name, command.addr1, command.addr2, command.negate, text=text, target=-1)


def _with_target(command: Command, target: int) -> Command:
    return Command(
        command.name,
        command.addr1,
        command.addr2,
        command.negate,
        command.subst,
        command.text,
        target,
        command.table,
    )

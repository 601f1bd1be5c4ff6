"""GNU sed 4.9's execution cycle (execute.c) for one file of ``sed -i``: addresses, ranges,
hold space, branches and the commands ``script.py`` compiles.

``-i`` implies ``-s``: every file starts afresh (line numbers, ``$``, ranges, an empty hold
space) except for one flag GNU keeps: whether the hold space's text ended with a newline.
Output follows GNU's bookkeeping of a missing final newline: a line read without ``\\n`` is
written without one, and anything written after it first supplies the newline.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from waymark.engine.sed.decline import SedDecline
from waymark.engine.sed.regex import CompiledRegex
from waymark.engine.sed.script import Address, Command, SedScript, SubstCommand
from waymark.engine.sed.simulate import check_space, decode, gnu_subst

if TYPE_CHECKING:
    from waymark.engine.sed.sidefiles import SideFiles


@dataclass
class FileRun:
    """The new bytes of one file and whether a ``q``/``Q`` stopped sed (later files untouched)."""

    data: bytes
    quit: bool
    hold_chomped: bool


# A range's state; a closed range whose start is a line number never opens again.
_INACTIVE, _ACTIVE, _CLOSED = 0, 1, 2


class _Input:
    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        self.last_chomped = text.endswith("\n")
        if self.last_chomped or not text:
            self.lines.pop()
        self.index = 0
        self.number = 0

    def at_end(self) -> bool:
        return self.index >= len(self.lines)

    def read(self) -> tuple[str, bool]:
        line = self.lines[self.index]
        self.index += 1
        self.number += 1
        return line, self.index < len(self.lines) or self.last_chomped


class Output:
    """What sed prints (or a w file gets): a line read without its newline is written
    without one, and anything written after it first supplies the newline."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.missing_newline = False

    def write(self, text: str, newline: bool) -> None:
        if self.missing_newline:
            self.parts.append("\n")
        self.parts.append(text)
        if newline:
            self.parts.append("\n")
        self.missing_newline = not newline

    def text(self, text: str) -> None:
        if self.missing_newline:
            self.parts.append("\n")
            self.missing_newline = False
        self.parts.append(text)


def _search(regex: CompiledRegex, text: str) -> bool:
    check_space(regex, text)
    return regex.space_for(text).search(text) is not None


class _Machine:
    def __init__(
        self, script: SedScript, source: _Input, hold_chomped: bool, side: SideFiles | None
    ) -> None:
        self.program = script.program
        self.side = side
        self.quiet = script.quiet
        self.input = source
        self.output = Output()
        # 0,/re/ is a range already open before the first line.
        self.state = [_ACTIVE if c.addr1 == Address("line", 0) else _INACTIVE for c in self.program]
        self.range_end = [0] * len(self.program)
        self.appends: list[str] = []
        self.space = ""
        self.chomped = True
        self.hold = ""
        # GNU keeps the "read with a newline" flag on each buffer, and h/H/g/G/x carry it.
        self.hold_chomped = hold_chomped
        self.replaced = False
        # A script can loop forever (G;D, or t back over a substitution that always matches);
        # GNU would hang. Legitimate loops are bounded by the text, so past this many steps
        # the line is declined instead.
        size = sum(map(len, source.lines)) + 2 * len(source.lines) + 16
        self.budget = size * (len(script.program) + 4)
        # A loop that doubles a buffer (G;H or s/.*/&&/ and a branch) exhausts memory within
        # the step budget; GNU would too, or write a file far larger than its input.
        self.room = 64 * size + 65_536

    def one(self, address: Address) -> bool:
        kind = address.kind
        number = self.input.number
        if kind == "line":
            return number == address.value
        if kind == "last":
            return self.input.at_end()
        if kind == "step":
            return number >= address.value and (number - address.value) % address.step == 0
        assert address.regex is not None
        return _search(address.regex, self.space)

    def matches(self, index: int, command: Command) -> bool:
        first, second = command.addr1, command.addr2
        if first is None:
            return True
        if second is None:
            return self.one(first)
        number = self.input.number
        state = self.state[index]
        if state == _ACTIVE:
            if second.kind == "line":
                if number >= second.value:
                    self.state[index] = _CLOSED
                # n/N can carry the range past its end line: GNU then leaves that line out.
                return number <= second.value
            if second.kind in ("plus", "mult"):
                if number >= self.range_end[index]:
                    self.state[index] = _CLOSED
                return True
            if self.one(second):
                self.state[index] = _CLOSED
            return True
        if first.kind == "line":
            # A line-number start skipped by n/N still opens the range on a later line, once,
            # unless that line is also past a line-number end.
            if state == _CLOSED or number < first.value:
                return False
            if number > first.value and second.kind == "line" and number > second.value:
                return False
        elif not self.one(first):
            return False
        self.state[index] = _CLOSED
        if second.kind == "line":
            if second.value <= number:
                return True
        elif second.kind == "plus":
            if second.value == 0:
                return True
            self.range_end[index] = number + second.value
        elif second.kind == "mult":
            # GNU ends at the next multiple after this line, even when this line is one.
            if second.value == 0:
                return True
            self.range_end[index] = number + second.value - number % second.value
        elif second.kind in ("last", "step") and self.one(second):
            return True
        self.state[index] = _ACTIVE
        return True

    def flush_appends(self) -> None:
        for text in self.appends:
            self.output.text(text)
        self.appends.clear()

    def end_cycle(self, autoprint: bool) -> None:
        if autoprint and not self.quiet:
            self.output.write(self.space, self.chomped)
        self.flush_appends()

    def read_next(self) -> None:
        self.flush_appends()
        self.space, self.chomped = self.input.read()
        self.replaced = False

    def run(self) -> bool:
        """Run every cycle; True when ``q``/``Q`` stopped sed."""
        restart = False
        while restart or not self.input.at_end():
            if not restart:
                self.space, self.chomped = self.input.read()
                self.replaced = False
            restart = False
            outcome = self.cycle()
            if outcome == "quit":
                return True
            restart = outcome == "restart"
        return False

    def cycle(self) -> str:
        program = self.program
        pc = 0
        while pc < len(program):
            self.budget -= 1
            if self.budget < 0:
                raise SedDecline(
                    "the script runs far longer than its input (it may never end, as GNU sed "
                    "would not), so it is not simulated"
                )
            command = program[pc]
            if self.matches(pc, command) == command.negate:
                pc = command.target if command.name == "{" else pc + 1
                continue
            name = command.name
            pc += 1
            if name in ("{", "}"):
                continue
            if name == "s":
                assert command.subst is not None
                self.substitute(command.subst)
            elif name == "d":
                self.end_cycle(autoprint=False)
                return "next"
            elif name == "D":
                cut = self.space.find("\n")
                if cut < 0:
                    self.end_cycle(autoprint=False)
                    return "next"
                self.space = self.space[cut + 1 :]
                # The cycle restarts without ending: queued a/r text waits for its real end.
                return "restart"
            elif name == "p":
                self.output.write(self.space, self.chomped)
            elif name == "P":
                cut = self.space.find("\n")
                if cut < 0:
                    self.output.write(self.space, self.chomped)
                else:
                    self.output.write(self.space[:cut], True)
            elif name == "=":
                self.output.text(f"{self.input.number}\n")
            elif name == "i":
                self.output.text(command.text)
            elif name == "a":
                self.appends.append(command.text)
            elif name == "c":
                # GNU writes the text once per range, when its last line closes it.
                if self.state[pc - 1] != _ACTIVE:
                    self.output.text(command.text)
                self.end_cycle(autoprint=False)
                return "next"
            elif name == "y":
                assert command.table is not None
                self.space = self.space.translate(command.table)
            elif name == "h":
                self.hold, self.hold_chomped = self.space, self.chomped
            elif name == "H":
                self.hold, self.hold_chomped = self.hold + "\n" + self.space, self.chomped
                self.check_room(self.hold)
            elif name == "g":
                self.space, self.chomped = self.hold, self.hold_chomped
            elif name == "G":
                self.space, self.chomped = self.space + "\n" + self.hold, self.hold_chomped
                self.check_room(self.space)
            elif name == "x":
                self.space, self.hold = self.hold, self.space
                self.chomped, self.hold_chomped = self.hold_chomped, self.chomped
            elif name == "z":
                self.space = ""
            elif name == "n":
                if self.input.at_end():
                    self.end_cycle(autoprint=True)
                    return "next"
                if not self.quiet:
                    self.output.write(self.space, self.chomped)
                self.read_next()
            elif name == "N":
                if self.input.at_end():
                    self.end_cycle(autoprint=True)
                    return "next"
                before = self.space
                self.read_next()
                self.space = before + "\n" + self.space
            elif name == "b":
                pc = command.target
            elif name == "t":
                if self.replaced:
                    self.replaced = False
                    pc = command.target
            elif name == "T":
                if not self.replaced:
                    pc = command.target
                else:
                    self.replaced = False
            elif name in "rRwW":
                self.side_command(command)
            elif name == "q":
                self.end_cycle(autoprint=True)
                # Unlike Q, q completes a last line that lacked its newline.
                self.output.text("")
                return "quit"
            elif name == "Q":
                return "quit"
        self.end_cycle(autoprint=True)
        return "next"

    def check_room(self, buffer: str) -> None:
        if len(buffer) > self.room:
            raise SedDecline(
                "the script grows the pattern or hold space far beyond the size of its input, "
                "so it is not simulated"
            )

    def substitute(self, command: SubstCommand) -> None:
        regex = command.regex
        check_space(regex, self.space)
        result = gnu_subst(regex.space_for(self.space), self.space, command)
        if result is None:
            return
        self.check_room(result)
        self.space = result
        self.replaced = True
        if command.print:
            self.output.write(self.space, self.chomped)
        if command.write is not None:
            self.files().write(command.write, self.space, self.chomped)

    def files(self) -> SideFiles:
        if self.side is None:
            raise SedDecline("the script reads or writes other files: run it with apply_with_files")
        return self.side

    def side_command(self, command: Command) -> None:
        """``r``/``R`` queue text like ``a``; ``w`` writes the pattern space, ``W`` its first
        line."""
        files, name = self.files(), command.name
        if name == "r":
            self.appends.append(files.whole(command.text))
        elif name == "R":
            line = files.next_line(command.text)
            if line is not None:
                self.appends.append(line)
        elif name == "w":
            files.write(command.text, self.space, self.chomped)
        else:
            cut = self.space.find("\n")
            if cut < 0:
                files.write(command.text, self.space, self.chomped)
            else:
                files.write(command.text, self.space[:cut], True)


def run_file(
    script: SedScript, data: bytes, hold_chomped: bool = True, side: SideFiles | None = None
) -> FileRun:
    """Run the whole program over one file's bytes; SedDecline when GNU's result is unprovable.
    ``side``: the files r/R read and w/W write, for a script that names any."""
    text = decode(data)
    machine = _Machine(script, _Input(text), hold_chomped, side)
    quit_ = machine.run()
    new_text = "".join(machine.output.parts)
    new_data = data if new_text == text else new_text.encode("utf-8")
    return FileRun(new_data, quit_, machine.hold_chomped)

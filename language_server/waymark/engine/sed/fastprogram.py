"""Which sed programs the whole-buffer path (``fastpath.py``) runs, as FastPrograms.

A program here is a sequence of steps, each one command: ``ADDR d`` / ``ADDR!d``,
``ADDR s/…/…/FLAGS`` or ``ADDR{s…;s…}`` (no ``p`` flag, inner ``s`` commands unaddressed),
``ADDR y/…/…/``, and last only ``ADDR i``/``a``/``c TEXT`` on one line per selection; or the
single ``-n ADDR p`` / ``-n ADDR!p``. ADDR is a line, ``$``, ``first~step``, a regex (``I``,
``M`` allowed) or a range of those (``A,+N``, ``A,~N``, ``0,/re/`` included). Running the steps
one after the other over the whole text is GNU's cycle when every line reaches each command as
the one before left it (``_runs_in_order``). Anything outside these shapes is not a
FastProgram.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from waymark.engine.sed.asciibytes import bytes_pattern
from waymark.engine.sed.script import Address, Command, SedScript, SubstCommand

# Actions that write a text of their own; a later command would see it as lines of input.
TEXT_ACTIONS = ("insert", "append", "change")
_TEXT_COMMANDS = {"i": "insert", "a": "append", "c": "change"}


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
        """Whether an ASCII file may be run as bytes: the address patterns compile for bytes."""
        return all(
            address is None
            or address.regex is None
            or bytes_pattern(address.regex.ascii_buffer_pattern) is not None
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
        if not last and (step.action in TEXT_ACTIONS or step.splits_lines):
            return False
        if deleted and not step.regex_only:
            return False
        deleted = deleted or step.action == "delete"
    return True

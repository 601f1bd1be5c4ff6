"""A compiled sed script: the flat program ``script_parse.py`` reads as GNU sed 4.9 does.

Blocks become jumps (``{`` holds the index of its ``}``), labels become indices, so the
executor (``execute.py``) is a loop over a tuple. A script of plain ``s`` commands on every
line also keeps its ``s`` list: ``simulate.py`` applies those to the whole buffer at once.
"""

from __future__ import annotations

from dataclasses import dataclass

from waymark.engine.sed.regex import CompiledRegex
from waymark.engine.sed.replacement import Replacement


@dataclass(frozen=True)
class SubstCommand:
    """One ``s/regex/replacement/flags``: replace match ``nth``, and all later ones if ``glob``."""

    regex: CompiledRegex
    replacement: Replacement
    nth: int
    glob: bool
    print: bool = False
    # The w flag's file name, as written in the script.
    write: str | None = None


@dataclass(frozen=True)
class Address:
    """``kind``: "line" (``value``), "last" (``$``), "step" (``value~step``), "regex",
    and as a range end only "plus" (``+value``) and "mult" (``~value``)."""

    kind: str
    value: int = 0
    step: int = 0
    regex: CompiledRegex | None = None


@dataclass(frozen=True)
class Command:
    """One command with its addresses; ``arg`` depends on ``name`` (text, label index, …)."""

    name: str
    addr1: Address | None = None
    addr2: Address | None = None
    negate: bool = False
    subst: SubstCommand | None = None
    text: str = ""
    target: int = -1
    table: dict[int, str] | None = None


@dataclass(frozen=True)
class SedScript:
    """The compiled program, whether ``-n`` is in effect, and its ``s`` list when the program is
    nothing but unaddressed ``s`` commands (the whole-buffer fast path)."""

    program: tuple[Command, ...]
    quiet: bool
    commands: tuple[SubstCommand, ...] | None
    text: str
    # The files r/R read and w/W (and the s///w flag) write, by name as written, each once.
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()

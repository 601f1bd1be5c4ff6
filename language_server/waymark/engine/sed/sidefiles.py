"""The files a sed script reads (``r``, ``R``) and writes (``w``, ``W``, the ``s///w`` flag)
besides its operands, as GNU sed 4.9 handles them.

The engine stays pure: the caller reads the ``r``/``R`` files and passes their bytes
(``None``: missing, which GNU reads as empty), and gets back the bytes each ``w`` file holds
when sed ends. GNU's rules, measured: a file name runs from the first non-blank to the end of
the line (``;`` and ``}`` included); every ``w`` file is created or truncated when the script
is compiled, written or not, and all commands naming it share one stream, across the files of
a ``-i`` run; ``r`` queues the whole file for the end of the cycle (or the next ``n``/``N``),
completing a line that lacked its newline even when the file is missing; ``R`` queues its
file's next line, if any, and starts again from its first line for every file of a ``-i`` run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from waymark.engine.sed.decline import SedDecline
from waymark.engine.sed.execute import Output, run_file
from waymark.engine.sed.script import SedScript


class SideFiles:
    """The ``r``/``R`` files' texts and the ``w`` streams of one sed run."""

    def __init__(self, reads: Mapping[str, bytes | None], writes: tuple[str, ...], room: int):
        self.texts = {name: _decode(name, data) for name, data in reads.items()}
        self.lines = {name: _lines(text) for name, text in self.texts.items()}
        self.positions = dict.fromkeys(self.texts, 0)
        # GNU keeps the missing-newline flag per output stream, so each w file has its own.
        self.streams = {name: Output() for name in writes}
        # r of a large file on every line, or w in a long loop, can write far more than GNU
        # would be asked to in practice; past this many characters the line is declined.
        self.room = room

    def whole(self, name: str) -> str:
        return self._spend(self.texts[name])

    def next_line(self, name: str) -> str | None:
        lines, position = self.lines[name], self.positions[name]
        if position >= len(lines):
            return None
        self.positions[name] = position + 1
        return self._spend(lines[position])

    def write(self, name: str, text: str, newline: bool) -> None:
        self._spend(text)
        self.streams[name].write(text, newline)

    def rewind(self) -> None:
        self.positions = dict.fromkeys(self.texts, 0)

    def _spend(self, text: str) -> str:
        self.room -= len(text) + 1
        if self.room < 0:
            raise SedDecline(
                "the script reads or writes other files far beyond the size of its input, "
                "so it is not simulated"
            )
        return text


@dataclass(frozen=True)
class SedRun:
    """Each operand's new bytes (None: a ``q`` stopped sed before it) and each ``w`` file's."""

    files: list[bytes | None]
    writes: dict[str, bytes]


def apply_with_files(
    script: SedScript, files: list[bytes], reads: Mapping[str, bytes | None]
) -> SedRun:
    """Run a script that reads or writes other files over the operands, GNU's cycle file
    after file; ``reads`` holds the bytes of every name in ``script.reads``."""
    size = sum(map(len, files)) + sum(len(data or b"") for data in reads.values())
    side = SideFiles({name: reads[name] for name in script.reads}, script.writes, 64 * size + 2**20)
    results: list[bytes | None] = []
    hold_chomped = True
    for data in files:
        side.rewind()
        run = run_file(script, data, hold_chomped, side)
        hold_chomped = run.hold_chomped
        results.append(run.data)
        if run.quit:
            results.extend([None] * (len(files) - len(results)))
            break
    writes = {name: "".join(out.parts).encode("utf-8") for name, out in side.streams.items()}
    return SedRun(results, writes)


def _decode(name: str, data: bytes | None) -> str:
    try:
        return "" if data is None else data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SedDecline(
            f"{name}, which the script reads, is not valid UTF-8 (byte {exc.start}); "
            "GNU sed copies its raw bytes, which is not simulated"
        ) from exc


def _lines(text: str) -> list[str]:
    """The lines ``R`` reads, each with its newline (a last line may lack one)."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]

"""Line endings that an edit must not let run together.

A line ends at ``\\r\\n`` before it ends at ``\\r`` or ``\\n``. So a line ending in a lone
``\\r`` directly followed by an empty line ending in ``\\n`` reads back as ONE line ending in
CRLF: the empty line vanishes into the line above. An empty last line without a terminator
vanishes too (it is no bytes at all). A planned edit must re-read as the lines it reports,
so new lines are given terminators that cannot run together, and what is left is refused
before anything is written.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import add

from waymark.engine.edits.safety import Change
from waymark.engine.text import TextFile, split_lines


class EndingsWouldMerge(Exception):
    """The planned lines would not read back as planned: ``line`` (1-based, in the file as
    read) ends in a lone CR and would take the empty LF line after it along."""

    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


def _merge(lines: Sequence[str], end: Callable[[int], str], i: int) -> bool:
    return end(i) == "\r" and not lines[i + 1] and end(i + 1) == "\n"


def ends_apart(file: TextFile) -> bool:
    """Whether no line of ``file`` can run into the next, known without a look at its lines:
    its maker told it every line ends in LF, or every one in CRLF (a line holds no CR or LF,
    so its text splits back at those ends alone). Then :func:`kept_apart` finds nothing and
    :func:`check_rereads` passes."""
    return file.told_end in ("\n", "\r\n")


def kept_apart(
    lines: Sequence[str], eols: Sequence[str], changes: Sequence[Change], eol: str
) -> dict[int, str]:
    """New terminators (by line) for new lines of ``changes`` (new-file coordinates) that
    would run into a neighbour; lines outside the changes are never given one."""
    fixed: dict[int, str] = {}

    def end(i: int) -> str:
        return fixed.get(i, eols[i])

    n = len(lines)
    for c in changes:
        if c.new_end == n > c.new_start and not lines[-1] and not eols[-1]:
            # A new empty last line needs a terminator to exist at all.
            fixed[n - 1] = eol
        for i in range(max(c.new_start - 1, 0), min(c.new_end, n - 1)):
            if not _merge(lines, end, i):
                continue
            if i + 1 < c.new_end:
                # The lone CR of the line above: "\r\r" is two line ends whatever follows,
                # while "\n" (or CRLF) after that CR would be read as part of its ending.
                fixed[i + 1] = "\r"
            elif i >= c.new_start:
                # The empty line below is not the edit's: end the new line with CRLF, the one
                # terminator that neither swallows an LF after it nor is taken by a CR before.
                fixed[i] = "\r\n"
    return fixed


def check_rereads(lines: Sequence[str], eols: Sequence[str], changes: Sequence[Change]) -> None:
    """Raise :class:`EndingsWouldMerge` unless the changed stretches, one line wider each
    side, split back into exactly their planned lines (only there can endings have met)."""
    n = len(lines)
    for c in changes:
        a, b = max(c.new_start - 1, 0), min(c.new_end + 1, n)
        planned = (list(lines[a:b]), list(eols[a:b]))
        if split_lines("".join(map(add, planned[0], planned[1]))) == planned:
            continue
        bad = next(
            (i for i in range(a, b - 1) if _merge(lines, eols.__getitem__, i)),
            b - 1,
        )
        if bad < c.new_start:
            line = bad - c.new_start + c.old_start
        elif bad >= c.new_end:
            line = bad - c.new_end + c.old_end
        else:
            line = c.old_start
        raise EndingsWouldMerge(line + 1)

"""Applying the splices of a planned anchored edit, in one pass over the file."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from waymark.engine.anchors import hash_lines
from waymark.engine.edits.safety import Change
from waymark.engine.text import TextFile


@dataclass(frozen=True)
class Splice:
    """Old lines ``[start, end)`` become ``lines``; an insert has ``start == end``."""

    start: int
    end: int
    lines: tuple[str, ...]

    @property
    def is_insert(self) -> bool:
        return self.start == self.end


def apply_splices(
    tf: TextFile, hashes: list[int], splices: list[Splice]
) -> tuple[TextFile, list[int]]:
    """Apply non-overlapping splices in one pass; the same bytes as :meth:`TextFile.splice`
    applied bottom-up, one by one (at one start the region first, so that an insert at that
    point lands before the region's new lines), without copying the file per splice."""
    eol = tf.eol
    eols = tf.eols
    override: dict[int, str] = {}  # terminators of untouched lines that a splice changed
    chunks: list[tuple[Sequence[str], Sequence[str], Sequence[int]]] = []  # reversed tail
    tail = 0  # lines after ``cursor`` in the file as edited so far
    cursor = len(tf.lines)

    def eol_at(i: int) -> str:
        return override.get(i, eols[i])

    def keep(start: int, stop: int) -> None:
        nonlocal tail
        if stop > start:
            # A slice in C; the few terminators a splice changed are patched in after.
            kept = list(eols[start:stop])
            for i, value in override.items():
                if start <= i < stop:
                    kept[i - start] = value
            chunks.append((tf.lines[start:stop], kept, hashes[start:stop]))
            tail += stop - start

    for sp in sorted(splices, key=lambda s: (s.start, s.end > s.start), reverse=True):
        keep(sp.end, cursor)
        cursor = sp.start
        new = list(sp.lines)
        if sp.end > sp.start:
            new_eols = [
                eol_at(sp.start + i) if sp.start + i < sp.end - 1 else eol for i in range(len(new))
            ]
            if new:
                new_eols[-1] = eol_at(sp.end - 1)
            elif tail == 0 and eol_at(sp.end - 1) == "" and sp.start > 0 and tf.lines[sp.start - 1]:
                # Deleting the unterminated last line: the new last line loses its terminator
                # (unless it is empty: an empty line without one is no line at all).
                override[sp.start - 1] = ""
        else:
            new_eols = [eol] * len(new)
            if new and tail == 0 and sp.start > 0 and eol_at(sp.start - 1) == "":
                # Appending after an unterminated last line: it gains one, the new end lacks one.
                override[sp.start - 1] = eol
                new_eols[-1] = ""
        if new:
            chunks.append((new, new_eols, hash_lines(new)))
            tail += len(new)
    keep(0, cursor)
    lines: list[str] = []
    new_eols_all: list[str] = []
    new_hashes: list[int] = []
    for chunk_lines, chunk_eols, chunk_hashes in reversed(chunks):
        lines.extend(chunk_lines)
        new_eols_all.extend(chunk_eols)
        new_hashes.extend(chunk_hashes)
    return TextFile(tuple(lines), tuple(new_eols_all), tf.encoding, tf.bom), new_hashes


def merged_changes(splices: list[Splice]) -> list[Change]:
    """Touching splices merged, in new-file coordinates too."""
    changes: list[Change] = []
    offset = 0
    for sp in sorted(splices, key=lambda s: (s.start, s.end > s.start)):
        new_start = sp.start + offset
        offset += len(sp.lines) - (sp.end - sp.start)
        change = Change(sp.start, sp.end, new_start, new_start + len(sp.lines))
        if changes and change.old_start <= changes[-1].old_end:
            last = changes.pop()
            change = Change(last.old_start, change.old_end, last.new_start, change.new_end)
        changes.append(change)
    return changes

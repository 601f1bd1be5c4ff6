"""Applying the splices of a planned anchored edit, in one pass over the file."""

from __future__ import annotations

from dataclasses import dataclass

from waymark.engine.anchors import hash_lines
from waymark.engine.edits.line_ends import ends_apart, kept_apart
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
    tf: TextFile, hashes: list[int], splices: list[Splice], eol: str | None = None
) -> tuple[TextFile, list[int]]:
    """Apply non-overlapping splices in one pass; the same bytes as :meth:`TextFile.splice`
    applied bottom-up, one by one (at one start the region first, so that an insert at that
    point lands before the region's new lines).

    The columns are copied once and spliced bottom-up in place: a slice assignment moves the
    pointers after it without touching the lines they point to (at 200k lines, each pass
    that touches every line object costs more than the copy itself). ``eol``: the new lines'
    terminator, by default ``tf``'s dominant one (``tf`` may be a stretch of a file)."""
    eol = eol or tf.eol
    # Every line ending in ``end`` before, and every line given one ending in it too: the new
    # file is told so rather than counting its ends again.
    end = tf.same_end or ""
    if end and eol == end:
        # Every old and new line ends in ``end``: no terminator is moved, none is looked at.
        return _spliced_alike(tf, hashes, splices, end)
    lines, eols, new_hashes = list(tf.lines), list(tf.eols), list(hashes)
    same = bool(end)
    tail = 0  # lines after ``cursor`` in the file as edited so far
    cursor = len(tf.lines)
    # Lines above ``cursor`` are untouched so far: ``eols[i]`` is the old terminator of line
    # ``i``, or the one a splice below it gave it.
    for sp in _in_order(splices):
        tail += max(cursor - sp.end, 0)
        cursor = sp.start
        new = list(sp.lines)
        if sp.end > sp.start:
            new_eols = [
                eols[sp.start + i] if sp.start + i < sp.end - 1 else eol for i in range(len(new))
            ]
            if new:
                new_eols[-1] = eols[sp.end - 1]
            elif tail == 0 and eols[sp.end - 1] == "" and sp.start > 0 and lines[sp.start - 1]:
                # Deleting the unterminated last line: the new last line loses its terminator
                # (unless it is empty: an empty line without one is no line at all).
                eols[sp.start - 1] = ""
        else:
            new_eols = [eol] * len(new)
            if new and tail == 0 and sp.start > 0 and eols[sp.start - 1] == "":
                # Appending after an unterminated last line: it gains one, the new end lacks one.
                eols[sp.start - 1] = eol
                new_eols[-1] = ""
        lines[sp.start : sp.end] = new
        eols[sp.start : sp.end] = new_eols
        new_hashes[sp.start : sp.end] = hash_lines(new) if new else []
        tail += len(new)
        same = same and new_eols.count(end) == len(new_eols)
    after = TextFile(tuple(lines), tuple(eols), tf.encoding, tf.bom)
    return (after.knowing_ends(end if lines else None) if same else after), new_hashes


def _in_order(splices: list[Splice]) -> list[Splice]:
    """Bottom-up, and at one start the region first (:func:`apply_splices`)."""
    if len(splices) < 2:
        return splices
    return sorted(splices, key=lambda s: (s.start, s.end > s.start), reverse=True)


def _spliced_alike(
    tf: TextFile, hashes: list[int], splices: list[Splice], end: str
) -> tuple[TextFile, list[int]]:
    """:func:`apply_splices` of a file whose lines, old and new, all end in ``end``: the
    terminators are that one string repeated (the list of the old ones is neither copied
    nor read)."""
    lines, new_hashes = list(tf.lines), list(hashes)
    for sp in _in_order(splices):
        lines[sp.start : sp.end] = sp.lines
        new_hashes[sp.start : sp.end] = hash_lines(list(sp.lines)) if sp.lines else []
    after = TextFile(tuple(lines), (end,) * len(lines), tf.encoding, tf.bom)
    return after.knowing_ends(end if lines else None), new_hashes


def merged_changes(splices: list[Splice]) -> list[Change]:
    """Touching splices merged, in new-file coordinates too."""
    if len(splices) == 1:  # the usual edit: nothing to sort or merge
        sp = splices[0]
        return [Change(sp.start, sp.end, sp.start, sp.start + len(sp.lines))]
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


def spliced_apart(
    tf: TextFile, hashes: list[int], splices: list[Splice], eol: str
) -> tuple[TextFile, list[int], list[Change]]:
    """``splices`` applied to ``tf`` (new lines ending in ``eol``), with any new line that would
    run into its neighbour given ``eol``; the new file, its hashes and the merged changes."""
    after, new_hashes = apply_splices(tf, hashes, splices, eol)
    changes = merged_changes(splices)
    if ends_apart(after):
        return after, new_hashes, changes
    fixed = kept_apart(after.lines, after.eols, changes, eol)
    if fixed:
        eols = list(after.eols)
        for i, end in fixed.items():
            eols[i] = end
        after = TextFile(after.lines, tuple(eols), after.encoding, after.bom)
    return after, new_hashes, changes

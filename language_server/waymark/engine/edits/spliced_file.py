"""The file an edit planned from its bytes wrote, kept as the file before it and one splice.

An edit planned from the bytes (from_bytes.py) decodes no file and makes no index; the next
full read of what it wrote would split every line and hash it again. Kept as the decoded file
and index before the edit, and the lines it replaced, the new file's lines are a copy of the
old ones with the splice applied, and its hashes and 6-char prefixes those of the old index
with only the new lines hashed: made when someone asks, not by the edit. Several edits in a
row fold into one splice (from the first line any of them touched to the last), so what is
kept stays the file before the first and the lines between.
"""

from __future__ import annotations

from waymark.engine.anchors import LineIndex, hash_lines
from waymark.engine.line_index import P6_SHIFT
from waymark.engine.text import TextFile

# Old lines [start, end) become ``lines``, each ended by its own of ``eols``.
Replaced = tuple[int, int, tuple[str, ...], tuple[str, ...]]


class SplicedFile:
    """``base`` (whose index is ``index``) with lines ``[start, end)`` replaced by
    ``lines`` ending in ``eols``: the file whose bytes are ``data``."""

    # Slots: an edit makes one, and its next edit another from it.
    __slots__ = ("_file", "base", "data", "edits", "end", "eols", "lines", "old_index", "start")

    def __init__(
        self, base: TextFile, index: LineIndex, replaced: Replaced, data: bytes, edits: int = 1
    ) -> None:
        self.base, self.old_index, self.data = base, index, data
        self.start, self.end, self.lines, self.eols = replaced
        self.edits = edits  # how many edits the splice folds
        self._file: TextFile | None = None

    def then(self, replaced: Replaced, data: bytes) -> SplicedFile:
        """This file with ``replaced`` (in its own line numbers) applied too: one splice of
        the base, from the first line either replaces to the last."""
        start, end, lines, eols = replaced
        at = self.start
        if at <= start and end <= at + len(self.lines):  # inside the lines replaced already
            k0, k1 = start - at, end - at
            inside = (
                at,
                self.end,
                self.lines[:k0] + lines + self.lines[k1:],
                self.eols[:k0] + eols + self.eols[k1:],
            )
            return SplicedFile(self.base, self.old_index, inside, data, self.edits + 1)
        shift = len(self.lines) - (self.end - self.start)
        first = min(self.start, start)
        last = max(self.start + len(self.lines), end)  # in this file's line numbers
        kept = (
            first,
            last - shift,
            self._own(first, start, True) + lines + self._own(end, last, True),
            self._own(first, start, False) + eols + self._own(end, last, False),
        )
        return SplicedFile(self.base, self.old_index, kept, data, self.edits + 1)

    def _own(self, a: int, b: int, texts: bool) -> tuple[str, ...]:
        """This file's lines (or their terminators) ``[a, b)``."""
        if a >= b:
            return ()
        old = self.base.lines if texts else self.base.eols
        new = self.lines if texts else self.eols
        start, stop = self.start, self.start + len(new)
        shift = len(new) - (self.end - self.start)
        return (
            old[a : min(b, start)]
            + new[max(a - start, 0) : max(min(b, stop) - start, 0)]
            + old[max(a, stop) - shift : max(b, stop) - shift]
        )

    @property
    def text_file(self) -> TextFile:
        """The new file, decoded as the old one was (made once)."""
        if self._file is None:
            base, a, b = self.base, self.start, self.end
            lines = base.lines[:a] + self.lines + base.lines[b:]
            eols = base.eols[:a] + self.eols + base.eols[b:]
            self._file = TextFile(lines, eols, base.encoding, base.bom, base.decision)
        return self._file

    def index(self) -> LineIndex:
        """The new file's index: the old hashes and prefixes with the splice's own."""
        old, a, b = self.old_index, self.start, self.end
        index = LineIndex(self.text_file.lines)
        hashes = old.__dict__.get("hashes")
        if hashes is None:
            return index
        new = hash_lines(self.lines)
        # A copy spliced in place: one pass over the pointers, not a slice and a join each.
        index.hashes = hashes = hashes.copy()
        hashes[a:b] = new
        # The old index made its column with its hashes (a read's), or has its tables.
        index.column = column = old.prefix_column().copy()
        column[a:b] = [h >> P6_SHIFT for h in new]
        return index

"""Line anchors: content hashes that name lines, so edits never depend on line numbers.

A line's hash is xxh3_64 of its UTF-8 bytes (lowercase hex, 16 chars). What a model sees is
the shortest *display anchor* that the resolution ladder maps back to exactly that line:

1. the 6-char prefix of the line hash, when no other line shares it;
2. a longer prefix (8, then 16 chars) when a *different* line shares the 6-char prefix;
3. for a line whose text repeats, the 6-char (8, 16) prefix of its context hash, xxh3_64 of
   ``prev_nonblank + "\\n" + line + "\\n" + next_nonblank``;
4. when even the context repeats (two blank lines in a row, copied blocks), the context
   prefix plus ``.N``: the N-th of its candidates in file order.

Resolving a token walks the same ladder: lines whose line hash starts with it; if none, lines
whose text repeats and whose context hash starts with it; then ``.N`` (or ``occurrence``)
picks among several. The display builder checks each token against that exact procedure, so
every displayed anchor resolves to exactly one line of the snapshot it was made from.
"""

from __future__ import annotations

import re
from abc import abstractmethod
from collections.abc import Iterator, Sequence
from functools import cached_property, partial
from itertools import count, repeat
from operator import is_
from typing import Any, NamedTuple, cast, overload

from waymark.engine import core
from waymark.engine.displays import displays
from waymark.engine.gc_pause import gc_paused
from waymark.engine.line_index import (
    HIGH,
    LOW,
    MEDIUM,
    P6_SHIFT,
    LineIndex,
    context_hash,
    hash_lines,
    line_hash,
    low_by_text,
    scatter,
    where,
)
from waymark.engine.text import TextFile

__all__ = [
    "HIGH",
    "LOW",
    "LOW_MARK",
    "MEDIUM",
    "TOKEN_RE",
    "AnchoredLine",
    "Annotated",
    "LineIndex",
    "Shown",
    "annotate",
    "annotate_range",
    "as_json",
    "changed_anchors",
    "context_hash",
    "gc_paused",
    "hash_lines",
    "line_hash",
    "numbered",
    "render",
]

LOW_MARK = "~"
TOKEN_RE = re.compile(r"^([0-9a-f]{6,16})(?:\.([1-9][0-9]*))?$")
_MARKS = {HIGH: "|", MEDIUM: "|", LOW: LOW_MARK + "|"}
# One ``%`` format per block of lines renders them with no Python call per line: a line whose
# token is its own 6-char prefix formats that from the integer, other tokens come as text.
_SPEC: dict[tuple[type, bool], str] = {
    (int, False): "%d#%06x|%s\n",
    (int, True): "%d#%06x~|%s\n",
    (str, False): "%d#%s|%s\n",
    (str, True): "%d#%s~|%s\n",
}
_BLOCK = 65_536


class AnchoredLine(NamedTuple):
    """One line with its display anchor. ``line`` is 1-based.

    A NamedTuple rather than a dataclass: a page builds one per line it shows, and tuple
    construction is several times cheaper than a frozen dataclass's.
    """

    line: int
    text: str
    hash: str
    quality: str

    @property
    def ref(self) -> str:
        """``LINE#HASH``, the form used in messages and ``neighbor_anchors``."""
        return f"{self.line}#{self.hash}"


_make_line = partial(tuple.__new__, AnchoredLine)


class Shown(Sequence[AnchoredLine]):
    """Anchored lines kept as columns: :func:`render` and :func:`as_json` ask the columns for
    the text and the line dicts (each made in one pass), not an :class:`AnchoredLine` per
    line."""

    @abstractmethod
    def render(self) -> str: ...

    @abstractmethod
    def as_json(self) -> list[dict[str, Any]]: ...

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


class Annotated(Shown):
    """Every line of a file with its anchor, kept as columns: the display tokens of the
    lines that do not show their own 6-char prefix, and the qualities that are not high.
    An :class:`AnchoredLine` is made only for a line that is asked for; :func:`render` and
    :func:`as_json` read the columns."""

    def __init__(self, index: LineIndex) -> None:
        self.lines = index.lines
        self._index = index
        native = core.native
        columns = None if native is None else native.annotate_columns(self.lines)
        if columns is not None:
            special, tokens, low, medium = columns
            # The ladder decides the rare lines the compiled core leaves open.
            for k in where(map(is_, tokens, repeat(None))):
                tokens[k] = index.display(special[k])
            self._special, self._tokens = special, cast(list[str], tokens)
            self._odd = dict.fromkeys(medium, MEDIUM) | dict.fromkeys(low, LOW)
            return
        # Lines sharing a 6-char prefix (repeated texts among them) show something else.
        self._special = index.shared
        self._tokens = displays(index, self._special)
        odd: dict[int, str] = {}
        repeated = index.repeated_lines
        if repeated:
            texts = list(map(self.lines.__getitem__, repeated))
            last_of = dict(zip(texts, repeated, strict=True))
            by_text = {text: index.quality(i) for text, i in last_of.items()}
            odd = dict(zip(repeated, map(by_text.__getitem__, texts), strict=True))
        odd.update(zip(low_by_text(self.lines), repeat(LOW)))
        self._odd = odd

    @cached_property
    def _p6(self) -> list[int]:
        return self._index.prefix_column()

    def hashes(self) -> list[str]:
        native = core.native
        out = list(map("%06x".__mod__, self._p6)) if native is None else native.hex_tokens(self._p6)
        scatter(out, self._special, self._tokens)
        return out

    def qualities(self) -> list[str]:
        out = [HIGH] * len(self.lines)
        scatter(out, self._odd.keys(), self._odd.values())
        return out

    def __len__(self) -> int:
        return len(self.lines)

    def __iter__(self) -> Iterator[AnchoredLine]:
        columns = zip(count(1), self.lines, self.hashes(), self.qualities())
        return map(_make_line, columns)

    @overload
    def __getitem__(self, i: int) -> AnchoredLine: ...
    @overload
    def __getitem__(self, i: slice) -> list[AnchoredLine]: ...
    def __getitem__(self, i: int | slice) -> AnchoredLine | list[AnchoredLine]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self.lines)))]
        k = range(len(self.lines))[i]
        token = self._special_at.get(k)
        hash_ = token if token is not None else f"{self._index.hashes[k] >> P6_SHIFT:06x}"
        return AnchoredLine(k + 1, self.lines[k], hash_, self._odd.get(k, HIGH))

    @cached_property
    def _special_at(self) -> dict[int, str]:
        return dict(zip(self._special, self._tokens, strict=True))

    def render(self) -> str:
        if core.native is not None:
            return self._render_native(core.native)
        tokens: list[int | str] = list(self._p6)
        scatter(tokens, self._special, self._tokens)
        specs = [_SPEC[int, False]] * len(tokens)
        scatter(specs, self._special, repeat(_SPEC[str, False]))
        low = [k for k, q in self._odd.items() if q == LOW]
        scatter(
            specs,
            low,
            map(_SPEC.__getitem__, zip(map(type, map(tokens.__getitem__, low)), repeat(True))),
        )
        out = []
        for start in range(0, len(tokens), _BLOCK):
            stop = start + _BLOCK
            args: list[object] = [None] * (3 * len(specs[start:stop]))
            args[0::3] = range(start + 1, start + 1 + len(args) // 3)
            args[1::3] = tokens[start:stop]
            args[2::3] = self.lines[start:stop]
            out.append("".join(specs[start:stop]) % tuple(args))
        return "".join(out)

    def _render_native(self, native: core.Core) -> str:
        tokens: list[str | None] = [None] * len(self.lines)
        scatter(tokens, self._special, self._tokens)
        low = bytearray(len(self.lines))
        for k, q in self._odd.items():
            if q == LOW:
                low[k] = 1
        return native.render(self.lines, tokens, bytes(low))

    def as_json(self) -> list[dict[str, Any]]:
        native = core.native
        if native is not None:
            odd = self._odd
            with gc_paused():
                return native.json_rows(
                    self.lines,
                    self._p6,
                    self._special,
                    self._tokens,
                    odd.keys(),
                    odd.values(),
                    HIGH,
                )
        columns = zip(count(1), self.lines, self.hashes(), self.qualities())
        with gc_paused():
            return [{"line": n, "text": t, "hash": h, "quality": q} for n, t, h, q in columns]


def annotate(tf: TextFile, index: LineIndex | None = None) -> Annotated:
    """Every line of ``tf`` with its display anchor and quality (``index``: its lines' index,
    if the caller has one)."""
    with gc_paused():
        return Annotated(LineIndex(tf.lines) if index is None else index)


def annotate_range(
    tf: TextFile, start: int, stop: int, index: LineIndex | None = None
) -> Sequence[AnchoredLine]:
    """Lines ``[start, stop)`` (0-based) of ``tf`` as :func:`annotate` shows them.

    A page costs the file's index (every line's hash, and the context hashes of repeated
    lines, which decide whether a token is unique) plus its own lines, not an anchored line
    for each of the file's lines; with the compiled core, a fresh index's hashes and one C
    pass over them."""
    stop = min(stop, len(tf.lines))
    if start >= stop:
        return []
    if start == 0 and stop == len(tf.lines):
        return annotate(tf, index)
    with gc_paused():
        index = LineIndex(tf.lines) if index is None else index
        if core.native is not None and not index.tables_made:
            page = _native_page(index, core.native, start, stop)
            if page is not None:
                return page
        return _anchored(index, list(range(start, stop)))


def _native_page(
    index: LineIndex, native: core.Core, start: int, stop: int
) -> Sequence[AnchoredLine] | None:
    """Lines ``[start, stop)`` from one pass of the compiled core over the file: cheaper
    than making the index's tables for a page (an index kept from an earlier call has them,
    and its pages cost only their lines). None where the core leaves the file to Python."""
    # Loaded with the first page, as the page of a file's bytes loads it.
    from waymark.engine.shown_page import page_of

    columns = native.annotate_columns(index.lines, start, stop)
    if columns is None:
        return None
    return page_of(native, index.lines[start:stop], start, columns, index.display)


def _anchored(index: LineIndex, at: list[int]) -> list[AnchoredLine]:
    shown = displays(index, at)
    return [
        AnchoredLine(i + 1, index.lines[i], token, index.quality(i))
        for i, token in zip(at, shown, strict=True)
    ]


def numbered(lines: Sequence[str], first: int) -> tuple[list[dict[str, Any]], str]:
    """``{line, text}`` per line and the text a read without anchors shows (``%6d``, a tab,
    the line), the first numbered ``first`` + 1."""
    if core.native is not None:
        return core.native.plain_rows(lines, first)
    rows = [{"line": first + k + 1, "text": text} for k, text in enumerate(lines)]
    return rows, "".join([f"{first + k + 1:6d}\t{text}\n" for k, text in enumerate(lines)])


def render(lines: Sequence[AnchoredLine]) -> str:
    """``LINE#HASH|text`` per line; a low-quality anchor is marked ``LINE#HASH~|text``."""
    if isinstance(lines, Shown):
        return lines.render()
    marks = _MARKS
    return "".join([f"{n}#{h}{marks[q]}{text}\n" for n, text, h, q in lines])


def as_json(lines: Sequence[AnchoredLine]) -> list[dict[str, Any]]:
    """``{line, text, hash, quality}`` per line, as a read's result lists them."""
    if isinstance(lines, Shown):
        return lines.as_json()
    return [a._asdict() for a in lines]


def changed_anchors(
    before: TextFile | None, after: TextFile, *, max_lines: int, max_file_lines: int
) -> list[AnchoredLine] | None:
    """The anchored lines ``after`` has where it differs from ``before``, so the next edit
    there needs no re-read; None when they are more than ``max_lines`` (the model reads them
    itself then) or the file is too long to index for a result (over ``max_file_lines``)."""
    # Imported here: diffing is not needed by the read path this module serves first.
    from waymark.engine.diff import opcodes

    if len(after.lines) > max_file_lines:
        return None
    old = () if before is None else before.lines
    changed = [
        j
        for tag, _, _, j1, j2 in opcodes(old, after.lines)
        if tag in ("insert", "replace")
        for j in range(j1, j2)
    ]
    if not changed or len(changed) > max_lines:
        return None
    return _anchored(LineIndex(after.lines), changed)

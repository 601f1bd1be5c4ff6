"""The anchor index as it was before issue 43's columnar rewrite: the straightforward reference
the differential tests hold the fast paths to (tokens, qualities, candidates, rendering)."""

from __future__ import annotations

import gc
import re
import string
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import cached_property, partial
from itertools import compress, count, repeat
from operator import itemgetter, not_, or_, rshift
from typing import NamedTuple

from xxhash import xxh3_64_hexdigest, xxh3_64_intdigest

from waymark.engine.text import TextFile

HIGH, MEDIUM, LOW = "high", "medium", "low"
LOW_MARK = "~"

_PUNCT_WS = string.punctuation + string.whitespace
_WORD = re.compile(r"\w+")
# A repeated line with at most this many words is boilerplate (`return None`, `display: flex;`).
_BOILERPLATE_WORDS = 2
_PREFIX_LENGTHS = (6, 8, 16)
TOKEN_RE = re.compile(r"^([0-9a-f]{6,16})(?:\.([1-9][0-9]*))?$")


class AnchoredLine(NamedTuple):
    """One line with its display anchor. ``line`` is 1-based.

    A NamedTuple rather than a dataclass: ``annotate`` builds one per line of 200k-line
    files, and tuple construction is several times cheaper than a frozen dataclass's.
    """

    line: int
    text: str
    hash: str
    quality: str

    @property
    def ref(self) -> str:
        """``LINE#HASH``, the form used in messages and ``neighbor_anchors``."""
        return f"{self.line}#{self.hash}"


# The bulk paths below map C functions over whole columns: at 200k lines, per-line Python
# bytecode would cost more than the hashing itself.
_make_line = partial(tuple.__new__, AnchoredLine)
# An index keeps each line hash as its 64-bit integer and the 6-char prefix as its top 24
# bits: no 200k hex strings and slices to count, and integer keys hash for free. Hex is made
# for the lines a result shows.
_P6_SHIFT = 40
_SCANS_BEFORE_TABLE = 8
_prefix6 = itemgetter(slice(0, 6))


_HEX = frozenset("0123456789abcdef")
_MARKS = {HIGH: "|", MEDIUM: "|", LOW: LOW_MARK + "|"}


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic GC around bulk work: building 200k acyclic tuples otherwise triggers
    full collections that cost more than the work itself."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _where(flags: Iterable[object]) -> list[int]:
    """Indices of the truthy flags."""
    return list(compress(count(), flags))


def line_hash(line: str) -> str:
    return xxh3_64_hexdigest(line.encode("utf-8", "surrogateescape"))


def hash_lines(lines: Sequence[str]) -> list[int]:
    """Full line hashes as integers, in bulk (map over C functions: no per-line bytecode)."""
    encoded = map(str.encode, lines, repeat("utf-8"), repeat("surrogateescape"))
    return list(map(xxh3_64_intdigest, encoded))


def _hex(value: int) -> str:
    return f"{value:016x}"


def _p6_key(token: str) -> int | None:
    """The top 24 bits a token's 6-char prefix names; None for a token that is not hex."""
    short = token[:6]
    return int(short, 16) if len(short) == 6 and _HEX.issuperset(short) else None


def context_hash(prev: str, line: str, nxt: str) -> str:
    return line_hash(f"{prev}\n{line}\n{nxt}")


class LineIndex:
    """Hashes and lookup tables of one snapshot's lines (0-based indices inside)."""

    def __init__(self, lines: Sequence[str], hashes: list[int] | None = None) -> None:
        self.lines = lines
        self.hashes = hashes if hashes is not None else hash_lines(lines)
        self.p6 = list(map(rshift, self.hashes, repeat(_P6_SHIFT)))
        self.p6_count = Counter(self.p6)
        if len(self.p6_count) == len(self.p6):
            self.shared: list[int] = []
        else:
            counts = self.p6_count
            several = set(compress(counts, map((1).__lt__, counts.values())))
            self.shared = _where(map(several.__contains__, self.p6))
        # Equal texts have equal prefixes, so only lines with a shared prefix can repeat:
        # counting those alone skips most of a large file.
        self.text_count = Counter(map(lines.__getitem__, self.shared))
        self._ctx: dict[int, str] | None = None
        self._p6_groups: dict[int, list[int]] | None = None
        self._p6_pos: dict[int, int] | None = None
        self._scans = 0
        self._repeated_lines: list[int] | None = None

    def repeated(self, i: int) -> bool:
        return self.text_count[self.lines[i]] > 1

    @property
    def repeated_lines(self) -> list[int]:
        """Indices of the lines whose text occurs more than once."""
        if self._repeated_lines is None:
            count, lines = self.text_count, self.lines
            self._repeated_lines = [i for i in self.shared if count[lines[i]] > 1]
        return self._repeated_lines

    @property
    def ctx(self) -> dict[int, str]:
        """Context hashes of every line whose text repeats (the only lines that use them)."""
        if self._ctx is None:
            self._ctx = self._context_hashes()
        return self._ctx

    def _context_hashes(self) -> dict[int, str]:
        lines = self.lines
        wanted = self.repeated_lines
        if not wanted:
            return {}
        nonblank = _where(map(str.strip, lines))
        out: dict[int, str] = {}
        k = 0  # nonblank[k] is the first non-blank index >= i
        for i in wanted:
            while k < len(nonblank) and nonblank[k] < i:
                k += 1
            prev = lines[nonblank[k - 1]] if k > 0 else ""
            j = k + 1 if k < len(nonblank) and nonblank[k] == i else k
            nxt = lines[nonblank[j]] if j < len(nonblank) else ""
            out[i] = context_hash(prev, lines[i], nxt)
        return out

    def _line_candidates(self, token: str) -> list[int]:
        short = _p6_key(token)
        count = 0 if short is None else self.p6_count.get(short, 0)
        if short is None or count == 0:
            return []
        found = [self._unique_position(short)] if count == 1 else list(self._shared_p6()[short])
        if len(token) > 6:
            found = [i for i in found if _hex(self.hashes[i]).startswith(token)]
        return found

    def _unique_position(self, short: int) -> int:
        # A page or an edit asks for a few lines: a scan in C each beats a table of every
        # line, which pays off only from a few dozen questions on.
        if self._p6_pos is None and self._scans < _SCANS_BEFORE_TABLE:
            self._scans += 1
            return self.p6.index(short)
        return self._p6_position()[short]

    def _p6_position(self) -> dict[int, int]:
        """Where each 6-char prefix occurs (the last place; used for unique prefixes only)."""
        if self._p6_pos is None:
            self._p6_pos = dict(zip(self.p6, range(len(self.p6)), strict=True))
        return self._p6_pos

    def _shared_p6(self) -> dict[int, list[int]]:
        """Lines by 6-char prefix, for prefixes that several lines share (blank lines, ...)."""
        if self._p6_groups is None:
            groups: dict[int, list[int]] = {}
            for i in self.shared:
                groups.setdefault(self.p6[i], []).append(i)
            self._p6_groups = groups
        return self._p6_groups

    def candidates(self, token: str) -> list[int]:
        """The ladder: line-hash prefix matches, else context-hash prefix matches."""
        found = self._line_candidates(token)
        if found:
            return found
        if len(token) >= 6:
            return self.ctx_matches(token)
        return [i for i, h in self.ctx.items() if h.startswith(token)]

    def ctx_matches(self, token: str) -> list[int]:
        """Repeated lines whose context hash starts with ``token`` (6 chars or more), in file
        order: a longer token filters its 6-char group, so only that table is built."""
        group = self.ctx_group6.get(token[:6], ())
        if len(token) == 6:
            return list(group)
        ctx = self.ctx
        return [j for j in group if ctx[j].startswith(token)]

    @cached_property
    def ctx_group6(self) -> dict[str, list[int]]:
        """Repeated lines by the 6-char prefix of their context hash, in file order."""
        groups: dict[str, list[int]] = {}
        for i, h in self.ctx.items():
            groups.setdefault(h[:6], []).append(i)
        return groups

    def display(self, i: int) -> str:
        """The shortest token that resolves to line ``i`` alone (see module docstring)."""
        if not self.repeated(i):
            h = _hex(self.hashes[i])
            if self.p6_count[self.p6[i]] == 1:
                return h[:6]
            group = self._line_candidates(h[:6])
            for n in _PREFIX_LENGTHS[1:]:
                if sum(1 for j in group if _hex(self.hashes[j]).startswith(h[:n])) == 1:
                    return h[:n]
            return self._with_rank(h, i)
        c = self.ctx[i]
        for n in _PREFIX_LENGTHS:
            if self._line_candidates(c[:n]):
                continue  # the ladder would stop at those lines first
            if len(self.ctx_matches(c[:n])) == 1:
                return c[:n]
        return self._with_rank(c, i)

    def _with_rank(self, full: str, i: int) -> str:
        for n in _PREFIX_LENGTHS:
            token = full[:n]
            found = self.candidates(token)
            if i in found:
                return f"{token}.{found.index(i) + 1}"
        raise AssertionError("a line is always among its own hash's candidates")

    def quality(self, i: int) -> str:
        line = self.lines[i]
        if not line.strip(_PUNCT_WS):
            return LOW
        if self.text_count[line] > 1:
            return LOW if len(_WORD.findall(line)) <= _BOILERPLATE_WORDS else MEDIUM
        return HIGH


@gc_paused()
def annotate(tf: TextFile) -> list[AnchoredLine]:
    """Every line of ``tf`` with its display anchor and quality."""
    lines = tf.lines
    index = LineIndex(lines)
    displays = list(map("%06x".__mod__, index.p6))
    qualities = [HIGH] * len(lines)
    repeated = index.repeated_lines
    if repeated:
        ctx, groups, p6_count = index.ctx, index.ctx_group6, index.p6_count
        # Columns in C (map, and list.__setitem__ to scatter), Python only for the few
        # tokens that are not a unique 6-char context prefix and for each distinct text.
        shown = list(map(_prefix6, map(ctx.__getitem__, repeated)))
        list(map(displays.__setitem__, repeated, shown))
        alone = map((1).__eq__, map(len, map(groups.__getitem__, shown)))
        taken = map(p6_count.__contains__, map(int, shown, repeat(16)))
        for i in compress(repeated, map(or_, taken, map(not_, alone))):
            displays[i] = index.display(i)
        texts = list(map(lines.__getitem__, repeated))
        last_of = dict(zip(texts, repeated, strict=True))
        by_text = {text: index.quality(i) for text, i in last_of.items()}
        list(map(qualities.__setitem__, repeated, map(by_text.__getitem__, texts)))
    for i in index.shared:
        if not index.repeated(i):
            displays[i] = index.display(i)
    for i in _where(map(not_, map(str.strip, lines, repeat(_PUNCT_WS)))):
        qualities[i] = LOW
    return list(
        map(_make_line, zip(range(1, len(lines) + 1), lines, displays, qualities, strict=True))
    )


def annotate_range(tf: TextFile, start: int, stop: int) -> list[AnchoredLine]:
    """Lines ``[start, stop)`` (0-based) of ``tf`` as :func:`annotate` shows them.

    A page costs the file's index (every line's hash, and the context hashes of repeated
    lines, which decide whether a token is unique) plus its own lines, not an anchored line
    for each of the file's lines."""
    stop = min(stop, len(tf.lines))
    if start >= stop:
        return []
    if start == 0 and stop == len(tf.lines):
        return annotate(tf)
    with gc_paused():
        index = LineIndex(tf.lines)
        lines = tf.lines
        return [
            AnchoredLine(i + 1, lines[i], index.display(i), index.quality(i))
            for i in range(start, stop)
        ]


def render(lines: Sequence[AnchoredLine]) -> str:
    """``LINE#HASH|text`` per line; a low-quality anchor is marked ``LINE#HASH~|text``."""
    marks = _MARKS
    return "".join([f"{n}#{h}{marks[q]}{text}\n" for n, text, h, q in lines])

"""The index behind line anchors: every line's hash, who shares its prefix, which texts repeat.

docs/anchored-edits.md is the contract; :mod:`waymark.engine.anchors` shows what this index
decides. The bulk paths map C functions over whole columns: at 200k lines, per-line Python
bytecode would cost more than the hashing itself.
"""

from __future__ import annotations

import re
import string
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cached_property
from itertools import compress, count, repeat
from operator import add, itemgetter, not_, rshift
from typing import TypeVar

from xxhash import xxh3_64_hexdigest, xxh3_64_intdigest

from waymark.engine import core

HIGH, MEDIUM, LOW = "high", "medium", "low"

_PUNCT_WS = string.punctuation + string.whitespace
_WORD = re.compile(r"\w+")
# A repeated line with at most this many words is boilerplate (`return None`, `display: flex;`).
_BOILERPLATE_WORDS = 2
_PREFIX_LENGTHS = (6, 8, 16)
# An index keeps each line hash as its 64-bit integer and the 6-char prefix as its top 24
# bits: no 200k hex strings and slices to count, and integer keys hash for free. Hex is made
# for the lines a result shows.
P6_SHIFT = 40
_SCANS_BEFORE_TABLE = 8
_SHORT_WALK = 8  # blank lines walked over before searching the list of non-blank lines
_HEX = frozenset("0123456789abcdef")
_TABLES = frozenset({"p6", "p6_count", "shared", "several", "text_count"})
_prefix6 = itemgetter(slice(0, 6))
_T = TypeVar("_T")


def where(flags: Iterable[object]) -> list[int]:
    """Indices of the truthy flags."""
    return list(compress(count(), flags))


def scatter(target: list[_T], indices: Iterable[int], values: Iterable[_T]) -> None:
    """``target[i] = v`` for each pair, in C."""
    list(map(target.__setitem__, indices, values))


def line_hash(line: str) -> str:
    return xxh3_64_hexdigest(line.encode("utf-8", "surrogateescape"))


def hash_lines(lines: Sequence[str]) -> list[int]:
    """Full line hashes as integers, in bulk (map over C functions: no per-line bytecode)."""
    if core.native is not None:
        return core.native.hash_lines(lines)
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


def low_by_text(lines: Sequence[str]) -> list[int]:
    """Lines that are blank or only ASCII punctuation: low whatever else the file holds."""
    if core.native is not None:
        return core.native.low_by_text(lines)
    return where(map(not_, map(str.strip, lines, repeat(_PUNCT_WS))))


class LineIndex:
    """Hashes and lookup tables of one snapshot's lines (0-based indices inside).

    The hashes and tables are made on first use: a full read through the compiled core needs
    none of them, an edit's resolution needs them all."""

    hashes: list[int]
    p6: list[int]
    p6_count: Counter[int]  # an edited file's may hold a prefix at 0: absent (edits/reindex.py)
    shared: list[int]
    several: set[int]  # the 6-char prefixes several lines share
    text_count: Counter[str]

    def __init__(self, lines: Sequence[str], hashes: list[int] | None = None) -> None:
        self.lines = lines
        if hashes is not None:
            self.hashes = hashes
        self._ctx: dict[int, str] | None = None
        self._p6_groups: dict[int, list[int]] = {}
        self._group_scans = 0
        self._p6_pos: dict[int, int] | None = None
        self._known_pos: dict[int, int] = {}
        self._scans = 0
        self._ctx_pos: dict[str, int] | None = None
        self._ctx_scans = 0
        self._repeated_lines: list[int] | None = None
        # The prefix column made without the tables, or handed on (edits/spliced_file.py).
        self.column: list[int] | None = None

    def __getattr__(self, name: str) -> object:
        if name == "hashes":
            self.hashes = hash_lines(self.lines)
            return self.hashes
        if name not in _TABLES:
            raise AttributeError(name)
        self._tables()
        return self.__dict__[name]

    def _tables(self) -> None:
        self.several = set()
        self.p6, self.p6_count, self.shared = self._prefix_columns()
        self.column = None  # p6 is that column now
        # Equal texts have equal prefixes, so only lines with a shared prefix can repeat:
        # counting those alone skips most of a large file.
        self.text_count = Counter(map(self.lines.__getitem__, self.shared))

    def _prefix_columns(self) -> tuple[list[int], Counter[int], list[int]]:
        """Each line's 6-char prefix, how many lines have each, the lines sharing one."""
        native = core.native
        if native is None:
            return self._derived_columns()
        counts: Counter[int] = Counter()
        p6, shared, self.several = native.prefixes(self.hashes, P6_SHIFT, counts)
        return p6, counts, shared

    def _derived_columns(self) -> tuple[list[int], Counter[int], list[int]]:
        self.p6 = self._prefixes()
        self.p6_count = self._prefix_counts()
        return self.p6, self.p6_count, self._shared_lines()

    @property
    def tables_made(self) -> bool:
        return "p6" in self.__dict__

    def prefix_column(self) -> list[int]:
        """Each line's 6-char prefix, without making the tables counted from them (kept)."""
        made: list[int] | None = self.__dict__.get("p6", self.column)
        if made is None:
            made = self.column = LineIndex._prefixes(self)
        return made

    # An edit's index (engine/edits/reindex.py) derives these three from the old file's.
    def _prefixes(self) -> list[int]:
        return list(map(rshift, self.hashes, repeat(P6_SHIFT)))

    def _prefix_counts(self) -> Counter[int]:
        return Counter(self.p6)

    def _shared_lines(self) -> list[int]:
        counts = self.p6_count
        if len(counts) == len(self.p6):
            return []
        self.several = set(compress(counts, map((1).__lt__, counts.values())))
        return where(map(self.several.__contains__, self.p6))

    def repeated(self, i: int) -> bool:
        return self.text_count.get(self.lines[i], 0) > 1

    @property
    def repeated_lines(self) -> list[int]:
        """Indices of the lines whose text occurs more than once."""
        if self._repeated_lines is None:
            counts, lines = self.text_count, self.lines
            texts = map(lines.__getitem__, self.shared)
            self._repeated_lines = list(
                compress(self.shared, map((1).__lt__, map(counts.__getitem__, texts)))
            )
        return self._repeated_lines

    @property
    def ctx_known(self) -> bool:
        """Whether the context hashes were computed already (an edit's index reuses them)."""
        return self._ctx is not None

    @property
    def ctx(self) -> dict[int, str]:
        """Context hashes of every line whose text repeats (the only lines that use them)."""
        if self._ctx is None:
            self._ctx = self._context_hashes()
        return self._ctx

    def _neighbours(self, wanted: list[int], step: int) -> list[str]:
        """The nearest non-blank line before (``step`` -1) or after (+1) each wanted line
        (ascending), ``""`` past the file's edge: the next line in C; where it is blank, the
        answer of that line when it is wanted too (a run of repeated blank lines), else a
        short walk, or a search in the non-blank lines past a long blank run."""
        lines, n = self.lines, len(self.lines)
        at = list(map(add, wanted, repeat(step)))
        edge = 0 if step < 0 else len(at) - 1
        off = not 0 <= at[edge] < n
        if off:
            at[edge] = wanted[edge]  # any line: its answer is overwritten below
        found = list(map(lines.__getitem__, at))
        nonblank: list[int] | None = None
        blank = where(map(not_, map(str.strip, found)))
        for k in blank if step < 0 else reversed(blank):
            j = at[k]
            if 0 <= k + step < len(at) and wanted[k + step] == j:
                found[k] = found[k + step]  # a wanted blank line: its answer is already known
                continue
            for _ in range(_SHORT_WALK):
                if not 0 <= j < n or lines[j].strip():
                    break
                j += step
            else:
                if nonblank is None:
                    nonblank = where(map(str.strip, lines))
                m = bisect_left(nonblank, j) if step > 0 else bisect_right(nonblank, j) - 1
                j = nonblank[m] if 0 <= m < len(nonblank) else -1
            found[k] = lines[j] if 0 <= j < n else ""
        if off:
            found[edge] = ""
        return found

    def _context_hashes(self) -> dict[int, str]:
        return self.context_hashes_of(self.repeated_lines)

    def context_hashes_of(self, wanted: list[int]) -> dict[int, str]:
        """Context hashes of these lines (ascending), whether or not their text repeats."""
        if not wanted:
            return {}
        if core.native is not None:
            return dict(zip(wanted, core.native.context_hashes(self.lines, wanted), strict=True))
        texts = map(self.lines.__getitem__, wanted)
        joined = map(
            "%s\n%s\n%s".__mod__,
            zip(self._neighbours(wanted, -1), texts, self._neighbours(wanted, 1), strict=True),
        )
        encoded = map(str.encode, joined, repeat("utf-8"), repeat("surrogateescape"))
        return dict(zip(wanted, map(xxh3_64_hexdigest, encoded), strict=True))

    def _line_candidates(self, token: str) -> list[int]:
        short = _p6_key(token)
        count = 0 if short is None else self.p6_count.get(short, 0)
        if short is None or count == 0:
            return []
        found = [self.position(short)] if count == 1 else list(self.p6_group(short))
        if len(token) > 6:
            found = [i for i in found if _hex(self.hashes[i]).startswith(token)]
        return found

    def position(self, short: int) -> int:
        """Where the one line whose 6-char prefix is ``short`` is."""
        known = self._known_pos.get(short)
        if known is not None:
            return known
        # A page or an edit asks for a few lines: a scan in C each beats a table of every
        # line, which pays off only from a few dozen questions on.
        if self._p6_pos is None and self._scans < _SCANS_BEFORE_TABLE:
            self._scans += 1
            return self.p6.index(short)
        if self._p6_pos is None:
            self._p6_pos = dict(zip(self.p6, range(len(self.p6)), strict=True))
        return self._p6_pos[short]

    def learn_positions(self, keys: set[int]) -> None:
        """Where the lines with these (unique) 6-char prefixes are, in one pass in C."""
        keys -= self._known_pos.keys()
        if keys:
            at = where(map(keys.__contains__, self.p6))
            self._known_pos.update(zip(map(self.p6.__getitem__, at), at, strict=True))

    def p6_group(self, short: int) -> list[int]:
        """The lines whose 6-char prefix is ``short``, one that several lines share."""
        groups = self._p6_groups
        if short not in groups:
            # One pass over the shared lines per question, until a table of them all is
            # cheaper (as for unique prefixes).
            self._group_scans += 1
            wanted = set(self.several) if self._group_scans > _SCANS_BEFORE_TABLE else {short}
            self.learn_groups(wanted)
        return groups[short]

    def learn_groups(self, keys: set[int]) -> None:
        """The lines of each of these shared 6-char prefixes, in one pass in C."""
        keys -= self._p6_groups.keys()
        if keys:
            p6, groups = self.p6, self._p6_groups
            groups.update((key, []) for key in keys)
            for i in compress(
                self.shared, map(keys.__contains__, map(p6.__getitem__, self.shared))
            ):
                groups[p6[i]].append(i)

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
        order: a longer token filters its 6-char group."""
        group = self.ctx_group(token[:6])
        if len(token) == 6:
            return list(group)
        ctx = self.ctx
        return [j for j in group if ctx[j].startswith(token)]

    @cached_property
    def _ctx6(self) -> tuple[list[int], list[str], Counter[str]]:
        """The repeated lines, the 6-char prefixes of their context hashes, and how many
        lines have each prefix: counted in C, grouped only where several share one."""
        prefixes = list(map(_prefix6, self.ctx.values()))
        return list(self.ctx), prefixes, Counter(prefixes)

    @property
    def ctx_counts6(self) -> Counter[str]:
        """How many repeated lines have each 6-char context prefix."""
        return self._ctx6[2]

    @cached_property
    def _ctx_shared6(self) -> dict[str, list[int]]:
        at, prefixes, counts = self._ctx6
        several = set(compress(counts, map((1).__lt__, counts.values())))
        groups: dict[str, list[int]] = {}
        for k in where(map(several.__contains__, prefixes)):
            groups.setdefault(prefixes[k], []).append(at[k])
        return groups

    def ctx_group(self, c6: str) -> list[int]:
        """Repeated lines whose context hash starts with the 6 chars ``c6``, in file order."""
        at, prefixes, counts = self._ctx6
        found = counts.get(c6, 0)
        if found != 1:
            return self._ctx_shared6[c6] if found else []
        if self._ctx_pos is None and self._ctx_scans < _SCANS_BEFORE_TABLE:
            self._ctx_scans += 1
            return [at[prefixes.index(c6)]]
        if self._ctx_pos is None:
            self._ctx_pos = dict(zip(prefixes, at, strict=True))
        return [self._ctx_pos[c6]]

    def display(self, i: int) -> str:
        """The shortest token that resolves to line ``i`` alone (see docs/anchored-edits.md)."""
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
        line = self.lines[i]  # punctuation alone is low whatever the file holds: not counted
        if not line.strip(_PUNCT_WS):
            return LOW
        # get, not [ ]: most texts are not in the counts, and a Counter's miss is a Python call.
        texts = self.text_count.get(line, 0)
        return HIGH if texts <= 1 else quality_of(line, texts)


def quality_of(line: str, texts: int) -> str:
    """A line's quality, given how many lines of the file have its text."""
    if not line.strip(_PUNCT_WS):
        return LOW
    if texts > 1:
        return LOW if len(_WORD.findall(line)) <= _BOILERPLATE_WORDS else MEDIUM
    return HIGH

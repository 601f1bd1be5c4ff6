"""Sets of characters as sorted code-point ranges, the form the regex analysis reasons about.

Determinism checks need set intersection, and emission needs an exact Python class; both are
simple on merged ranges. POSIX classes and ``\\w`` come from glibc's C.UTF-8 tables measured
through GNU sed (``ctype.py``); ``locale`` marks sets a newer glibc may grow by code points
unassigned in the tables' Unicode version, so the simulation refuses text holding those.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from waymark.engine.sed.ctype import CLASSES, UNASSIGNED

MAX_CODE_POINT = 0x10FFFF
NEWLINE = 0x0A

Ranges = tuple[tuple[int, int], ...]


def _merge(ranges: list[tuple[int, int]]) -> Ranges:
    ordered = sorted(ranges)
    merged: list[tuple[int, int]] = []
    for low, high in ordered:
        if merged and low <= merged[-1][1] + 1:
            if high > merged[-1][1]:
                merged[-1] = (merged[-1][0], high)
        else:
            merged.append((low, high))
    return tuple(merged)


def _complement(ranges: Ranges, upper: int = MAX_CODE_POINT) -> Ranges:
    result: list[tuple[int, int]] = []
    next_low = 0
    for low, high in ranges:
        if low > next_low:
            result.append((next_low, low - 1))
        next_low = high + 1
    if next_low <= upper:
        result.append((next_low, upper))
    return tuple(result)


@dataclass(frozen=True)
class CharSet:
    """One character drawn from ``ranges``; ``locale``: non-ASCII membership is locale-defined."""

    ranges: Ranges
    locale: bool = False

    @staticmethod
    def of(*chars: str) -> CharSet:
        return CharSet(_merge([(ord(c), ord(c)) for c in chars]))

    @staticmethod
    def span(low: str, high: str) -> CharSet:
        return CharSet(((ord(low), ord(high)),))

    @staticmethod
    def anything() -> CharSet:
        return CharSet(((0, MAX_CODE_POINT),))

    def union(self, other: CharSet) -> CharSet:
        return CharSet(_merge([*self.ranges, *other.ranges]), self.locale or other.locale)

    def negate(self) -> CharSet:
        return CharSet(_complement(self.ranges), self.locale)

    def single(self) -> str | None:
        """The one character of the set, or None."""
        if len(self.ranges) == 1 and self.ranges[0][0] == self.ranges[0][1] and not self.locale:
            return chr(self.ranges[0][0])
        return None

    def analysis_ranges(self) -> Ranges:
        """Ranges that over-approximate membership: locale sets may hold unassigned code points."""
        if self.locale:
            return _merge([*self.ranges, *UNASSIGNED])
        return self.ranges

    def intersects(self, other: CharSet) -> bool:
        mine, theirs = self.analysis_ranges(), other.analysis_ranges()
        i = j = 0
        while i < len(mine) and j < len(theirs):
            if mine[i][1] < theirs[j][0]:
                i += 1
            elif theirs[j][1] < mine[i][0]:
                j += 1
            else:
                return True
        return False

    @lru_cache(maxsize=256)  # noqa: B019 - sets are few and immutable; glibc's are large
    def to_python(self, exclude_newline: bool, ascii_only: bool = False) -> str:
        """An exact Python ``re`` atom for this set (a glibc-table set: on ASCII text only, if
        ``ascii_only``)."""
        ranges = self.ranges
        if ascii_only and self.locale:
            ranges = tuple((low, min(high, 0x7F)) for low, high in ranges if low <= 0x7F)
        if exclude_newline:
            ranges = _merge(
                [(lo, hi) for lo, hi in ranges if hi < NEWLINE or lo > NEWLINE]
                + [(lo, NEWLINE - 1) for lo, hi in ranges if lo < NEWLINE <= hi]
                + [(NEWLINE + 1, hi) for lo, hi in ranges if lo <= NEWLINE < hi]
            )
        if not ranges:
            return "(?!)"
        if len(ranges) == 1 and ranges[0][0] == ranges[0][1]:
            return _escape(ranges[0][0])
        if ranges[-1][1] == MAX_CODE_POINT:
            missing = _complement(ranges)
            return "[^" + _class_body(missing) + "]" if missing else "(?s:.)"
        return "[" + _class_body(ranges) + "]"


@lru_cache(maxsize=256)
def spelled(text: str) -> str:
    """How the emitted source spells ``text`` as a run of single characters (asked once per
    piece of a file: cached)."""
    return "".join(_escape(ord(char)) for char in text)


def _escape(code: int) -> str:
    char = chr(code)
    if char.isascii() and char.isalnum():
        return char
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _class_body(ranges: Ranges) -> str:
    parts = []
    for low, high in ranges:
        if low == high:
            parts.append(_escape(low))
        else:
            parts.append(_escape(low) + "-" + _escape(high))
    return "".join(parts)


# Classes whose members are letters, digits or symbols of every script: a newer glibc may add
# code points unassigned in the tables' Unicode version. The others are settled.
_GROWING = {"alpha", "upper", "lower", "alnum", "punct", "print", "graph"}


def posix_class(name: str) -> CharSet | None:
    """``[:name:]`` in C.UTF-8, from the tables measured through GNU sed."""
    ranges = CLASSES.get(name)
    if ranges is None:
        return None
    return CharSet(ranges, locale=name in _GROWING)


WORD = CharSet(_merge([*CLASSES["alnum"], (0x5F, 0x5F)]), locale=True)
SPACE = CharSet(CLASSES["space"])

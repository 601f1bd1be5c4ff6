"""Sets of characters as sorted code-point ranges, the form the regex analysis reasons about.

Determinism checks need set intersection, and emission needs an exact Python class; both are
simple on merged ranges. ``locale`` marks sets whose non-ASCII members depend on the glibc
locale tables (``\\w``, ``[[:alpha:]]``, ...; not ``\\s``, whose few non-ASCII members are
listed here): they are emitted ASCII-only and the simulation refuses non-ASCII input for them.
"""

from __future__ import annotations

from dataclasses import dataclass

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
        if self.locale:
            # Only the ASCII part is known; the complement of a locale class is locale-defined too.
            ascii_part = tuple((lo, min(hi, 0x7F)) for lo, hi in self.ranges if lo <= 0x7F)
            return CharSet(_complement(ascii_part, 0x7F), locale=True)
        return CharSet(_complement(self.ranges))

    def single(self) -> str | None:
        """The one character of the set, or None."""
        if len(self.ranges) == 1 and self.ranges[0][0] == self.ranges[0][1] and not self.locale:
            return chr(self.ranges[0][0])
        return None

    def analysis_ranges(self) -> Ranges:
        """Ranges that over-approximate membership: locale sets may hold any non-ASCII char."""
        if self.locale:
            return _merge([*self.ranges, (0x80, MAX_CODE_POINT)])
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

    def to_python(self, exclude_newline: bool) -> str:
        """An exact Python ``re`` atom for this set (ASCII part only for locale sets)."""
        ranges = self.ranges
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


# glibc's C.UTF-8 space and blank classes beyond ASCII (measured against GNU sed 4.9, and the
# same in every glibc since Unicode 6.3 dropped U+180E): Unicode spaces without no-break ones.
_UNICODE_BLANKS = [
    (0x1680, 0x1680),
    (0x2000, 0x2006),
    (0x2008, 0x200A),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
]
_UNICODE_SPACES = [*_UNICODE_BLANKS, (0x2028, 0x2029)]

_ASCII_CLASSES: dict[str, tuple[list[tuple[int, int]], bool]] = {
    "digit": ([(0x30, 0x39)], False),
    "xdigit": ([(0x30, 0x39), (0x41, 0x46), (0x61, 0x66)], False),
    "alpha": ([(0x41, 0x5A), (0x61, 0x7A)], True),
    "upper": ([(0x41, 0x5A)], True),
    "lower": ([(0x61, 0x7A)], True),
    "alnum": ([(0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A)], True),
    "space": ([(0x09, 0x0D), (0x20, 0x20), *_UNICODE_SPACES], False),
    "blank": ([(0x09, 0x09), (0x20, 0x20), *_UNICODE_BLANKS], False),
    "punct": ([(0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E)], True),
    "print": ([(0x20, 0x7E)], True),
    "graph": ([(0x21, 0x7E)], True),
    "cntrl": ([(0x00, 0x1F), (0x7F, 0x7F)], True),
}


def posix_class(name: str) -> CharSet | None:
    """``[:name:]`` in C.UTF-8: digit, xdigit, space and blank are exact, the others locale sets."""
    entry = _ASCII_CLASSES.get(name)
    if entry is None:
        return None
    ranges, locale = entry
    return CharSet(_merge(ranges), locale)


WORD = CharSet(_merge([(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)]), locale=True)
SPACE = CharSet(_merge(_ASCII_CLASSES["space"][0]))

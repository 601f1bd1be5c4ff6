"""glibc's C.UTF-8 character classes and case maps as GNU sed applies them, decoded once.

The tables (``ctype_data.py``) were measured through GNU sed itself. A code point unassigned in
their Unicode version may be classified or mapped by a newer glibc, so text holding one is
declined wherever these tables decide the result.
"""

from __future__ import annotations

import re
from functools import cache

from waymark.engine.sed import ctype_data

Ranges = tuple[tuple[int, int], ...]


def _ranges(text: str) -> Ranges:
    pairs = (item.split("-") for item in text.split(","))
    return tuple((int(low, 16), int(high, 16)) for low, high in pairs)


def _map(text: str) -> dict[int, int]:
    mapping: dict[int, int] = {}
    for run in text.split(","):
        first, count, delta, stride = (int(part, 16) for part in run.split(":"))
        for step in range(count):
            code = first + step * stride
            mapping[code] = code + delta
    return mapping


_NAMES = ("alpha", "upper", "lower", "punct", "graph", "cntrl", "space", "blank")
CLASSES: dict[str, Ranges] = {
    name: _ranges(getattr(ctype_data, f"{name.upper()}_RANGES"))
    for name in (*_NAMES, "digit", "xdigit")
}
# The generator checked these identities against glibc; the parts are disjoint.
CLASSES["alnum"] = tuple(sorted(CLASSES["alpha"] + CLASSES["digit"]))
CLASSES["print"] = tuple(
    sorted(CLASSES["graph"] + tuple(r for r in CLASSES["blank"] if r != (0x09, 0x09)))
)
UNASSIGNED: Ranges = _ranges(ctype_data.UNASSIGNED_RANGES)


@cache
def case_map(upper: bool) -> dict[int, int]:
    """glibc's towupper (or towlower) where it changes a code point, for ``str.translate``."""
    return _map(ctype_data.UPPER_RUNS if upper else ctype_data.LOWER_RUNS)


@cache
def _unassigned_char() -> re.Pattern[str]:
    return re.compile(
        "[" + "".join(f"\\U{low:08x}-\\U{high:08x}" for low, high in UNASSIGNED) + "]"
    )


def has_unassigned(text: str) -> bool:
    """Whether ``text`` holds a code point the tables cannot vouch for."""
    return not text.isascii() and _unassigned_char().search(text) is not None

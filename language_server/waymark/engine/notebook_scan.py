"""Where a notebook's parts sit in its text: the top-level members, the cells array, each
cell's JSON and the whitespace between cells, so an edit can splice around them.

The text has already parsed as a JSON object (:func:`waymark.engine.notebook.parse_notebook`
checks that first); ``json`` accepts a key twice, this scanner notes it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

_DECODER = json.JSONDecoder()
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_scanstring = json.decoder.scanstring  # type: ignore[attr-defined]


def _skip(text: str, at: int) -> int:
    return _WHITESPACE.match(text, at).end()  # type: ignore[union-attr]


@dataclass
class Scan:
    """Where the members of the top-level object and the cells array sit in the text."""

    keys: list[str] = field(default_factory=list)
    key_sep: str = ": "
    opening: str = ""  # the whitespace after the top-level "{"
    separator: str = ","  # the first member's comma and the whitespace after it
    cells: list[tuple[int, int]] = field(default_factory=list)
    separators: list[str] = field(default_factory=list)
    open: int = -1
    close: int = -1
    duplicate: str | None = None  # the first top-level key the text has twice


def scan_text(text: str) -> Scan:
    scan = Scan()
    at = _skip(text, 0)
    at = _skip(text, at + 1)  # "{" (json.loads accepted the text and it is an object)
    scan.opening = text[text.index("{") + 1 : at]
    while text[at] != "}":
        key, after_key = _scanstring(text, at + 1)
        value_at = _skip(text, after_key + 1)
        if not scan.keys:
            scan.key_sep = text[after_key:value_at]
        if key in scan.keys and scan.duplicate is None:
            scan.duplicate = key
        scan.keys.append(key)
        if key == "cells" and text[value_at] == "[":
            end = _scan_cells(text, value_at, scan)
        else:
            _, end = _DECODER.raw_decode(text, value_at)
        at = _skip(text, end)
        if text[at] == ",":
            if len(scan.keys) == 1:
                scan.separator = text[end : _skip(text, at + 1)]
            at = _skip(text, at + 1)
    return scan


def _scan_cells(text: str, at: int, scan: Scan) -> int:
    scan.open = at
    at = _skip(text, at + 1)
    while text[at] != "]":
        _, end = _DECODER.raw_decode(text, at)
        scan.cells.append((at, end))
        at = _skip(text, end)
        if text[at] == ",":
            following = _skip(text, at + 1)
            scan.separators.append(text[end:following])
            at = following
    scan.close = at + 1
    return scan.close

"""How a notebook file writes its JSON, so that the cells an edit writes anew look like the
cells around them: indent, separators, key order, ``ensure_ascii``, sources as lists of lines,
and the line ending of its layout (a notebook saved on Windows has CRLF between its lines;
``json.dumps`` knows only ``\\n``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_ESCAPED_NON_ASCII = re.compile(r"\\u(?:00[89a-fA-F]|0[1-9a-fA-F]|[1-9a-fA-F])")


@dataclass(frozen=True)
class Style:
    """How the file writes JSON; new cells are written the same way."""

    indent: str | None
    item_sep: str
    key_sep: str
    sort_keys: bool
    ensure_ascii: bool
    split_source: bool  # sources as lists of lines, the way Jupyter writes them
    newline: str = "\n"


def style_of(
    text: str, opening: str, separator: str, key_sep: str, sort_keys: bool, cells: list[Any]
) -> Style:
    """The style of ``text``, whose top-level ``{`` is followed by the whitespace ``opening``
    and whose first member by ``separator`` (its comma and the whitespace after it)."""
    layout, newline, indent = opening.rpartition("\n")
    return Style(
        indent=indent if newline else None,
        item_sep=separator.partition("\n")[0].removesuffix("\r"),
        key_sep=key_sep,
        sort_keys=sort_keys,
        ensure_ascii=not any(ord(ch) > 0x7F for ch in text)
        and bool(_ESCAPED_NON_ASCII.search(text)),
        split_source=not cells or any(isinstance(c["source"], list) for c in cells),
        newline="\r\n" if layout.endswith("\r") else "\n",
    )


def line_break(style: Style, depth: int) -> str:
    """What starts a line at ``depth`` in the file's layout ("" for JSON on one line)."""
    return "" if style.indent is None else style.newline + style.indent * depth


def dump(value: object, style: Style, depth: int) -> str:
    text = json.dumps(
        value,
        indent=style.indent,
        separators=(style.item_sep, style.key_sep),
        sort_keys=style.sort_keys,
        ensure_ascii=style.ensure_ascii,
    )
    # json.dumps escapes newlines inside strings: every newline here is layout.
    return text.replace("\n", line_break(style, depth))

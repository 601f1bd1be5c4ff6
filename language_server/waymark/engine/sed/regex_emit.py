"""A parsed regex written as Python ``re`` source: for a whole buffer or one pattern space,
with glibc's class tables in full or cut to ASCII."""

from __future__ import annotations

import re

from waymark.engine.sed.charset import WORD
from waymark.engine.sed.regex_parse import (
    Alternatives,
    Anchor,
    BackRef,
    Group,
    GroupRepeat,
    Node,
    Repeat,
)


def emit(nodes: tuple[Node, ...], buffer: bool, ascii_only: bool) -> str:
    parts: list[str] = []
    for node in nodes:
        if isinstance(node, Group):
            parts.append("(" + emit(node.body, buffer, ascii_only) + ")")
        elif isinstance(node, BackRef):
            parts.append(f"(?:\\{node.index})")
        elif isinstance(node, GroupRepeat):
            parts.append("(" + re.escape(node.text) + ")" + _quantifier(node.low, node.high))
        elif isinstance(node, Alternatives):
            options = [o for o in node.options if not (buffer and "\n" in o)]
            options.sort(key=len, reverse=True)
            parts.append(
                "(?:" + "|".join(re.escape(o) for o in options) + ")" if options else "(?!)"
            )
        elif isinstance(node, Anchor):
            parts.append(_anchor(node.kind, buffer, ascii_only))
        else:
            parts.append(_repeat(node, buffer, ascii_only))
    return "".join(parts)


def _anchor(kind: str, buffer: bool, ascii_only: bool) -> str:
    if kind.startswith("word"):
        # Python's \b knows ASCII or Python's Unicode letters; glibc's word class is neither.
        word = WORD.to_python(exclude_newline=True, ascii_only=ascii_only)
        after, before = f"(?={word})", f"(?<={word})"
        not_after, not_before = f"(?!{word})", f"(?<!{word})"
        return {
            "word": f"(?:{before}{not_after}|{not_before}{after})",
            "word_start": not_before + after,
            "word_end": before + not_after,
        }[kind]
    return {
        "bol": "^",
        "start": "^",
        "eol": "$" if buffer else r"\Z",
        "end": "$" if buffer else r"\Z",
    }[kind]


def _repeat(node: Repeat, buffer: bool, ascii_only: bool) -> str:
    atom = node.chars.to_python(exclude_newline=buffer, ascii_only=ascii_only)
    if atom.startswith("(?!") and (node.low, node.high) != (1, 1):
        atom = "(?:" + atom + ")"
    return atom + _quantifier(node.low, node.high)


def _quantifier(low: int, high: int | None) -> str:
    if (low, high) == (1, 1):
        return ""
    if (low, high) == (0, None):
        return "*"
    if (low, high) == (1, None):
        return "+"
    if (low, high) == (0, 1):
        return "?"
    if high == low:
        return f"{{{low}}}"
    return f"{{{low},{'' if high is None else high}}}"

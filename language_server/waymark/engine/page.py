"""A page of a file, with or without its anchors, from the file's bytes: what a paged read
shows costs one pass of the compiled core over the bytes, and only the page's lines become
strings.

The anchors of a page depend on the whole file (a line's display is decided by every other
line's prefix), so the core still splits and hashes every line, as spans of the bytes, and
the page's lines alone are decoded (without anchors, the lines are only split). The answer
is the slice of what :func:`~waymark.engine.anchors.annotate` of the decoded file shows
(tests/unit/test_page_differential.py); :func:`read_page` answers None wherever that
needs the decoded file: the pure-Python path, bytes that are not valid UTF-8, two lines with
one 64-bit hash.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from waymark.engine import core
from waymark.engine.anchors import AnchoredLine
from waymark.engine.encodings import Decision, decide_with_text, valid_utf8
from waymark.engine.shown_page import page_of
from waymark.engine.text import eol_name

# The bits of page_columns' terminator set (_core_page.c), in text.EOLS' order.
_EOL_BITS = ((1, "\n"), (2, "\r\n"), (4, "\r"))
_NO_FINAL_NEWLINE = 8
_UTF8_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class Page:
    """Lines of a file (with their anchors when asked), and what a read reports of the whole
    file (as :class:`~waymark.engine.text.TextFile` names it)."""

    texts: list[str]
    anchored: Sequence[AnchoredLine] | None
    total: int
    encoding: str
    bom: bool
    eol_style: str
    final_newline: bool
    decision: Decision


def read_page(
    data: bytes, declared: str | None, start: int, stop: int, *, anchors: bool
) -> Page | None:
    """Lines ``[start, stop)`` (0-based; past the end: none) of the file of ``data``, with
    ``anchors`` as ``annotate`` of the decoded file shows them; None: decode it instead."""
    native = core.native
    if native is None:
        return None
    decision, _ = decide_with_text(data, declared, text_wanted=False)
    if decision.encoding != "utf-8":
        return None
    skip = len(_UTF8_BOM) if decision.bom else 0
    if decision.source != "utf-8" and not valid_utf8(data[skip:]):
        return None
    answer = native.page_columns(data, skip, start, stop, anchors)
    if answer is None:
        return None
    texts, total, kinds, columns = answer
    anchored = None if columns is None else page_of(native, texts, min(start, total), columns)
    if anchors and anchored is None:
        return None
    eols = [eol for bit, eol in _EOL_BITS if kinds & bit]
    return Page(
        texts=texts,
        anchored=anchored,
        total=total,
        encoding="utf-8",
        bom=decision.bom,
        eol_style="mixed" if len(eols) > 1 else eol_name(eols[0] if eols else "\n"),
        final_newline=not kinds & _NO_FINAL_NEWLINE,
        decision=decision,
    )

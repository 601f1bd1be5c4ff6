"""Splices as the anchored planner makes them, drawn by hypothesis; the core with its one
call for an edit stood down; a spliced file held against a fresh decode."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from waymark.engine.edits.splice import Splice
from waymark.engine.text import TextFile


@st.composite
def planned_splices(draw: st.DrawFn, n: int) -> list[Splice]:
    """Non-overlapping splices of a file of ``n`` lines; an insert at a region's start comes
    only with the region (the planner makes one only from insert_after the line above)."""
    out = []
    pos = 0
    while pos <= n and len(out) < 6:
        start = draw(st.integers(pos, n))
        end = draw(st.integers(start, min(n, start + 3)))
        new = tuple(draw(st.lists(st.sampled_from(["a", "b", ""]), max_size=3)))
        if start == end and not new:
            break
        out.append(Splice(start, end, new))
        if end > start > 0 and draw(st.booleans()):
            out.append(Splice(start, start, ("ins",)))
        pos = end + 1
    return out


class PythonSteps:
    """The core, but for the one call: from_bytes.py's Python steps plan every edit."""

    def __init__(self, native: Any) -> None:
        self._native = native

    def __getattr__(self, name: str) -> Any:
        return getattr(self._native, name)

    def stretch_edit(self, *args: Any) -> None:
        return None


def same_file(seen: TextFile, fresh: TextFile) -> None:
    """``seen`` (kept, spliced or handed on) decodes as ``fresh`` does, line for line."""
    assert (seen.lines, seen.eols, seen.encoding, seen.bom, seen.decision) == (
        fresh.lines,
        fresh.eols,
        fresh.encoding,
        fresh.bom,
        fresh.decision,
    )


def file_bytes(lines: list[str], end: str, final: bool, bom: bool) -> bytes:
    """``lines`` as a UTF-8 file: each ended by ``end`` (LF and CRLF in turn for "mixed"),
    the last one by nothing unless ``final``, after a BOM if ``bom``."""
    ends = [("\n", "\r\n")[i % 2] if end == "mixed" else end for i in range(len(lines))]
    if not final:
        ends[-1] = ""
    text = "".join(line + e for line, e in zip(lines, ends, strict=True))
    return (b"\xef\xbb\xbf" if bom else b"") + text.encode()

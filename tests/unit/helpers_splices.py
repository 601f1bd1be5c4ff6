"""Splices as the anchored planner makes them, drawn by hypothesis."""

from __future__ import annotations

from hypothesis import strategies as st

from waymark.engine.edits.splice import Splice


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

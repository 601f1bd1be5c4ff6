"""An edit's opcodes when its planner knows where it changed the file (pure).

An anchored edit of one stretch replaces lines that, most often, share none with the lines
put in their place: the opcodes :func:`waymark.engine.diff.diff_file` would find by growing
the known ends and matching what lies between are then known at once.
"""

from __future__ import annotations

from waymark.engine.text import TextFile

Opcode = tuple[str, int, int, int, int]
# Alike lines past the known ends looked at one by one before the whole match is left to run.
_GROWN = 8


def one_stretch(
    before: TextFile | None, after: TextFile | None, known: tuple[int, int], limit: int
) -> list[Opcode] | None:
    """The opcodes turning ``before``'s lines into ``after``'s when, past the ``known`` ends
    grown by a few alike lines (a planner leaves one untouched line above its change), each
    file has one stretch of at most ``limit`` lines, the two sharing no line (so nothing
    between matches); None otherwise."""
    if before is None or after is None:
        return None
    old, new = before.lines, after.lines
    size = min(len(old), len(new))
    head = min(known[0], size)
    stop = head + _GROWN
    while head < size and old[head] == new[head]:
        head += 1
        if head == stop:
            return None
    tail = min(known[1], size - head)
    stop = tail + _GROWN
    while tail < size - head and old[-tail - 1] == new[-tail - 1]:
        tail += 1
        if tail == stop:
            return None
    i2, j2 = len(old) - tail, len(new) - tail
    if not (head < i2 and head < j2) or max(i2, j2) - head > limit:
        return None
    if not set(old[head:i2]).isdisjoint(new[head:j2]):
        return None
    ops: list[Opcode] = [("equal", 0, head, 0, head)] if head else []
    ops.append(("replace", head, i2, head, j2))
    if tail:
        ops.append(("equal", i2, len(old), j2, len(new)))
    return ops

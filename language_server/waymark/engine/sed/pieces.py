"""A file cut into pieces of whole lines, for work whose output for a line depends on that
line alone (unaddressed ``s`` commands, a program with one regex address).

A piece at a time, the objects the work makes fit in memory the previous piece freed. For
the whole file at once they need new pages, and on these machines a page fault costs about
as much as the work on a line (``/TODO/d`` on 8 MB: 32 ms whole, 15 ms in 256 KB pieces).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

# About this many bytes per piece; the rest of the line it ends in is added.
PIECE_SIZE = 1 << 18

# The work on one piece, given the piece and its offset in the file: the piece's new bytes,
# or None when the work cannot decide it.
Step = Callable[[bytes, int], "bytes | None"]


def line_pieces(data: bytes) -> Iterator[tuple[bytes, int]]:
    """Each piece of ``data`` and its offset; every piece but the last ends with a newline."""
    start = 0
    while start < len(data):
        cut = data.find(b"\n", start + PIECE_SIZE)
        end = len(data) if cut < 0 else cut + 1
        yield data[start:end], start
        start = end


def by_pieces(step: Step, data: bytes) -> bytes | None:
    """``step`` over each piece of ``data`` in turn (over all of it when it is small), the
    results joined; None as soon as a piece's is None."""
    if len(data) <= PIECE_SIZE:
        return step(data, 0)
    view = memoryview(data)
    outputs: list[bytes | memoryview] = []
    changed = False
    for piece, offset in line_pieces(data):
        new = step(piece, offset)
        if new is None:
            return None
        if new == piece:
            # The file's own bytes stand for it: the piece's copy is freed for the next one.
            outputs.append(view[offset : offset + len(piece)])
        else:
            changed = True
            outputs.append(new)
    return b"".join(outputs) if changed else data

"""The bytes of an edited file: the original bytes, with only the changed lines encoded.

Encoding a whole file after an edit of a few lines joins and encodes every line again; here
the untouched stretches are slices of the bytes the file was decoded from, which are exactly
what encoding their lines gives back (:meth:`TextFile.decode` decides only encodings that
round-trip the file's bytes), so the result equals :meth:`TextFile.encode` of the new file
byte for byte (a differential test in tests/unit/test_spliced_bytes.py).
"""

from __future__ import annotations

import functools
from bisect import bisect_left, insort
from collections.abc import Callable, Sequence
from operator import add

from waymark.engine.edits.safety import Change
from waymark.engine.encodings import BOMS, LEGACY, errors_for
from waymark.engine.text import TextFile

_BOM_LENGTH = {encoding: len(bom) for bom, encoding in BOMS}
# Every character of these is one byte, whatever the file holds (a stray byte included).
_ONE_BYTE = frozenset(("windows-1252", "iso-8859-1", "iso-8859-15", "koi8-r"))
# These write ASCII as ASCII: a terminator is the byte it looks like, and no other byte is.
_ASCII_COMPATIBLE = frozenset(("utf-8", *LEGACY))


def encode_spliced(
    before: TextFile, data: bytes, after: TextFile, changes: Sequence[Change]
) -> bytes:
    """:meth:`TextFile.encode` of ``after``, which ``changes`` (sorted, not touching) made from
    ``before``, itself :meth:`TextFile.decode` of ``data``.

    A splice may also change the terminator of the line just above it (a new or deleted last
    line of a file without a final newline), so each region starts one line higher.
    """
    if not changes or after.encoding != before.encoding or after.bom != before.bom:
        return after.encode()
    codec, errors = after.encoding, errors_for(after.encoding)
    regions = _widened(changes)
    span = _span_bytes(before, data)
    bom = _BOM_LENGTH[codec] if before.bom else 0
    # Where lines start: the file's ends, and where the edit that wrote these bytes put its
    # changed lines (the next edit is most often near the last). Each region is measured
    # from the nearest line known, so a change measures only the lines between.
    known = {**before.line_starts, 0: bom, len(before.lines): len(data)}
    lines_known = sorted(known)
    offsets: list[tuple[int, int]] = []
    for r in regions:
        k = bisect_left(lines_known, r.old_start)
        below, above = lines_known[max(k - 1, 0)], lines_known[k]
        if above - r.old_start <= r.old_start - below:
            start = known[above] - span(r.old_start, above)
        else:
            start = known[below] + span(below, r.old_start)
        end = start + span(r.old_start, r.old_end)
        offsets.append((start, end))
        if r.old_end not in known:
            known[r.old_end] = end
            insort(lines_known, r.old_end)
    view = memoryview(data)
    pieces: list[bytes | memoryview] = []
    kept = written = 0
    starts: dict[int, int] = {}
    try:
        for r, (start, end) in zip(regions, offsets, strict=True):
            pieces.append(view[kept:start])
            lines, eols = after.lines[r.new_start : r.new_end], after.eols[r.new_start : r.new_end]
            text = "".join(map(add, lines, eols))
            encoded = text.encode(codec, errors)
            pieces.append(encoded)
            written += start - kept
            starts[r.new_start] = written
            written += len(encoded)
            starts[r.new_end] = written
            kept = end
    except UnicodeEncodeError:
        # The whole text's encoding raises the error the caller words (the first bad
        # character is in a changed line: the others came from these very bytes).
        return after.encode()
    pieces.append(view[kept:])
    after.knowing_starts(starts)
    return b"".join(pieces)


def reads_back(before: TextFile, after: TextFile, changes: Sequence[Change]) -> bool:
    """Whether :func:`encode_spliced`'s bytes decode strictly to ``after``'s text, known
    without decoding them: ``before`` was decided as the UTF-8 its bytes are valid in (so its
    lines hold no lone surrogate) and no changed line holds one, and UTF-8 writes any other
    text as bytes that decode back to it."""
    decision = before.decision
    if decision is None or decision.source != "utf-8" or before.bom:
        return False
    if (after.encoding, after.bom) != ("utf-8", False):
        return False
    for c in changes:
        text = "".join(after.lines[c.new_start : c.new_end])
        if not text.isascii():
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                return False
    return True


def _widened(changes: Sequence[Change]) -> list[Change]:
    """Each change from one line higher (the line above is untouched, so it is that line in
    both files)."""
    return [
        Change(c.old_start - 1, c.old_end, c.new_start - 1, c.new_end)
        if c.old_start > 0 and c.new_start > 0
        else c
        for c in changes
    ]


@functools.cache
def _codec_facts(codec: str) -> tuple[str, int, bool]:
    """``codec``'s error handler, the width of a line feed in it, and whether its characters
    are all of one width: every character, or (a flag a joined string carries) ASCII."""
    fixed = codec in _ONE_BYTE or codec.startswith("utf-32")
    return errors_for(codec), len("\n".encode(codec)), fixed


def _span_bytes(tf: TextFile, data: bytes) -> Callable[[int, int], int]:
    """How many bytes of ``data`` lines ``[a, b)`` of ``tf`` take, terminators included."""
    lines, eols, codec = tf.lines, tf.eols, tf.encoding
    errors, unit, fixed = _codec_facts(codec)
    n, unterminated = len(lines), bool(eols) and not eols[-1]

    def text_bytes(a: int, b: int) -> int:
        text = "".join(lines[a:b])
        if fixed or text.isascii():
            return unit * len(text)
        return len(text.encode(codec, errors))

    def ends(a: int, b: int) -> int:
        # Terminators are one character, CRLF two, and only the last line may have none.
        return b - a - (unterminated and b == n and b > a)

    # Every line ending in LF (when the file knows it without counting), no terminator is
    # CRLF: the bytes need not be searched for one.
    if codec in _ASCII_COMPATIBLE and (
        tf.told_end == "\n" or b"\r" not in data or b"\n" not in data
    ):
        return lambda a, b: text_bytes(a, b) + ends(a, b)
    return lambda a, b: text_bytes(a, b) + unit * (ends(a, b) + eols[a:b].count("\r\n"))

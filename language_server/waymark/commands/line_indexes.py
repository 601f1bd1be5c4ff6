"""The line indexes of the last files edited, kept for their next edit.

Building a file's anchor index from scratch is most of an anchored edit's planning; an edit
already derives the index of the file it writes (engine/edits/reindex.py), and the next edit
of that file, in a long-lived process (the language server, the MCP server, the hook server),
usually starts from exactly those bytes. An index is looked up by the file's real path and
the digest of its bytes and used only if its lines are the lines just decoded, so a stale or
foreign entry is a miss, never a wrong answer. With the compiled core, an edit of a UTF-8
file up to ``MAX_WRITTEN_BYTES`` is planned from its bytes first (engine/edits/from_bytes.py),
which needs no index: the kept one it borrowed is then let go, and nothing is kept.

An index is lent to one plan at a time: :func:`take` removes it (a plan changes an index's
lazily built tables, and plans run on worker threads), the plan's new index is put back.

An edit also keeps the bytes it wrote and their decoded file (:func:`known`): the next edit
reads those bytes back, and takes the lines from there instead of splitting the text again,
but only when the bytes it read are the very same (compared, not trusted to the digest).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path

from waymark.engine.anchors import LineIndex
from waymark.engine.text import TextFile

# Bounds: a few files at once, and no more lines than a handful of large files hold.
MAX_ENTRIES = 8
MAX_LINES = 400_000
# The written bytes are kept only for files this small: what they save (a split of the text,
# ~20 µs on 1,000 lines) matters beside a small edit's cost, and a large file's bytes would
# hold as much memory again as its index.
MAX_WRITTEN_BYTES = 1 << 20

_Key = tuple[Path, str]
_indexes: OrderedDict[_Key, LineIndex] = OrderedDict()
# The bytes an edit wrote and its file decoded from them, by the same key as its index.
_written: dict[_Key, tuple[bytes, TextFile]] = {}
_lines = 0
_guard = threading.Lock()


def take(real: Path, digest: str | None, tf: TextFile) -> LineIndex | None:
    """The kept index of ``tf`` (``real``'s bytes of ``digest``, decoded), or ``None``."""
    global _lines
    if digest is None:
        return None
    with _guard:
        index = _indexes.pop((real, digest), None)
        _written.pop((real, digest), None)
        if index is not None:
            _lines -= len(index.lines)
    return fitting(index, tf)


def fitting(index: LineIndex | None, tf: TextFile) -> LineIndex | None:
    """``index`` when it is the index of ``tf``'s lines, else None."""
    # The same tuple when the file's lines were taken from what the last edit wrote.
    if index is None or (index.lines is not tf.lines and index.lines != tf.lines):
        return None
    return index


def lend(real: Path, digest: str) -> tuple[LineIndex, tuple[bytes, TextFile] | None] | None:
    """The kept index of ``real``'s bytes of ``digest`` and what the edit that wrote them
    kept of them (:func:`keep`'s ``written``), taken out at once (an edit would otherwise
    ask :func:`holds`, :func:`known` and :func:`take` in turn); None when none is kept. The
    caller checks the index against the lines it decodes (:func:`fitting`)."""
    global _lines
    with _guard:
        index = _indexes.pop((real, digest), None)
        if index is None:
            return None
        _lines -= len(index.lines)
        return index, _written.pop((real, digest), None)


def known(real: Path, digest: str | None, data: bytes) -> TextFile | None:
    """The file an edit wrote as ``data`` to ``real``, as it decoded it; ``None`` unless
    ``data`` are those very bytes."""
    if digest is None:
        return None
    with _guard:
        written = _written.get((real, digest))
    if written is None or written[0] != data:
        return None
    return written[1]


def holds(real: Path, digest: str) -> bool:
    """Whether an index of ``real``'s bytes of ``digest`` is kept (a page of them then costs
    only its own lines)."""
    with _guard:
        return (real, digest) in _indexes


def keep(
    real: Path, digest: str, index: LineIndex, written: tuple[bytes, TextFile] | None = None
) -> None:
    """Keep ``index``, the index of ``real`` holding the bytes of ``digest``; its planner
    must not use it any more. ``written``: those bytes, as the edit that wrote them decoded
    them (its lines are the index's)."""
    global _lines
    size = len(index.lines)
    if size > MAX_LINES:
        return
    with _guard:
        old = _indexes.pop((real, digest), None)
        if old is not None:
            _lines -= len(old.lines)
        _written.pop((real, digest), None)
        _indexes[(real, digest)] = index
        if written is not None and len(written[0]) <= MAX_WRITTEN_BYTES:
            _written[real, digest] = written
        _lines += size
        while len(_indexes) > MAX_ENTRIES or _lines > MAX_LINES:
            key, dropped = _indexes.popitem(last=False)
            _written.pop(key, None)
            _lines -= len(dropped.lines)

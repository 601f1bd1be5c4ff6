"""The line indexes of the last files edited, kept for their next edit.

Building a file's anchor index from scratch is most of an anchored edit's planning; an edit
already derives the index of the file it writes (engine/edits/reindex.py), and the next edit
of that file, in a long-lived process (the language server, the MCP server, the hook server),
usually starts from exactly those bytes. An index is looked up by the file's real path and
the digest of its bytes and used only if its lines are the lines just decoded, so a stale or
foreign entry is a miss, never a wrong answer.

An index is lent to one plan at a time: :func:`take` removes it (a plan changes an index's
lazily built tables, and plans run on worker threads), the plan's new index is put back.
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

_Key = tuple[Path, str]
_indexes: OrderedDict[_Key, LineIndex] = OrderedDict()
_lines = 0
_guard = threading.Lock()


def take(real: Path, digest: str | None, tf: TextFile) -> LineIndex | None:
    """The kept index of ``tf`` (``real``'s bytes of ``digest``, decoded), or ``None``."""
    global _lines
    if digest is None:
        return None
    with _guard:
        index = _indexes.pop((real, digest), None)
        if index is not None:
            _lines -= len(index.lines)
    if index is None or index.lines != tf.lines:
        return None
    return index


def holds(real: Path, digest: str) -> bool:
    """Whether an index of ``real``'s bytes of ``digest`` is kept (a page of them then costs
    only its own lines)."""
    with _guard:
        return (real, digest) in _indexes


def keep(real: Path, digest: str, index: LineIndex) -> None:
    """Keep ``index``, the index of ``real`` holding the bytes of ``digest``; its planner
    must not use it any more."""
    global _lines
    size = len(index.lines)
    if size > MAX_LINES:
        return
    with _guard:
        old = _indexes.pop((real, digest), None)
        if old is not None:
            _lines -= len(old.lines)
        _indexes[(real, digest)] = index
        _lines += size
        while len(_indexes) > MAX_ENTRIES or _lines > MAX_LINES:
            _, dropped = _indexes.popitem(last=False)
            _lines -= len(dropped.lines)

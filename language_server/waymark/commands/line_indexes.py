"""The line indexes of the last files edited, kept for their next edit.

Building a file's anchor index from scratch is most of an anchored edit's planning; an edit
already derives the index of the file it writes (engine/edits/reindex.py), and the next edit
of that file, in a long-lived process (the language server, the MCP server, the hook server),
usually starts from exactly those bytes. An index is looked up by the file's real path and
the digest of its bytes and used only if its lines are the lines just decoded, so a stale or
foreign entry is a miss, never a wrong answer. With the compiled core, an edit of a UTF-8
file up to ``MAX_WRITTEN_BYTES`` is planned from its bytes first (engine/edits/from_bytes.py),
which needs no index: the kept one it borrowed is then kept with the lines the edit replaced
(engine/edits/spliced_file.py), and the new file's lines and index are made from them only
when the next read or edit asks (a page of those bytes reads them, as it would without).

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
from waymark.engine.edits.spliced_file import Replaced, SplicedFile
from waymark.engine.text import TextFile
from waymark.store.files import digest as digest_of

# Bounds: a few files at once, and no more lines than a handful of large files hold.
MAX_ENTRIES = 8
MAX_LINES = 400_000
# The written bytes are kept only for files this small: what they save (a split of the text,
# ~20 µs on 1,000 lines) matters beside a small edit's cost, and a large file's bytes would
# hold as much memory again as its index.
MAX_WRITTEN_BYTES = 1 << 20
# Edits folded into one spliced file at most. In the language server's loop each costs an
# edit ~10 µs (the compare, the fold, the digest, the entry, the memory held), the edit that
# starts one saves ~12 (it no longer frees the read's index) and the read after them ~45 (a
# 1,000-line file): past about six edits without a read, keeping on costs more than it can
# save, and the read after them indexes the file afresh (bench/results.md, h52keep).
MAX_SPLICED_EDITS = 4

_Key = tuple[Path, str]
_Written = tuple[bytes, TextFile]
# What an edit borrows: an index and what was kept of its bytes, or the file an edit planned
# from the bytes wrote.
Lent = tuple[LineIndex, _Written | None] | SplicedFile
_indexes: OrderedDict[_Key, LineIndex | SplicedFile] = OrderedDict()
# The bytes an edit wrote and its file decoded from them, by the same key as its index.
_written: dict[_Key, _Written] = {}
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
            _lines -= _size(index)
    if isinstance(index, SplicedFile):
        spliced = index.text_file
        if spliced.lines is not tf.lines and spliced.lines != tf.lines:
            return None
        index = index.index()
    return fitting(index, tf)


def fitting(index: LineIndex | None, tf: TextFile) -> LineIndex | None:
    """``index`` when it is the index of ``tf``'s lines, else None."""
    # The same tuple when the file's lines were taken from what the last edit wrote.
    if index is None or (index.lines is not tf.lines and index.lines != tf.lines):
        return None
    return index


def lend(real: Path, digest: str) -> Lent | None:
    """The kept index of ``real``'s bytes of ``digest`` and what the edit that wrote them
    kept of them (:func:`keep`'s ``written``), taken out at once (an edit would otherwise
    ask :func:`holds`, :func:`known` and :func:`take` in turn), or the file an edit planned
    from the bytes wrote (:func:`keep_spliced`); None when none is kept. The caller checks
    the index against the lines it decodes (:func:`fitting`; :func:`unpacked` makes the
    index of a spliced file)."""
    global _lines
    with _guard:
        index = _indexes.pop((real, digest), None)
        if index is None:
            return None
        if isinstance(index, SplicedFile):
            _lines -= len(index.old_index.lines)
            return index
        _lines -= len(index.lines)
        return index, _written.pop((real, digest), None)


def unpacked(lent: Lent) -> tuple[LineIndex, _Written | None]:
    """What :func:`lend` lent, as an index and the bytes and file it is the index of."""
    if isinstance(lent, SplicedFile):
        return lent.index(), (lent.data, lent.text_file)
    return lent


def known(real: Path, digest: str | None, data: bytes) -> TextFile | None:
    """The file an edit wrote as ``data`` to ``real``, as it decoded it; ``None`` unless
    ``data`` are those very bytes."""
    if digest is None:
        return None
    with _guard:
        written = _written.get((real, digest))
        entry = _indexes.get((real, digest)) if written is None else None
    if isinstance(entry, SplicedFile):
        return entry.text_file if entry.data == data else None
    if written is None or written[0] != data:
        return None
    return written[1]


def holds(real: Path, digest: str) -> bool:
    """Whether an index of ``real``'s bytes of ``digest`` is kept (a page of them then costs
    only its own lines)."""
    with _guard:
        return isinstance(_indexes.get((real, digest)), LineIndex)


def keep(real: Path, digest: str, index: LineIndex, written: _Written | None = None) -> None:
    """Keep ``index``, the index of ``real`` holding the bytes of ``digest``; its planner
    must not use it any more. ``written``: those bytes, as the edit that wrote them decoded
    them (its lines are the index's)."""
    if written is not None and len(written[0]) > MAX_WRITTEN_BYTES:
        written = None
    _keep((real, digest), index, written)


def keep_spliced(
    real: Path, lent: Lent | None, data: bytes, replaced: Replaced, after: bytes
) -> None:
    """After an edit planned from ``data`` (what :func:`lend` lent for them: ``lent``) that
    wrote ``after`` by replacing lines as ``replaced`` says: keep the file it wrote as the
    file before it and that splice, when the file before it is known (decoded from those
    very bytes, in UTF-8, as the bytes were planned)."""
    global _lines
    if lent is None or len(after) > MAX_WRITTEN_BYTES:
        return
    if isinstance(lent, SplicedFile):
        if lent.edits >= MAX_SPLICED_EDITS or lent.data != data:
            return
        spliced = lent.then(replaced, after)
    else:
        index, written = lent
        if written is None or written[0] != data or index.lines is not written[1].lines:
            return
        if written[1].encoding != "utf-8":
            return
        spliced = SplicedFile(written[1], index, replaced, after)
    key = real, digest_of(after)
    # The entry it came from was kept, so it fits; only the bounds are checked (every edit
    # of a chain makes one: _keep's general steps would cost it more).
    with _guard:
        if key in _indexes:
            _lines -= _size(_indexes.pop(key))
            _written.pop(key, None)
        _indexes[key] = spliced
        _lines += len(spliced.old_index.lines)
        if len(_indexes) > MAX_ENTRIES or _lines > MAX_LINES:
            _evict()


def _size(entry: LineIndex | SplicedFile) -> int:
    return len((entry.old_index if isinstance(entry, SplicedFile) else entry).lines)


def _keep(key: _Key, entry: LineIndex | SplicedFile, written: _Written | None) -> None:
    global _lines
    size = _size(entry)
    if size > MAX_LINES:
        return
    with _guard:
        old = _indexes.pop(key, None)
        if old is not None:
            _lines -= _size(old)
        _written.pop(key, None)
        _indexes[key] = entry
        if written is not None:
            _written[key] = written
        _lines += size
        _evict()


def _evict() -> None:
    """Drop the oldest entries past the bounds (under ``_guard``)."""
    global _lines
    while len(_indexes) > MAX_ENTRIES or _lines > MAX_LINES:
        dropped_key, dropped = _indexes.popitem(last=False)
        _written.pop(dropped_key, None)
        _lines -= _size(dropped)

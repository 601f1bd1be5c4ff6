"""Lines a rewind would undo, per file, in bounded time and memory.

Each file is compared on its own and its bytes are dropped before the next is read, so the
peak is a few files' worth whatever the number of tracked files. Files run on the small
pool of :mod:`~.pool`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from waymark.engine.encodings import canonical
from waymark.engine.errors import BinaryFile, WaymarkError
from waymark.engine.linecount import count_bytes, count_changes, plain_utf8
from waymark.engine.text import TextFile
from waymark.store.declared_encoding import declared_encoding
from waymark.store.files import read_state
from waymark.store.history.backups import Unfetched, error_errno, fetch_backup, folder_of
from waymark.store.history.blobs import BlobStore
from waymark.store.history.plan import UNKNOWN, Expected, expected
from waymark.store.history.pool import bounded_map
from waymark.store.history.snapshots import FileEntry
from waymark.store.history.sync import HistoryLock, Ledger
from waymark.store.history.turns import require
from waymark.store.workspace import Workspace

# Past this many differing lines difflib's quadratic worst case is not worth it: the counts
# then come from line multisets (exact unless lines were reordered).
_EXACT_LINES = 20_000


@dataclass(frozen=True)
class LineCounts:
    insertions: int
    deletions: int
    binary: bool = False


@dataclass(frozen=True)
class FileStat:
    """Lines a rewind would undo in one file, or why they cannot be counted (``reason``)."""

    key: str
    status: str = ""
    counts: LineCounts | None = None
    conflict: bool = False
    reason: str | None = None
    errno: str | None = None


def diff_stats(
    ledger: Ledger, lock: HistoryLock, prompt_id: str, workspace: Workspace
) -> list[FileStat]:
    """Lines a rewind to ``prompt_id`` would undo, per changed file.

    The lock is held only to list the work, so a long count never blocks edits; a blob
    evicted meanwhile shows up with a ``reason``, never as a wrong count. A file's lines are
    read in the encoding the project declares for it (.editorconfig, .gitattributes).
    """
    with lock:
        model = ledger.model
        snap = require(ledger, prompt_id)
        jobs = [(key, model.target(snap, key), expected(model, key)) for key in sorted(model.first)]
    blobs = ledger.blobs
    limit = workspace.max_file_size
    counted = bounded_map(lambda job: _stat_file(blobs, limit, workspace, *job), jobs)
    return [item for item in counted if item is not None]


def _stat_file(
    blobs: BlobStore,
    limit: int,
    workspace: Workspace,
    key: str,
    target: FileEntry,
    should: Expected,
) -> FileStat | None:
    try:
        current = read_state(Path(key), limit=limit)
    except WaymarkError as exc:
        return FileStat(key, reason="unreadable", errno=error_errno(exc))
    if current.digest == target.digest:
        return None
    if target.state == "failed":
        return FileStat(key, reason="backup_failed", errno=target.error)
    old: bytes | None = None
    if target.state == "present" and target.digest is not None:
        fetched = fetch_backup(blobs, target.digest)
        if isinstance(fetched, Unfetched):
            # diffStats names only why; the errno is the rewind's to report.
            return FileStat(key, reason=fetched.reason)
        old = fetched
    status = "created" if old is None else "deleted" if current.data is None else "modified"
    conflict = should is UNKNOWN or should != current.digest
    counts = count_lines(old, current.data, _declared(workspace, key))
    return FileStat(key, status, counts, conflict)


def _declared(workspace: Workspace, key: str) -> str | None:
    folder = folder_of(workspace, key)
    return declared_encoding(Path(key), Path(folder)) if folder else None


def count_lines(old: bytes | None, new: bytes | None, declared: str | None = None) -> LineCounts:
    """Lines inserted and deleted going from ``old`` to ``new`` (``None``: absent file), read
    as :meth:`TextFile.decode` reads a file ``declared`` (its declared encoding, if any)."""
    # Bytes in another declared encoding (UTF-16 without a BOM) may look like plain UTF-8
    # (or binary): only the declaration says how they split into lines.
    as_bytes = declared is None or canonical(declared) == "utf-8"
    try:
        if as_bytes and all(data is None or plain_utf8(data) for data in (old, new)):
            counts = count_bytes(old or b"", new or b"", _EXACT_LINES)
        else:
            old_lines, new_lines = _text_lines(old, declared), _text_lines(new, declared)
            counts = count_changes(old_lines, new_lines, _EXACT_LINES)
    except BinaryFile:
        return LineCounts(0, 0, binary=True)
    return LineCounts(*counts)


def _text_lines(data: bytes | None, declared: str | None) -> tuple[str, ...]:
    return () if data is None else TextFile.decode(data, declared).lines

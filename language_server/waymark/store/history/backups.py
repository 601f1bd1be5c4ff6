"""Backing a file up into a blob, and fetching a backup back with why it failed.

A backup is the file's bytes stored under their digest. Backing up a file whose stat proves
it unchanged since we last read it reuses that digest without reading it again.
"""

from __future__ import annotations

import errno as errno_mod
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from waymark.engine.errors import FileTooLarge, IoError, IsDirectory, WaymarkError
from waymark.store.files import FileState, read_found, read_state
from waymark.store.files import digest as content_digest
from waymark.store.history.blobs import BlobCorrupt, BlobMissing, BlobStore
from waymark.store.history.snapshots import FileEntry
from waymark.store.walk import Walks
from waymark.store.workspace import Workspace

# A stat only stands for "unchanged" if the file was already this much older than our read.
_RACY_NS = 2_000_000_000


def errno_name(exc: OSError) -> str:
    return errno_mod.errorcode.get(exc.errno or 0, "EIO")


def error_errno(exc: WaymarkError) -> str:
    if isinstance(exc, IsDirectory):
        return "EISDIR"
    value = exc.details.get("errno")
    return value if isinstance(value, str) else exc.code


def read_tracked(
    path: Path, *, any_directory: bool = False, limit: int | None = None, walks: Walks | None = None
) -> FileState:
    """A tracked file's state, absent also when a file stands where one of its directories
    was, or a directory where it was (a shell command swapped the one for the other; what
    the directory holds is tracked file by file).

    Without ``any_directory`` only a directory holding nothing but directories is absent:
    a rewind may remove it to put the file back, but never one holding anything else.
    ``walks``: the operation's directories already reached, when it reads many files.
    """
    try:
        return read_state(path, limit=limit, walks=walks)
    except IsDirectory:
        if any_directory or _only_directories(path):
            return FileState(path, None, None, None)
        raise
    except IoError as exc:
        if exc.details.get("errno") == "ENOTDIR":
            return FileState(path, None, None, None)
        raise


def _read_backup(key: str, limit: int, walks: Walks | None) -> tuple[bytes, os.stat_result] | None:
    """:func:`read_tracked` with ``any_directory``: the bytes and the ``fstat`` of the file
    read (``None``: absent)."""
    try:
        return read_found(key, limit=limit, walks=walks)
    except IsDirectory:
        return None
    except IoError as exc:
        if exc.details.get("errno") == "ENOTDIR":
            return None
        raise


def _only_directories(path: Path) -> bool:
    for top, dirs, files in os.walk(path):
        # os.walk lists a link to a directory among the directories (and never enters it).
        if files or any(os.path.islink(os.path.join(top, d)) for d in dirs):
            return False
    return True


@dataclass(frozen=True)
class Unfetched:
    """Why a backup's bytes could not be had: ``backup_missing``/``_corrupt``/``_unreadable``."""

    reason: str
    errno: str | None = None


MISSING: Final = Unfetched("backup_missing", "ENOENT")
CORRUPT: Final = Unfetched("backup_corrupt")


def fetch_backup(blobs: BlobStore, digest: str) -> bytes | Unfetched:
    """The backup's bytes, or why they cannot be had (a torn blob is never returned)."""
    try:
        return blobs.get(digest)
    except BlobMissing:
        return MISSING
    except BlobCorrupt:
        return CORRUPT
    except OSError as exc:
        return Unfetched("backup_unreadable", errno_name(exc))


def folder_of(workspace: Workspace, key: str) -> str:
    """The workspace folder ``key`` lies in ("" outside every folder).

    Keys and folders are both real absolute paths, so this is string work (the most specific
    folder wins when folders nest); a turn over thousands of files names each of them."""
    best = ""
    for folder in workspace.folders:
        name = os.fspath(folder)
        if (key == name or key.startswith(name.rstrip("/") + "/")) and len(name) > len(best):
            best = name
    return best


def display(workspace: Workspace, key: str) -> str:
    """The workspace-relative path of ``key`` (the key itself outside every folder)."""
    best = folder_of(workspace, key)
    if not best:
        return key
    return key[len(best) :].lstrip("/") or "."


def no_rewind(display: str, why: str) -> str:
    return f"{display}: its backup failed ({why}), so this change cannot be rewound."


class Backups:
    """Backs files up into ``blobs``; remembers what it read for the unchanged fast path."""

    def __init__(self, blobs: BlobStore, workspace: Workspace) -> None:
        self.blobs = blobs
        self.workspace = workspace
        # Per file: stat signature, digest and when we read it.
        self._stats: dict[str, tuple[tuple[int, ...], str, int]] = {}
        # Each file's display, for the workspace folders it was worked out with.
        self._shown: dict[str, str] = {}
        self._shown_for: list[Path] = workspace.folders

    def display(self, key: str) -> str:
        """:func:`display`, remembered: every backup and record names its file."""
        if self._shown_for is not self.workspace.folders:
            self._shown, self._shown_for = {}, self.workspace.folders
        shown = self._shown.get(key)
        if shown is None:
            shown = self._shown[key] = display(self.workspace, key)
        return shown

    def capture(
        self,
        key: str,
        *,
        reuse: bool = False,
        too_large: bool = False,
        walks: Walks | None = None,
    ) -> tuple[FileEntry, list[str]]:
        """Back up the file's current state; a failure becomes a ``failed`` entry + warning.

        ``too_large``: a file over the size limit raises ``file_too_large`` (never read: the
        caller records it as out of reach) instead; ``walks``: the operation's directories
        already reached (a turn backing many files up)."""
        shown = self.display(key)
        now = time.time()
        if reuse:
            entry = self._unchanged(key, shown, now)
            if entry is not None:
                return entry, []
        try:
            found = _read_backup(key, self.workspace.max_file_size, walks)
        except FileTooLarge:
            if too_large:
                raise
            return _failed(shown, FileTooLarge.code, now)
        except WaymarkError as exc:
            return _failed(shown, error_errno(exc), now)
        if found is None:
            return FileEntry(shown, "absent", None, now), []
        data, st = found
        digest = content_digest(data)
        try:
            self.blobs.put(digest, data)
        except OSError as exc:
            name = errno_name(exc)
            entry = FileEntry(shown, "failed", digest, now, name)
            return entry, [no_rewind(shown, name)]
        # The read's own fstat, taken before its bytes were: a change after it moves ctime.
        self._stats[key] = (_stat_signature(st), digest, time.time_ns())
        return FileEntry(shown, "present", digest, now, size=len(data)), []

    def _unchanged(self, key: str, shown: str, now: float) -> FileEntry | None:
        """The file's entry without reading it, when its stat proves the bytes unchanged."""
        cached = self._stats.get(key)
        if cached is None:
            return None
        signature, digest, read_ns = cached
        try:
            st = os.stat(key)
        except OSError:
            return None
        if _stat_signature(st) != signature:
            return None
        # Racily clean (git's term): changed within a timestamp tick of our read, a file
        # could keep its stat; only a file already older than that is trusted.
        if max(st.st_mtime_ns, st.st_ctime_ns) > read_ns - _RACY_NS:
            return None
        if self.blobs.size(digest) != st.st_size:
            return None
        return FileEntry(shown, "present", digest, now, size=st.st_size)

    def heal(self, key: str, failed: FileEntry, data: bytes | None = None) -> FileEntry | None:
        """Store a failed backup now, if the file still holds exactly the bytes we missed.

        ``data``: what the file holds, when the caller just read it (else it is read)."""
        if failed.digest is None:
            return None
        if data is None:
            try:
                data = read_state(Path(key), limit=self.workspace.max_file_size).data
            except WaymarkError:
                return None
        if data is None or content_digest(data) != failed.digest:
            return None
        try:
            self.blobs.put(failed.digest, data)
        except OSError:
            return None
        shown = self.display(key)
        return FileEntry(shown, "present", failed.digest, failed.time, size=len(data))

    def keep(self, key: str, before: bytes | None, digest: str | None = None) -> FileEntry:
        """An entry for bytes read elsewhere (``None``: the file was absent); stored now.

        ``digest``: theirs, when the caller already has it."""
        shown = self.display(key)
        now = time.time()
        if before is None:
            return FileEntry(shown, "absent", None, now)
        if digest is None:
            digest = content_digest(before)
        try:
            self.blobs.put(digest, before)
        except OSError as exc:
            return FileEntry(shown, "failed", digest, now, errno_name(exc))
        return FileEntry(shown, "present", digest, now, size=len(before))

    def keep_each(
        self, befores: Mapping[str, bytes | None]
    ) -> tuple[dict[str, FileEntry], list[str]]:
        """:meth:`keep` for each file's bytes before a change; the entries, and a warning for
        each file that could not be backed up."""
        files = {key: self.keep(key, before) for key, before in befores.items()}
        warnings = [
            no_rewind(entry.display, entry.error or "backup_failed")
            for entry in files.values()
            if entry.state == "failed"
        ]
        return files, warnings


def _failed(shown: str, name: str, now: float) -> tuple[FileEntry, list[str]]:
    return FileEntry(shown, "failed", None, now, name), [no_rewind(shown, name)]


def _stat_signature(st: os.stat_result) -> tuple[int, ...]:
    """What a change of the bytes always changes: ctime moves even under ``touch -d``/``cp -p``."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)

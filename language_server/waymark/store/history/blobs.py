"""Content-addressed backup store: blobs named by their digest, in pack segments.

A blob's name is :func:`waymark.files.digest` of its bytes, so the same content backed up in
many turns (or many files) is stored once. New blobs are appended to pack segments
(:mod:`.packs`); histories written before them keep one file per blob under ``blobs/``
("loose"), which are still read, counted and deleted, never written. Blobs are read back only
after checking that the bytes still hash to their name: a torn, truncated or swapped blob is
reported, never restored.

Blobs are not fsynced: like git's objects, they survive a crash of the process but not
necessarily a power cut (see docs/history.md).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from waymark.store.files import digest as content_digest
from waymark.store.history.packgc import compact
from waymark.store.history.packs import Packs, RecordCorrupt

_TMP_MARK = ".tmp-"


class BlobMissing(Exception):
    """The blob file is gone (deleted behind our back)."""


class BlobCorrupt(Exception):
    """The blob's bytes no longer hash to its name."""


class BlobStore:
    """Blobs of the history in ``directory``: pack segments under ``packs/``, and the loose
    files of older versions under ``blobs/<digest>``."""

    def __init__(self, directory: Path, *, max_bytes: int) -> None:
        self.root = directory / "blobs"
        self.packs = Packs(directory / "packs", max_bytes=max_bytes)
        # Bytes of loose blobs, counted once per process: nothing writes them any more.
        self._loose_bytes: int | None = None
        self._loose: bool | None = None

    def path_for(self, digest: str) -> Path:
        """Where an older version kept the blob as a file of its own."""
        return self.root / digest

    def put(self, digest: str, data: bytes) -> None:
        """Store ``data`` under ``digest`` unless it is already stored.

        Raises ``OSError`` (EACCES, ENOSPC, …) when the blob cannot be written.
        """
        if self._loose_size(digest) == len(data):
            return
        self.packs.put(digest, data)

    def get(self, digest: str) -> bytes:
        """The blob's bytes; :class:`BlobMissing` / :class:`BlobCorrupt` / ``OSError``."""
        try:
            packed = self.packs.get(digest)
        except RecordCorrupt as exc:
            raise BlobCorrupt(digest) from exc
        if packed is not None:
            return packed
        try:
            with open(self.path_for(digest), "rb") as handle:
                data = handle.read()
        except FileNotFoundError as exc:
            raise BlobMissing(digest) from exc
        if content_digest(data) != digest:
            raise BlobCorrupt(digest)
        return data

    def size(self, digest: str) -> int | None:
        """The stored blob's length (None: not stored)."""
        packed = self.packs.size(digest)
        return packed if packed is not None else self._loose_size(digest)

    def _loose_size(self, digest: str) -> int | None:
        if self._loose is None:
            # Asked once: nothing makes the directory any more, and a history without it
            # (every history since pack segments) then pays no stat per backup.
            self._loose = os.path.isdir(self.root)
        if not self._loose:
            return None
        try:
            return os.stat(os.path.join(self.root, digest)).st_size
        except OSError:
            return None

    def delete(self, digest: str) -> None:
        """Nothing references the blob any more: a loose file goes now, a packed record at
        the next :meth:`compact`."""
        self.packs.forget(digest)
        size = self._loose_size(digest)
        if size is None:
            return
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path_for(digest))
            if self._loose_bytes is not None:
                self._loose_bytes = max(0, self._loose_bytes - size)

    def disk_bytes(self) -> int:
        """What the blobs take on disk: segments whole (dead records until compacted) and
        loose files."""
        if self._loose_bytes is None:
            self._loose_bytes = sum(
                path.stat().st_size for name, path in self.names() if _is_digest(name)
            )
        if self.packs.stale:
            # Other processes' appends count too: the budget is the directory's.
            self.packs.refresh()
        return self._loose_bytes + self.packs.disk_bytes()

    def compact(self, live: set[str], *, pressed: bool = False) -> int:
        """Reclaim the space of deleted packed blobs (see :mod:`.packgc`)."""
        return compact(self.packs, live, pressed=pressed)

    def names(self) -> Iterator[tuple[str, Path]]:
        """Every loose file as ``(name, path)``, leftover temp files included."""
        try:
            entries = list(os.scandir(self.root))
        except OSError:
            return
        for entry in entries:
            if entry.is_file(follow_symlinks=False):
                yield entry.name, Path(entry.path)

    def sweep(self, keep: set[str]) -> int:
        """Delete every blob (and leftover temp file) whose name is not in ``keep``."""
        removed = 0
        for name, path in list(self.names()):
            if name not in keep:
                with contextlib.suppress(OSError):
                    os.unlink(path)
                    removed += 1
        self._loose_bytes = None
        self.packs.discard_except(keep)
        compact(self.packs, keep)
        return removed

    def stale(self) -> None:
        """Another process may have appended or compacted: look again before the next use."""
        self.packs.stale = True

    def reset(self) -> None:
        self.packs.reset()
        self._loose_bytes = self._loose = None

    def close(self) -> None:
        self.packs.close()


def _is_digest(name: str) -> bool:
    return len(name) == 32 and not name.startswith(_TMP_MARK)

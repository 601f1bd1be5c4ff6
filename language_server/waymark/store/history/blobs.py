"""Content-addressed backup store: one file per distinct content, named by its digest.

A blob's name is :func:`waymark.files.digest` of its bytes, so the same content backed up in
many turns (or many files) is stored once. Blobs are read back only after checking that the
bytes still hash to their name: a truncated or swapped blob is reported, never restored.

A blob torn by a crash or a full disk is never trusted: ``put`` rewrites a blob of the wrong
size and ``get`` checks the digest. Blobs are not fsynced: like git's loose objects, they
survive a crash of the process but not necessarily a power cut (see docs/history.md).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from waymark.store.files import digest as content_digest
from waymark.store.private import DIR_MODE, open_private

_TMP_MARK = ".tmp-"


class BlobMissing(Exception):
    """The blob file is gone (deleted behind our back)."""


class BlobCorrupt(Exception):
    """The blob's bytes no longer hash to its name."""


class BlobStore:
    """Blobs under ``root/<digest>``.

    One flat directory: a session holds thousands of blobs at most, which ext4 and friends
    index well, and a fresh store then needs one ``mkdir``, not one per shard.
    """

    def __init__(self, root: Path) -> None:
        self.root = root

    def path_for(self, digest: str) -> Path:
        return self.root / digest

    def put(self, digest: str, data: bytes) -> None:
        """Store ``data`` under ``digest`` unless a blob of that size is already there.

        Raises ``OSError`` (EACCES, ENOSPC, …) when the blob cannot be written.
        """
        final = self.path_for(digest)
        try:
            if os.stat(final).st_size == len(data):
                return
        except FileNotFoundError:
            pass
        # Written in place, not via a temp file and a rename: a torn blob cannot pass for a
        # good one, since put() checks the size and get() the digest. That halves the
        # metadata operations of a backup.
        try:
            fd = self._create(final)
        except FileExistsError:
            self._replace(final, digest, data)
            return
        try:
            _write_all(fd, data)
        except BaseException:
            # Only our own torn file: a concurrent put of the same content may have replaced it.
            with contextlib.suppress(OSError):
                if os.stat(final).st_ino == os.fstat(fd).st_ino:
                    os.unlink(final)
            raise
        finally:
            os.close(fd)

    def _create(self, final: Path) -> int:
        """A new blob file; the store's directory is made when it is missing.

        Missing is asked of the filesystem each time, never remembered: a history deleted
        under a long-lived process and started afresh has no ``blobs/`` yet. Only ``blobs/``
        itself is made: a history directory that is gone is no place for a backup.
        """
        try:
            return open_private(final, os.O_WRONLY | os.O_EXCL)
        except FileNotFoundError:
            try:
                os.mkdir(self.root, DIR_MODE)
            except FileExistsError:
                pass
            else:
                # mkdir's mode is cut by the umask.
                os.chmod(self.root, DIR_MODE)
            return open_private(final, os.O_WRONLY | os.O_EXCL)

    def _replace(self, final: Path, digest: str, data: bytes) -> None:
        """Swap out a torn blob of the wrong size."""
        tmp = final.parent / f"{_TMP_MARK}{digest}-{os.urandom(4).hex()}"
        fd = open_private(tmp, os.O_WRONLY | os.O_EXCL)
        try:
            try:
                _write_all(fd, data)
            finally:
                os.close(fd)
            os.replace(tmp, final)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def get(self, digest: str) -> bytes:
        """The blob's bytes; :class:`BlobMissing` / :class:`BlobCorrupt` / ``OSError``."""
        try:
            with open(self.path_for(digest), "rb") as handle:
                data = handle.read()
        except FileNotFoundError as exc:
            raise BlobMissing(digest) from exc
        if content_digest(data) != digest:
            raise BlobCorrupt(digest)
        return data

    def delete(self, digest: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path_for(digest))

    def names(self) -> Iterator[tuple[str, Path]]:
        """Every file in the store as ``(name, path)``, leftover temp files included."""
        try:
            entries = list(os.scandir(self.root))
        except FileNotFoundError:
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
        return removed


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]

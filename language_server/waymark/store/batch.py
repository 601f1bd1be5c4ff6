"""Writing several files as one change: every file lands, or none does.

Two phases, under the caller's locks (:func:`waymark.store.history.write_locks`):

1. stage: every new content goes to a temp file beside its target (the
   ``.NAME.waymark-tmp-XXXX`` of :func:`~waymark.store.files.atomic_write`, fsynced like
   its), so a full disk, a read-only directory or a refused permission fails here, before
   any target changes;
2. commit: each target is compared with the content it was planned against right before
   it is replaced by a rename; a deleted file is renamed to a temp name and removed only
   once every file is in.

Both phases reach each directory through the caller's :class:`~waymark.store.walk.Walks`
(the one its locks and re-reads went through), or one of the batch's own: a directory is
walked once per batch, not once per file and phase.

When a commit fails, the files already committed are put back, newest first: a deleted file
is renamed back, a created one removed, a replaced one rewritten with the bytes it held
(the caller read them under the same locks, and the history backed them up). A file is
only put back while it still holds what the batch wrote. Only a second fault while putting
back leaves a file changed; the error then says so and names it (``details.unrestored``).

This covers every failure the process lives to see. A crash between two renames leaves the
files renamed so far written (each one whole); the start-up sweep then removes the temp
files, the old file of a delete included.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from waymark.engine.errors import IoError, WaymarkError
from waymark.store import flush
from waymark.store.files import (
    _changed,
    _check_expected,
    _replace_at,
    _temp_name,
    _write_temp,
    digest,
)
from waymark.store.holds import holds_at
from waymark.store.walk import (
    Walks,
    lstat_at,
    not_regular,
    os_error,
    split_path,
    split_text,
    symlink_refused,
    walk,
)


@dataclass(frozen=True)
class BatchWrite:
    """One file of a batch: its new bytes (``None``: delete it) and the bytes it holds now
    (``None``: absent), which the commit compares and a rollback restores."""

    path: Path
    data: bytes | None
    before: bytes | None


@dataclass(slots=True)
class _Staged:
    write: BatchWrite
    # As a string: a Path per file is a good part of a one-file batch's own cost.
    absolute: str
    dirs: list[str]
    name: str
    # Before the commit: the temp file with the new bytes. After a delete: the old file.
    tmp: str | None = None
    committed: bool = False

    @property
    def action(self) -> str:
        return "delete" if self.write.data is None else "write"


def write_batch(writes: Sequence[BatchWrite], walks: Walks | None = None) -> None:
    """Replace or delete every file of ``writes``, or leave every one as it was.

    Raises the error of the file that failed (``details.path``): ``io_error``, or
    ``file_changed_since_read`` when a file no longer holds ``before``. ``walks``: the
    directories the caller reached under its locks.
    """
    if walks is not None:
        _write_all(writes, walks)
        return
    with Walks() as own:
        _write_all(writes, own)


def _write_all(writes: Sequence[BatchWrite], walks: Walks) -> None:
    staged: list[_Staged] = []
    try:
        for write in writes:
            staged.append(_stage(write, walks))
        for item in staged:
            _commit(item, walks)
    except BaseException as exc:
        unrestored = _undo(staged, walks)
        if unrestored and isinstance(exc, WaymarkError):
            raise _partial(exc, unrestored) from exc
        raise
    for item in staged:
        # The old files of deletes: the batch is in, nothing will be put back now.
        if item.tmp is not None:
            with contextlib.suppress(OSError):
                _discard(item, walks)


def replace_checked(walks: Walks, path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically (a temp file renamed over it), in the
    directory ``walks`` holds: for a rewind that has just compared the file's bytes there,
    under its lock, so no second read. A symlink or special file found there is refused."""
    absolute, dirs, name = split_path(path, False)
    try:
        dir_fd = walks.directory(absolute, dirs)
        old = lstat_at(name, dir_fd)
        _refuse_special(absolute, old)
        _replace_at(dir_fd, name, data, old, None)
        flush.hand_directory(dir_fd)
    except OSError as exc:
        raise os_error(exc, "write", absolute) from exc


def remove_dirs(created: Sequence[Path]) -> None:
    """Remove the directories a failed change made (deepest first) while they are empty."""
    for directory in reversed(created):
        absolute, dirs, name = split_path(directory, False)
        with contextlib.suppress(OSError), walk(absolute, dirs) as dir_fd:
            os.rmdir(name, dir_fd=dir_fd)


def _refuse_special(absolute: Path | str, old: os.stat_result | None) -> None:
    # The paths were resolved: a symlink or special file here appeared after the check.
    if old is not None and stat.S_ISLNK(old.st_mode):
        raise symlink_refused(absolute, str(absolute))
    if old is not None and not stat.S_ISREG(old.st_mode):
        raise not_regular(absolute, old.st_mode)


def _stage(write: BatchWrite, walks: Walks) -> _Staged:
    absolute, dirs, name = split_text(write.path, False)
    item = _Staged(write, absolute, dirs, name)
    if write.data is None:
        return item
    tmp = _temp_name(name)
    try:
        dir_fd = walks.directory(absolute, dirs)
        old = lstat_at(name, dir_fd)
        _refuse_special(absolute, old)
        try:
            _write_temp(dir_fd, tmp, write.data, old, None)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=dir_fd)
            raise
    except OSError as exc:
        raise os_error(exc, "write", Path(absolute)) from exc
    item.tmp = tmp
    return item


def _commit(item: _Staged, walks: Walks) -> None:
    try:
        dir_fd = walks.directory(item.absolute, item.dirs)
        # The read refuses a symlink or a special file there, as _refuse_special does; its
        # bytes are compared as they are read (no digest of either side, no copy kept).
        if not holds_at(item.absolute, item.name, dir_fd, item.write.before):
            raise _changed(item.absolute)
        if item.write.data is not None:
            assert item.tmp is not None
            os.rename(item.tmp, item.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            item.tmp = None
        elif item.write.before is not None:  # it holds them: it is there
            kept = _temp_name(item.name)
            os.rename(item.name, kept, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            item.tmp = kept
        item.committed = True
        flush.hand_directory(dir_fd)
    except OSError as exc:
        raise os_error(exc, item.action, Path(item.absolute)) from exc


def _discard(item: _Staged, walks: Walks) -> None:
    if item.tmp is None:
        return
    dir_fd = walks.directory(item.absolute, item.dirs)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(item.tmp, dir_fd=dir_fd)
    item.tmp = None


def _undo(staged: list[_Staged], walks: Walks) -> list[Path]:
    """Put back what the batch committed, drop what it staged; the files left changed."""
    unrestored: list[Path] = []
    for item in reversed(staged):
        try:
            if item.committed:
                _restore(item, walks)
            else:
                _discard(item, walks)
        except (OSError, WaymarkError):
            if item.committed:
                unrestored.append(Path(item.absolute))
    return unrestored[::-1]


def _restore(item: _Staged, walks: Walks) -> None:
    write = item.write
    dir_fd = walks.directory(item.absolute, item.dirs)
    if write.data is None:
        assert item.tmp is not None
        if lstat_at(item.name, dir_fd) is not None:
            # Someone made a new file there since: theirs is not overwritten.
            raise FileExistsError(item.name)
        os.rename(item.tmp, item.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        item.tmp = None
    else:
        # A file someone changed after the batch wrote it is theirs now.
        _check_expected(item.absolute, item.name, dir_fd, digest(write.data))
        if write.before is None:
            os.unlink(item.name, dir_fd=dir_fd)
        else:
            _replace_at(dir_fd, item.name, write.before, lstat_at(item.name, dir_fd), None)
    flush.hand_directory(dir_fd)


def _partial(exc: WaymarkError, unrestored: list[Path]) -> IoError:
    failed = exc.details.get("path", "a file")
    why = exc.details.get("errno", exc.code)
    names = ", ".join(map(str, unrestored))
    return IoError(
        f"Could not write {failed} ({why}), and could not put back {names}, which this "
        "change had already written (changed again meanwhile, or the disk refused); read "
        "them before changing them again.",
        {**exc.details, "unrestored": [str(p) for p in unrestored]},
    )

"""Where a workspace's history lives, and removing histories nobody opened for long."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from waymark.store.history import sweep_stamp
from waymark.store.history.sync import still_at
from waymark.store.private import open_private

# Histories of workspaces nobody opened for this long are removed when a history opens.
RETENTION_DAYS: Final = 30
# A history being deleted is renamed to this prefix first (see :func:`delete_history`).
DELETING: Final = ".deleting-"


def workspace_dir(history_root: Path, folders: Sequence[Path]) -> Path:
    """The one history directory of the workspace whose first folder is ``folders[0]``."""
    first = os.path.realpath(folders[0]) if folders else ""
    key = hashlib.sha256(os.fsencode(first)).hexdigest()[:16]
    return Path(history_root) / f"ws-{key}"


def remove_stale(root: Path, *, keep: Path, days: int = RETENTION_DAYS) -> list[Path]:
    """Delete workspace histories under ``root`` untouched for ``days``; never ``keep``.

    Walks them only when one can be stale or the root's entries changed (``sweep_stamp``).
    """
    removed: list[Path] = []
    now = time.time()
    mtime = sweep_stamp.root_mtime(root)
    if mtime is None or sweep_stamp.still_settled(root, mtime, now):
        return removed
    cutoff = now - days * 86400
    try:
        entries = list(os.scandir(root))
    except OSError:
        return removed
    # The earliest last use among the histories listed: none is stale before it + ``days``.
    oldest = now
    for entry in entries:
        if entry.name.startswith(DELETING):
            # Left over by a removal that was cut short; the next open looks again.
            _remove_tree(Path(entry.path))
            oldest = cutoff
            continue
        if not entry.name.startswith("ws-") or not entry.is_dir(follow_symlinks=False):
            continue
        last = _last_used(Path(entry.path))
        oldest = min(oldest, last)
        if last >= cutoff or entry.path == os.fspath(keep):
            continue
        if delete_history(Path(entry.path), wait=False):
            removed.append(Path(entry.path))
    sweep_stamp.record(root, mtime, oldest + days * 86400)
    return removed


def _last_used(directory: Path) -> float:
    newest = 0.0
    for name in ("journal.jsonl", "lock", "."):
        with contextlib.suppress(OSError):
            newest = max(newest, os.stat(directory / name, follow_symlinks=False).st_mtime)
    return newest


def delete_history(directory: Path, *, wait: bool = True) -> bool:
    """Remove one workspace history, under its lock; False if another process holds it.

    The directory is first renamed out of the way, in one step, and removed from there: a
    long-lived process working in it notices at its next operation that its lock file is
    gone and starts a fresh history at ``directory``, which this removal never reaches.
    """
    lock = directory / "lock"
    try:
        fd = open_private(lock, os.O_RDWR | os.O_NOFOLLOW)
    except FileNotFoundError:
        return False
    except OSError:
        fd = -1
    try:
        if fd >= 0:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            except BlockingIOError:
                return False
            if not still_at(fd, lock):
                # Someone deleted it while this waited: what is there now is a newer history.
                return True
        doomed = directory.with_name(f"{DELETING}{directory.name}-{os.urandom(4).hex()}")
        try:
            os.rename(directory, doomed)
        except OSError:
            doomed = directory
        _remove_tree(doomed)
        return True
    finally:
        if fd >= 0:
            os.close(fd)


def _remove_tree(path: Path) -> None:
    # Loaded here: every hook call opens a history, hardly any removes one.
    import shutil

    shutil.rmtree(path, ignore_errors=True)

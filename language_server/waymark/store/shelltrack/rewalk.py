"""A command's Pre walk of a folder without git, from the last Pre's and what a watch saw.

Outside git every Pre stats every file and checks each against the pre-image cache: at
5,000 files that is most of what a hook pair costs, paid on every command. In a resident
process (the hook server) whose watch (:mod:`.watch`) has seen the folder without a break
since the last Pre's walk, the folder changed only where inotify reported, so only those
paths are stat'ed again and the rest of the last walk stands. The files the last Pre found
copied, and nothing touched since, hold the bytes of their copy: the watch was armed before
the copy, so a write after it would have been reported. They are taken as copied without
the racy-stat rule (a copy made within two seconds of the file's last change is otherwise
made again), which is what made a freshly checked-out or generated tree cost a full copy on
every command for its first seconds.

The whole folder is walked, as before, whenever the watch cannot vouch (see :mod:`.watch`),
a directory was made, removed or moved, a touched file has other names (a write through one
reaches the others without an event), or the last walk was cut short or could not look
everywhere. Not seen by inotify, so taken as the last walk found it: a file written through
a long-lived shared mapping, or through a hard link from outside the folder, between two
commands (as a watched Post already takes it during one).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import NamedTuple

from waymark.store.shelltrack import watch
from waymark.store.shelltrack.rescan import local_file_system
from waymark.store.shelltrack.scan import (
    FolderScan,
    Signature,
    lstat_signature,
    walk,
    walk_paths,
)
from waymark.store.workspace import Workspace


class _Last(NamedTuple):
    """A folder's last Pre walk, the watch's token armed before it, and the files that Pre
    found copied (relative path → digest)."""

    scan: FolderScan
    token: list[object]
    copied: dict[str, str]


# Per folder, the newest last; as many as the watch keeps folders.
_LAST: dict[str, _Last] = {}
# Per folder walked by this Pre: the token, the files untouched since the last Pre's copies.
_UNTOUCHED: dict[str, tuple[list[object], dict[str, str]]] = {}


def scan(
    workspace: Workspace, folder: Path, max_files: int, token: list[object] | None
) -> FolderScan:
    """The walk of ``folder`` before a command: the last one brought up to date when it can
    be. ``token``: the watch armed on ``folder`` just before (None: not watched)."""
    key = os.fspath(folder)
    last = _LAST.pop(key, None)
    _UNTOUCHED.pop(key, None)
    result = None
    if last is not None and token is not None and local_file_system(folder):
        brought = _brought_up_to_date(workspace, folder, max_files, last)
        if brought is not None:
            result, untouched = brought
            _UNTOUCHED[key] = (token, untouched)
    if result is None:
        result = walk(folder, workspace, max_files)
    if token is not None and not result.cut_short and not result.unscanned:
        _LAST[key] = _Last(_copy(result), token, {})
        while len(_LAST) > watch.MAX_FOLDERS:
            _LAST.pop(next(iter(_LAST)))
    return result


def untouched_copies(scan: FolderScan) -> dict[str, str]:
    """Files of ``scan`` (relative) the last Pre found copied, untouched since: each one's
    digest, standing for its bytes now. Empty unless ``scan`` was brought up to date."""
    found = _UNTOUCHED.get(os.fspath(scan.scope))
    if found is None or found[0] != scan.watch:
        return {}
    return found[1]


def copied(scan: FolderScan, backups: dict[str, str], prefix: str) -> None:
    """Remember what this Pre found copied in ``scan``'s folder (``backups`` by key, each
    starting with ``prefix``), for the next Pre."""
    key = os.fspath(scan.scope)
    _UNTOUCHED.pop(key, None)
    last = _LAST.get(key)
    if last is None or last.token != scan.watch:
        return
    cut = len(prefix)
    last.copied.update({k[cut:]: d for k, d in backups.items() if k.startswith(prefix)})


def _brought_up_to_date(
    workspace: Workspace, folder: Path, max_files: int, last: _Last
) -> tuple[FolderScan, dict[str, str]] | None:
    """The last walk with the paths touched since stat'ed again, and the last copies
    nothing touched since; None: walk it all."""
    watches = watch.active()
    touched = watches.touched(last.token) if watches is not None else None
    if touched is None or touched.directories:
        return None
    fresh = walk_paths(folder, workspace, sorted(touched.paths), max_files)
    if fresh.unscanned:
        return None
    for rel, sig in fresh.dirty.items():
        if _linked(folder, rel, sig):
            return None
    before = last.scan
    dirty: dict[str, Signature | None] = {
        rel: sig for rel, sig in before.dirty.items() if rel not in touched.paths
    }
    dirty.update(fresh.dirty)
    if len(dirty) > max_files:
        return None
    result = FolderScan(folder, False, folder, dirty=dirty)
    # A tool directory's own entry changes only by a directory event (made, removed or
    # moved: walked whole above); its stat is taken again as a walk would.
    result.bulky = {rel: lstat_signature(folder / rel) for rel in before.bulky}
    untouched = {rel: d for rel, d in last.copied.items() if rel not in touched.paths}
    return result, untouched


def _linked(folder: Path, rel: str, sig: Signature | None) -> bool:
    """Whether ``rel`` is a regular file with other names."""
    if sig is None or not stat.S_ISREG(sig[0]):
        return False
    try:
        return os.lstat(folder / rel).st_nlink > 1
    except OSError:
        return True


def _copy(result: FolderScan) -> FolderScan:
    """The walk, kept apart from the scan the Pre goes on to fill in."""
    return FolderScan(
        result.root,
        False,
        result.scope,
        dirty=dict(result.dirty),
        bulky=dict(result.bulky),
    )

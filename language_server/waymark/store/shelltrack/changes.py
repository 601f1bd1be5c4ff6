"""What a shell command changed in one scanned folder, by comparing its scans before and after.

:func:`diff` turns the two scans into changes (pre-image bytes, new digest) and the paths
out of reach (path → reason code); :func:`refusal` says why a file cannot be tracked.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from waymark.engine.errors import FileTooLarge, WaymarkError
from waymark.store.files import digest
from waymark.store.history import History
from waymark.store.history.backups import read_tracked
from waymark.store.shelltrack.afterwards import index_before, key_prefix
from waymark.store.shelltrack.preimages import Preimages, Unreachable, git_blobs
from waymark.store.shelltrack.scan import (
    SYMLINK_MODE,
    FolderScan,
    Signature,
    index_blobs,
    signature,
)
from waymark.store.shelltrack.unseen import Unseen


def diff(
    history: History,
    cache: Preimages,
    before: FolderScan,
    after: FolderScan,
    backups: dict[str, str],
    skipped: dict[str, str],
    changes: dict[str, tuple[bytes | None, str | None]],
    unreached: dict[str, str],
    unseen: Unseen,
) -> None:
    """Add what changed between ``before`` and ``after`` to ``changes`` (key → pre-image,
    new digest), and what could not be tracked to ``unreached`` (key → reason code)."""
    limit = history.workspace.max_file_size
    root = key_prefix(before.root)
    candidates = set(before.dirty) | set(after.dirty)
    old_index: dict[str, tuple[str, str]] | None = None
    if before.git and after.index_sig != before.index_sig:
        # The command changed the index: every entry that moved is a candidate too.
        old_index = index_before(before, None)
        assert after.index is not None
        new_index = index_blobs(after, after.index, None)
        changed = old_index.keys() | new_index.keys()
        candidates |= {p for p in changed if old_index.get(p) != new_index.get(p)}
    was_clean: list[str] = []
    for rel in sorted(candidates):
        key = root + rel
        # A string key, not a Path join: ignored files make this thousands of stats.
        now = _as_file(after.dirty[rel] if rel in after.dirty else _stat(key))
        if rel in before.dirty:
            was = _as_file(before.dirty[rel])
            if was == now:
                continue
            if was is not None and key not in backups:
                unreached[key] = skipped.get(key, "unreadable")
                continue
        elif unseen.why(rel) is not None and unseen.unchanged(now):
            # It existed where the scan could not see, and the command left it as it was.
            continue
        why = refusal(history, key, now) if now is not None else policy_refusal(history, key)
        if why is not None:
            unreached[key] = why
            continue
        if rel in before.dirty:
            old_digest = backups.get(key)
            try:
                old = cache.load(old_digest) if old_digest is not None else None
            except Unreachable as exc:
                unreached[key] = str(exc.args[0])
                continue
            _note(key, old, changes, unreached, limit)
        else:
            was_clean.append(rel)
    if old_index is None:
        known = before.index_known
        if known is not None and known[0].issuperset(was_clean):
            old_index = known[1]
        else:
            old_index = index_before(before, was_clean)
    clean: dict[str, str] = {}
    for rel in was_clean:
        key = root + rel
        if rel not in old_index:
            existed = unseen.why(rel)
            if existed is None:
                # In no index and listed nowhere before, where the scan saw: it did not exist.
                _note(key, None, changes, unreached, limit)
            elif existed == "ignored":
                unreached[key] = existed
            # Else it lies where the scan could not see: its folder is listed.
        elif old_index[rel][0] == SYMLINK_MODE:
            unreached[key] = "symlink"
        else:
            clean[rel] = old_index[rel][1]
    blobs, oversized = git_blobs(before.root, set(clean.values()), limit)
    for rel, blob_id in clean.items():
        key = root + rel
        if blob_id not in blobs:
            unreached[key] = "too_large" if blob_id in oversized else "unreadable"
            continue
        _note(key, blobs[blob_id], changes, unreached, limit)


def _stat(key: str) -> Signature | None:
    try:
        return signature(os.lstat(key))
    except OSError:
        return None


def _as_file(sig: Signature | None) -> Signature | None:
    """A directory where a file is tracked means the file is absent: what the directory
    holds is tracked file by file (a command may swap a file for a directory)."""
    return None if sig is not None and stat.S_ISDIR(sig[0]) else sig


def _note(
    key: str,
    old: bytes | None,
    changes: dict[str, tuple[bytes | None, str | None]],
    unreached: dict[str, str],
    limit: int,
) -> None:
    try:
        state = read_tracked(Path(key), any_directory=True, limit=limit)
    except FileTooLarge:
        unreached[key] = "too_large"
        return
    except WaymarkError:
        unreached[key] = "unreadable"
        return
    if state.digest == (digest(old) if old is not None else None):
        return
    changes[key] = (old, state.digest)


def policy_refusal(history: History, key: str) -> str | None:
    """Why the workspace's path policy keeps ``key`` out of reach, or None."""
    try:
        history.workspace.resolve(key)
    except WaymarkError as exc:
        return "outside_workspace" if exc.code == "path_outside_workspace" else "protected"
    return None


def refusal(history: History, key: str, sig: Signature, *, policed: bool = False) -> str | None:
    """Why ``key`` (with stat ``sig``) cannot be tracked, or None; ``policed``: the scan
    that found it already kept to the workspace's allowed paths."""
    if stat.S_ISLNK(sig[0]):
        return "symlink"
    if not stat.S_ISREG(sig[0]):
        return "not_a_file"
    why = None if policed else policy_refusal(history, key)
    if why is not None:
        return why
    if sig[3] > history.workspace.max_file_size:
        return "too_large"
    return None

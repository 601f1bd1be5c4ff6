"""A folder after a command, asking as little as it can: where a watch saw writes.

In a resident process (the hook server) a command's Post looks only at the paths inotify
named (:mod:`.watch`), and at every other name of a file written through one of them: a
hard link's other names see the write but get no event of their own. Also here: what both
kinds of Post ask of git (the index as it was, which paths it ignores).
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path
from typing import NamedTuple

from waymark.store.shelltrack import watch
from waymark.store.shelltrack.scan import (
    DEFAULT_MAX_FILES,
    FolderScan,
    GitUnavailable,
    Signature,
    index_blobs,
    lstat_signature,
    scan_git,
    walk_paths,
)
from waymark.store.workspace import Workspace


class Watched(NamedTuple):
    """A folder after the command as the watch saw it, and the paths stat'ed afresh."""

    after: FolderScan
    fresh: set[str]


def key_prefix(root: Path) -> str:
    """``root`` as the start of its files' keys (a join per file costs a walk's time)."""
    text = os.fspath(root)
    return text if text.endswith("/") else text + "/"


def watched(workspace: Workspace, before: FolderScan) -> Watched | None:
    """The folder after the command from what the watch saw touched, or None: scan it all."""
    watches = watch.active()
    if before.watch is None or watches is None:
        return None
    touched = watches.touched(before.watch)
    if touched is None:
        return None
    if before.git:
        if before.index is None or same_repository(before) is None:
            return None
        after = _watched_git(before, touched)
        if after is None:
            return None
    else:
        after = walk_paths(before.root, workspace, sorted(touched.paths))
    fresh = set(after.dirty)
    below = tuple(f"{d}/" for d in touched.directories)
    kept = {
        rel: sig
        for rel, sig in before.dirty.items()
        if rel not in touched.paths and not (below and rel.startswith(below))
    }
    after.dirty = {**kept, **after.dirty}
    if not before.git and len(after.dirty) > DEFAULT_MAX_FILES:
        after.cut_short = True
    return Watched(after, fresh)


def _watched_git(before: FolderScan, touched: watch.Touched) -> FolderScan | None:
    """git's view after the command of the paths it touched, asking git as little as it can.

    A file git showed before (changed or untracked) is as dirty as a stat says: if it went
    back to its index bytes, the diff finds that by content. A file in the index copy was
    clean: the diff compares its bytes with its blob. Any other file that exists is new,
    unless git ignores it. A directory made, removed or moved is git's to list (status).
    """
    root, index = before.root, before.index
    assert index is not None
    directories = sorted(touched.directories)
    if directories:
        try:
            after = scan_git(before.scope, root, index, directories)
        except GitUnavailable:
            return None
    else:
        after = FolderScan(root, True, before.scope, index=index, index_sig=lstat_signature(index))
    files = [p for p in touched.paths if p not in touched.directories and p not in after.dirty]
    unknown = sorted(p for p in files if p not in before.dirty)
    try:
        listing = index_before(before, unknown)
    except GitUnavailable:
        return None
    before.index_known = (set(unknown), listing)
    new: dict[str, Signature] = {}
    for rel in files:
        sig = lstat_signature(root / rel)
        if rel in before.dirty or rel in listing:
            after.dirty[rel] = sig
        elif sig is not None:
            new[rel] = sig
    ignored = {os.fspath(p) for p in git_ignored([root], [root / rel for rel in new])}
    prefix = key_prefix(root)
    after.dirty.update({rel: sig for rel, sig in new.items() if prefix + rel not in ignored})
    return after


def other_names(befores: list[FolderScan], seen: list[Watched | None]) -> list[FolderScan | None]:
    """The watched folders after the command (None: scan it whole), each also holding every
    other name of a file written through a name the watch saw.

    Only a file with more than one link needs looking for: its other names are found by
    inode among the files the scans before stat'ed (every file outside git; what git showed
    inside). A name not found may be a clean file of a git folder, which no scan stat'ed:
    those folders are then scanned whole, as without a watch (where git ignores the name,
    it finds nothing there either).
    """
    links: dict[tuple[int, int], int] = {}
    names: dict[tuple[int, int], set[str]] = {}
    for item in seen:
        if item is None:
            continue
        prefix = key_prefix(item.after.root)
        for rel in item.fresh:
            try:
                st = os.lstat(prefix + rel)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
                links[(st.st_dev, st.st_ino)] = st.st_nlink
                names.setdefault((st.st_dev, st.st_ino), set()).add(prefix + rel)
    afters = [item.after if item is not None else None for item in seen]
    if not links:
        return afters
    for before, after in zip(befores, afters, strict=True):
        prefix = key_prefix(before.root)
        for rel, sig in before.dirty.items():
            if sig is None or (sig[1], sig[2]) not in links:
                continue
            now = lstat_signature(Path(prefix + rel))
            if now is not None and (now[1], now[2]) == (sig[1], sig[2]):
                names[(sig[1], sig[2])].add(prefix + rel)
            if after is not None:
                after.dirty[rel] = now
    if all(len(names[inode]) >= count for inode, count in links.items()):
        return afters
    return [None if before.git else after for before, after in zip(befores, afters, strict=True)]


def same_repository(before: FolderScan | None) -> tuple[Path, Path] | None:
    """begin's top level and index again, without a ``git rev-parse``, when they cannot have
    moved: the folder is the top level of an ordinary repository, whose ``.git`` directory is
    still there (``rev-parse`` would answer the same)."""
    if before is None or before.scope != before.root or before.index is None:
        return None
    dot_git = before.root / ".git"
    if before.index != dot_git / "index" or not stat.S_ISDIR((lstat_signature(dot_git) or (0,))[0]):
        return None
    return before.root, before.index


def index_before(before: FolderScan, paths: list[str] | None) -> dict[str, tuple[str, str]]:
    """Blob ids in the index as it was before the command (its copy)."""
    if before.index_copy is None or (paths is not None and not paths):
        return {}
    return index_blobs(before, before.index_copy, paths)


def git_ignored(roots: list[Path], paths: list[Path]) -> list[Path]:
    """Which of ``paths`` git ignores, each asked of the innermost repository holding it
    (git refuses a whole batch that has a path inside a submodule)."""
    by_root: dict[Path, list[Path]] = {}
    for path in dict.fromkeys(paths):
        holding = [r for r in roots if path.is_relative_to(r)]
        if holding:
            by_root.setdefault(max(holding, key=lambda r: len(r.parts)), []).append(path)
    out: list[Path] = []
    for root, group in by_root.items():
        try:
            done = subprocess.run(
                ["git", "check-ignore", "-z", "--stdin"],
                cwd=root,
                input=b"".join(os.fsencode(p) + b"\0" for p in group),
                capture_output=True,
                env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
                timeout=30,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        out.extend(Path(os.fsdecode(p)) for p in done.stdout.split(b"\0") if p)
    return out

"""Bracket a shell command: scan before, diff after, record the changes into the open turn.

:func:`begin` scans every workspace folder and backs up what has no other copy, then saves
that state under a name (the host's tool-use id, or one of our own); :func:`finish` scans
again, works out which files were created, modified or deleted, and records each one's
pre-image and new digest with :meth:`History.track_shell`, so a rewind restores them with
the usual conflict rules. What cannot be tracked is listed (``unreached``), never skipped
silently.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from waymark.store.history import History
from waymark.store.private import FILE_MODE
from waymark.store.shelltrack import ignored, rescan, rewalk, watch
from waymark.store.shelltrack.afterwards import (
    git_ignored,
    key_prefix,
    other_names,
    same_repository,
    watched,
)
from waymark.store.shelltrack.changes import diff, refusal
from waymark.store.shelltrack.named import MAYBE_IGNORED, named_paths
from waymark.store.shelltrack.policies import GitPolicy, WalkPolicy
from waymark.store.shelltrack.preimages import Preimages, Unreachable
from waymark.store.shelltrack.saved import scan_from_state, scan_state
from waymark.store.shelltrack.scan import (
    DEFAULT_MAX_FILES,
    FolderScan,
    GitUnavailable,
    git_paths,
    lstat_signature,
    scan_git,
    walk,
)
from waymark.store.shelltrack.unseen import Unseen, clock

# Repositories inside the workspace scanned on their own (each costs a git status).
_MAX_REPOSITORIES = 50

# What one command's PreToolUse may spend copying files that have no other copy: a folder
# without git is copied a part per command, so no hook call runs into the host's timeout.
BACKUP_SECONDS = 1.0


@dataclass
class Begun:
    """What :func:`begin` could not back up (key → reason) and the scans it made."""

    skipped: dict[str, str]
    scans: list[FolderScan]


@dataclass
class Report:
    """What one command changed (workspace-relative paths) and what was out of reach (path →
    reason code; the command layer words them, see ``commands/shellreport.py``)."""

    created: list[str] = field(default_factory=list)
    modified: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    unreached: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "created": self.created,
            "modified": self.modified,
            "deleted": self.deleted,
            "unreached": [{"path": p, "reason": r} for p, r in sorted(self.unreached.items())],
            "warnings": self.warnings,
        }


def _cache(history: History) -> Preimages:
    return Preimages(history.dir / "shell")


def begin(
    history: History,
    name: str,
    *,
    command: str | None = None,
    cwd: Path | None = None,
    max_files: int = DEFAULT_MAX_FILES,
    backup_seconds: float = BACKUP_SECONDS,
    unhurried_seconds: float = 0.0,
) -> Begun:
    """Scan the workspace and back up what has no other copy, before a command runs.

    Copies stop after ``backup_seconds`` (up to ``unhurried_seconds`` while no one waits
    for the history's lock: a background fill); the files left are out of reach for this
    command (reported if it changes them) and copied by the next ones. Returns what was not
    copied.
    """
    copying = history.lock.slice(backup_seconds, unhurried_seconds)
    started = clock()
    with history.lock:
        cache = _cache(history)
        scans: list[FolderScan] = []
        backups: dict[str, str] = {}
        skipped: dict[str, str] = {}
        for folder in history.workspace.folders:
            token, paths = _arm(history, folder)
            folder_scans = _scan_with_nested(history, folder, max_files, paths, token)
            first = folder_scans[0]
            # One scan of the whole folder, from its top: what a watch's paths stand for.
            if len(folder_scans) == 1 and first.scope == first.root and not first.cut_short:
                first.watch = token
            scans.extend(folder_scans)
        budget = history.max_bytes // ignored.BUDGET_SHARE
        for scan in scans:
            kept = rescan.expand(scan, budget)
            scan.bulky.update(kept.bulky)
            prefix = key_prefix(scan.root)
            for rel, file_sig in kept.files.items():
                scan.dirty.setdefault(rel, file_sig)
            skipped.update({prefix + rel: why for rel, why in kept.refused.items()})
        for number, scan in enumerate(scans):
            # A walk of the one folder skipped protected paths itself and follows no link, so
            # each of its (often thousands of) files needs no resolve of its own.
            walked = not scan.git and history.workspace.folders == [scan.root]
            if scan.index is not None and scan.index_sig is not None:
                # The index as it was: the command may stage, commit or check out.
                scan.index_copy = cache.pending_path(name, f"{number}.index")
                shutil.copyfile(scan.index, scan.index_copy)
                os.chmod(scan.index_copy, FILE_MODE)
            root = key_prefix(scan.root)
            untouched = rewalk.untouched_copies(scan)
            for rel, sig in scan.dirty.items():
                key = root + rel
                if sig is None or key in skipped:
                    continue
                # Most files were copied by an earlier command and not touched since; whether
                # a changed one may be tracked is asked after the command, as of every file.
                content = untouched.get(rel)
                if content is not None and cache.holds(key, sig, content):
                    backups[key] = content
                    continue
                known = cache.up_to_date(key, sig)
                if known is not None and sig[3] <= history.workspace.max_file_size:
                    backups[key] = known
                    continue
                why = refusal(history, key, sig, policed=walked)
                if why is None:
                    try:
                        backups[key] = cache.back_up(
                            key,
                            sig,
                            history.workspace.max_file_size,
                            copy=copying(),
                        )
                        continue
                    except Unreachable as exc:
                        why = str(exc.args[0])
                skipped[key] = why
            if not scan.git:
                rewalk.copied(scan, backups, root)
        cache.save()
        cache.put_pending(
            name,
            {
                "scans": [scan_state(s) for s in scans],
                "backups": backups,
                "skipped": skipped,
                "named": named_paths(history, scans, command, cwd) if command else {},
                "started": started,
            },
        )
        return Begun(skipped, scans)


def finish(
    history: History,
    name: str,
    *,
    record: Callable[[dict[str, tuple[bytes | None, str | None]], dict[str, str]], list[str]]
    | None = None,
) -> Report | None:
    """Diff against :func:`begin`'s state and record the changes; None if it never ran.

    ``record`` (the changes, what was out of reach → warnings) records them elsewhere than
    into the open turn (the language server's watch: a turn of other programs' changes).
    """
    with history.lock:
        cache = _cache(history)
        pending = cache.take_pending(name)
        if pending is None:
            return None
        report = Report()
        changes: dict[str, tuple[bytes | None, str | None]] = {}
        # Named paths out of reach are reported only if the command changed them.
        named = {
            path: reason
            for path, (reason, sig) in pending["named"].items()
            if lstat_signature(Path(path)) != (tuple(sig) if sig is not None else None)
        }
        unreached = {path: reason for path, reason in named.items() if reason != MAYBE_IGNORED}
        backups: dict[str, str] = pending["backups"]
        skipped: dict[str, str] = pending["skipped"]
        befores = [scan_from_state(raw) for raw in pending["scans"]]
        # A command begun by an older Waymark did not say when: every file its scans could
        # not see may have changed.
        started: int = pending.get("started", 0)
        scopes = {os.fspath(b.scope) for b in befores}
        seen = [watched(history.workspace, before) for before in befores]
        for before, seen_after in zip(befores, other_names(befores, seen), strict=True):
            if before.cut_short:
                unreached[os.fspath(before.root)] = "scan_cut_short"
            after = seen_after or _scan(history, before.scope, before, DEFAULT_MAX_FILES)
            for rel, why in {**before.unscanned, **after.unscanned}.items():
                unreached[os.fspath(before.root / rel)] = why
            _bulky_changed(before, named, unreached)
            if after.git != before.git or after.root != before.root:
                unreached[os.fspath(before.scope)] = "scan_failed"
            else:
                _adopt_new_repositories(history, before, after, scopes, unreached)
                unseen = Unseen(before, started)
                diff(history, cache, before, after, backups, skipped, changes, unreached, unseen)
            if before.index_copy is not None:
                with contextlib.suppress(OSError):
                    before.index_copy.unlink()
        # A named file the scans did not see change, though it did: git ignores it (asked
        # only now, of the few that changed; a tracked file is never ignored).
        unnoticed = [
            Path(path)
            for path, reason in named.items()
            if reason == MAYBE_IGNORED and path not in changes and path not in unreached
        ]
        roots = [b.root for b in befores if b.git]
        unreached.update({os.fspath(p): "ignored" for p in git_ignored(roots, unnoticed)})
        for key, (old, new) in sorted(changes.items()):
            display = history.display(key)
            kind = report.created if old is None else report.deleted if new is None else None
            (kind if kind is not None else report.modified).append(display)
        cache.forget([k for k, (_, new) in changes.items() if new is None])
        cache.save()
        report.unreached = {history.display(k): r for k, r in unreached.items()}
        report.warnings = (record or history.track_shell)(changes, unreached)
        return report


def _bulky_changed(before: FolderScan, named: dict[str, str], unreached: dict[str, str]) -> None:
    """Name the bulky trees the command removed or replaced, or changed a path it named in
    (those paths then go under the tree's name). Files appearing in one (``__pycache__``,
    a build) are no loss and are not named."""
    for rel, sig in before.bulky.items():
        key = os.fspath(before.root / rel)
        now = lstat_signature(Path(key))
        inside = [p for p in named if p == key or p.startswith(key + "/")]
        if now is None or sig is None or now[1:3] != tuple(sig)[1:3] or inside:
            for path in inside:
                named.pop(path)
                unreached.pop(path, None)
            unreached[key] = ignored.BULKY


def _arm(history: History, folder: Path) -> tuple[list[object] | None, tuple[Path, Path] | None]:
    """Where ``folder``'s git work tree is, and (in a resident process) a watch armed on it
    before it is scanned, so that the command's changes are all seen from then on."""
    paths = git_paths(folder)
    watches = watch.active()
    if watches is None:
        return None, paths
    git = paths is not None and paths[0] == folder
    policy = GitPolicy(folder) if git else WalkPolicy(folder, history.workspace)
    return watches.arm(folder, policy), paths


def _scan_with_nested(
    history: History,
    folder: Path,
    max_files: int,
    paths: tuple[Path, Path] | None,
    token: list[object] | None,
) -> list[FolderScan]:
    """``folder``'s scan, then one per repository inside it (nested ones, submodules): git
    shows each as one entry of the outer status, and what they hold only to their own."""
    scans = [_first_scan(history, folder, max_files, paths, token)]
    queue = list(scans[0].nested)
    while queue:
        inner = queue.pop(0)
        if len(scans) > _MAX_REPOSITORIES:
            outer = next(s for s in scans if inner in s.nested)
            outer.unscanned[os.path.relpath(inner, outer.root)] = "too_many_repositories"
            continue
        scan = _scan(history, Path(inner), None, max_files)
        scans.append(scan)
        queue.extend(scan.nested)
    return scans


def _first_scan(
    history: History,
    folder: Path,
    max_files: int,
    paths: tuple[Path, Path] | None,
    token: list[object] | None,
) -> FolderScan:
    """The scan of a workspace folder before a command: at the top of an ordinary
    repository, the last one's brought up to date where the watch allows (:mod:`.rescan`)."""
    if paths is not None and paths == (folder, folder / ".git" / "index"):
        with contextlib.suppress(GitUnavailable):
            return rescan.scan(folder, paths[1], token)
    if paths is None:
        return rewalk.scan(history.workspace, folder, max_files, token)
    return _scan_at(history, folder, paths, max_files, ignored=True)


def _adopt_new_repositories(
    history: History,
    before: FolderScan,
    after: FolderScan,
    scopes: set[str],
    unreached: dict[str, str],
) -> None:
    """A repository the command made (``git init``, ``git clone``) is new files of the outer
    one: its walk joins ``after``. One that went away stays its own scan's business."""
    for inner in after.nested:
        relative = os.path.relpath(inner, after.root)
        if inner in scopes or relative in before.unscanned:
            continue
        fresh = walk(Path(inner), history.workspace, DEFAULT_MAX_FILES)
        if fresh.cut_short:
            unreached[inner] = "scan_cut_short"
        after.dirty.update({f"{relative}/{rel}": sig for rel, sig in fresh.dirty.items()})
        after.unscanned.update({f"{relative}/{rel}": why for rel, why in fresh.unscanned.items()})
    for inner in scopes:
        # Its files are its own scan's (which says if it vanished), never the outer one's.
        relative = os.path.relpath(inner, after.root)
        if inner != os.fspath(after.scope) and not relative.startswith(".."):
            prefix = relative + "/"
            after.dirty = {k: v for k, v in after.dirty.items() if not k.startswith(prefix)}


def _scan(history: History, folder: Path, before: FolderScan | None, max_files: int) -> FolderScan:
    """git's view when ``folder`` is in a work tree (and was before), else a bounded walk;
    ``before`` None: the scan before the command."""
    git = before is None or before.git
    paths = (same_repository(before) or git_paths(folder)) if git else None
    return _scan_at(history, folder, paths, max_files, ignored=before is None)


def _scan_at(
    history: History,
    folder: Path,
    paths: tuple[Path, Path] | None,
    max_files: int,
    *,
    ignored: bool = False,
) -> FolderScan:
    """git's view of ``folder`` in the work tree at ``paths`` (top level, index), or a walk;
    ``ignored``: with what git ignores (before the command, where the rules may change)."""
    if paths is not None:
        with contextlib.suppress(GitUnavailable):
            return scan_git(folder, *paths, ignored=ignored)
    return walk(folder, history.workspace, max_files)

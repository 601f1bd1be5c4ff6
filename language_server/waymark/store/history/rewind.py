"""Rewind: doing what a plan (:mod:`~.plan`) says, file by file.

A rewind first opens an undo turn (so it can itself be rewound), then restores file by file
under the history's lock and each file's own (:func:`~.writelocks.write_locks`): a file is replaced
only if it still holds exactly the bytes planned, which the undo turn holds.

Each thread reaches each directory once for the whole rewind
(:class:`~waymark.store.walk.Walks`): the file's lock, its re-read and its replace all go
through the descriptor of the directory walked without following symlinks, so the
comparison made under the lock is the last one before the rename (no second read of the
file, as ``expected=`` made).
"""

from __future__ import annotations

import os
import stat
import uuid
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

from waymark.engine.errors import (
    FileChangedSinceRead,
    FileTooLarge,
    IoError,
    IsDirectory,
    WaymarkError,
)
from waymark.store.batch import replace_checked
from waymark.store.files import create_parents, delete_file
from waymark.store.history.backups import error_errno, read_tracked
from waymark.store.history.budget import evict
from waymark.store.history.capture import note_writes
from waymark.store.history.errors import PlanMismatch, RewindRunning, UnknownOption
from waymark.store.history.parts import Parts
from waymark.store.history.plan import FilePlan, RewindPlan, chosen, failure, plan_file
from waymark.store.history.pool import bounded_map, io_workers
from waymark.store.history.snapshots import FileEntry
from waymark.store.history.turns import open_turn, require
from waymark.store.history.writelocks import FileLocks, write_locks
from waymark.store.walk import ThreadWalks, Walks, lstat_at, split_path

# What a rewind may do: restore files, drop the later turns, or both.
OPTIONS: Final = ("code", "conversation", "both")
# A rewind waits this long for a file another process is writing, then leaves it alone.
_LOCK_TIMEOUT: Final = 2.0

Done = Literal["restored", "deleted", "unchanged", "conflict", "failed"]


@dataclass(frozen=True)
class FileOutcome:
    """What a rewind did to one file (``digest``: what it wrote, for restored files)."""

    key: str
    path: str
    kind: Done
    reason: str | None = None
    errno: str | None = None
    digest: str | None = None


@dataclass
class RewindResult:
    """What a rewind did: one outcome per tracked file, the undo turn, dropped turns."""

    prompt_id: str
    option: str
    undo_prompt_id: str
    outcomes: list[FileOutcome] = field(default_factory=list)
    dropped_turns: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def add(self, done: FileOutcome) -> None:
        self.outcomes.append(done)

    def keys(self, *kinds: Done) -> list[str]:
        """Absolute paths of the files whose outcome is one of ``kinds``."""
        return [o.key for o in self.outcomes if o.kind in kinds]


def rewind(
    h: Parts,
    prompt_id: str,
    option: str,
    force: bool,
    plan: RewindPlan | None,
    blocked: Mapping[str, str],
    only: AbstractSet[str] | None = None,
) -> RewindResult:
    """Rewind to the start of turn ``prompt_id`` (see :meth:`History.rewind`)."""
    if option not in OPTIONS:
        raise UnknownOption(option, OPTIONS)
    if plan is not None and plan.prompt_id != prompt_id:
        raise PlanMismatch(plan.prompt_id, prompt_id)
    if not h.gate.acquire(blocking=False):
        raise RewindRunning(prompt_id)
    try:
        with write_locks(h) as files:
            return _rewind(h, files, prompt_id, option, force, plan, blocked, only)
    finally:
        h.gate.release()


def _rewind(
    h: Parts,
    files: FileLocks,
    prompt_id: str,
    option: str,
    force: bool,
    plan: RewindPlan | None,
    blocked: Mapping[str, str],
    only: AbstractSet[str] | None,
) -> RewindResult:
    ledger, backups = h.ledger, h.backups
    target = require(ledger, prompt_id)
    if plan is not None:
        force = plan.force
    # Eviction waits until the end so the turn being restored keeps its blobs meanwhile.
    undo, warnings = open_turn(
        ledger,
        backups,
        f"undo-{uuid.uuid4().hex[:12]}",
        f"before rewind to {prompt_id}",
        evict_after=False,
    )
    result = RewindResult(prompt_id, option, undo.prompt_id, warnings=warnings)
    if option != "conversation":
        planned = {f.key: f for f in plan.files} if plan is not None else None
        keys = chosen(ledger.model, only)
        # A restore waits on the disk even with its fsync behind (ext4 starts writing a file
        # renamed over another at once): with many bytes, a few in flight keep the disk busy.
        # Below that, threads cost more than they save (the GIL handed back and forth: 50
        # files of 40 KB took more CPU and longer on four threads than on one). Each thread
        # walks each directory once for its files (:class:`~waymark.store.walk.Walks`).
        size = sum(_size(ledger.model.target(target, k)) + _size(undo.files.get(k)) for k in keys)
        workers = io_workers(size)
        with ThreadWalks() as walks:

            def step(key: str) -> FileOutcome:
                mine = walks.get()
                fresh = plan_file(h, key, target, force, blocked, mine)
                if planned is not None:
                    fresh = _against_preview(planned.get(key), fresh)
                return _carry_out(files, fresh, undo.files.get(key), mine)

            writes: dict[str, str | None] = {}
            # Deletions first: a file a command put where a directory was must be gone
            # before the files under that directory come back (and a directory made where a
            # file was must be empty before the file does).
            gone = [k for k in keys if ledger.model.target(target, k).state == "absent"]
            rest = [k for k in keys if ledger.model.target(target, k).state != "absent"]
            for batch in (gone, rest):
                for done in bounded_map(step, batch, workers):
                    result.add(done)
                    if done.kind in ("restored", "deleted"):
                        writes[done.key] = done.digest
        result.outcomes.sort(key=lambda done: done.key)
        if writes:
            note_writes(ledger, backups, h.session, writes)
    if option != "code":
        for snap in ledger.model.ordered():
            if target.seq < snap.seq < undo.seq:
                ledger.commit(ledger.model.drop_record(snap))
                result.dropped_turns.append(snap.prompt_id)
    evict(ledger)
    return result


def _size(entry: FileEntry | None) -> int:
    return 0 if entry is None else entry.size or 0


def _carry_out(
    files: FileLocks, plan: FilePlan, undo: FileEntry | None, walks: Walks
) -> FileOutcome:
    """Do what the plan says for one file, unless the undo snapshot cannot cover it.

    ``walks``: the directories this thread of the rewind already reached."""
    if plan.outcome == "unchanged":
        return FileOutcome(plan.key, plan.path, "unchanged")
    if plan.outcome == "conflict":
        return FileOutcome(plan.key, plan.path, "conflict", plan.reason)
    if plan.outcome == "failed":
        return FileOutcome(plan.key, plan.path, "failed", plan.reason, plan.errno)
    if plan.current_digest is not None:
        # Never replace bytes the undo snapshot does not hold: that would lose them.
        if undo is None or undo.state == "failed":
            return FileOutcome(
                plan.key, plan.path, "failed", "undo_backup_failed", undo.error if undo else None
            )
        if undo.digest != plan.current_digest:
            return FileOutcome(plan.key, plan.path, "conflict", "changed_during_rewind")
    changed = FileOutcome(plan.key, plan.path, "conflict", "changed_during_rewind")
    try:
        # A file there now has its directory: only one absent may need it made again.
        if plan.outcome == "restore" and plan.current_digest is None:
            create_parents(plan.real)
        # Under the file's lock no other Waymark process writes it: re-read, compare, and
        # replace only exactly the bytes planned (which the undo turn holds). Every step
        # goes through the directory this rewind reached without following symlinks.
        with files.hold(plan.real, timeout=_LOCK_TIMEOUT, walks=walks):
            # Planned from a read of the whole file: a file grown past it changed.
            size = len(plan.current or b"")
            if read_tracked(plan.real, limit=size, walks=walks).digest != plan.current_digest:
                return changed
            if plan.outcome == "restore" and plan.target is not None:
                if _remove_empty_tree(plan.real, walks):
                    # A directory held on the way to later files may be the one removed.
                    walks.forget()
                # Compared just above, under the same lock and in the same directory.
                replace_checked(walks, plan.real, plan.target)
                return FileOutcome(plan.key, plan.path, "restored", digest=plan.target_digest)
            delete_file(plan.real, expected=plan.current_digest)
            return FileOutcome(plan.key, plan.path, "deleted")
    except (FileChangedSinceRead, FileTooLarge):
        return changed
    except WaymarkError as exc:
        if isinstance(exc, IoError) and exc.details.get("errno") == "EAGAIN":
            # Another process is writing it right now: its change wins, as any later one.
            return FileOutcome(plan.key, plan.path, "conflict", "being_written_elsewhere")
        return FileOutcome(plan.key, plan.path, "failed", failure(exc), error_errno(exc))


def _remove_empty_tree(path: Path, walks: Walks) -> bool:
    """Remove the directory a command made where the file goes back, if it holds only
    directories (its files were tracked and deleted first); anything else in it stays and
    the restore fails with ``is_directory``. Whether there was one to remove."""
    absolute, dirs, name = split_path(path, False)
    try:
        parent = walks.directory(absolute, dirs)
        st = lstat_at(name, parent)
        if st is None or not stat.S_ISDIR(st.st_mode):
            return False
        _remove_dir(name, parent)
        return True
    except OSError as exc:
        raise IsDirectory(
            f"{path} is a directory with files in it; move them away and rewind again.",
            {"path": str(path)},
        ) from exc


def _remove_dir(name: str, parent: int) -> None:
    fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
    try:
        for entry in os.scandir(fd):
            # Only a real directory is entered; a file, link or anything else makes the
            # rmdir below fail, and the directory stays.
            if entry.is_dir(follow_symlinks=False):
                _remove_dir(entry.name, fd)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=parent)


def _against_preview(planned: FilePlan | None, fresh: FilePlan) -> FilePlan:
    """Only what the preview showed may be written; anything else changed since is a conflict."""
    if fresh.outcome in ("unchanged", "failed", "conflict"):
        return fresh
    if planned is None:
        return FilePlan(fresh.key, fresh.path, "conflict", reason="tracked_after_preview")
    if not planned.matches(fresh):
        return FilePlan(fresh.key, fresh.path, "conflict", reason="changed_since_preview")
    return fresh

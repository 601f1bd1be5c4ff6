"""Planning a rewind: what it would do to each tracked file, decided without writing.

A plan is made per file from three states: the target (the file's entry in the snapshot
rewound to, or its first backup), the current bytes on disk, and what the agent last wrote.
Bytes are held only for files the rewind would change (or would change with ``force``), so a
plan over thousands of unchanged files stays small.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final, Literal

from waymark.engine.errors import (
    IsDirectory,
    NotRegularFile,
    PathOutsideWorkspace,
    ProtectedPath,
    WaymarkError,
)
from waymark.store.history.backups import Unfetched, error_errno, fetch_backup, read_tracked
from waymark.store.history.model import Model
from waymark.store.history.parts import Parts
from waymark.store.history.snapshots import Snapshot
from waymark.store.history.turns import require
from waymark.store.walk import Walks
from waymark.store.workspace import Workspace

Outcome = Literal["restore", "delete", "unchanged", "conflict", "failed"]


@dataclass(frozen=True)
class FilePlan:
    """One file's would-be outcome.

    ``target`` is what a restore writes (``None`` with ``target_exists`` false: the file is
    deleted); ``current`` is the content now (``None`` when absent or not loaded). For
    ``unchanged`` and ``failed`` files neither is loaded.
    """

    key: str
    path: str
    outcome: Outcome
    target_exists: bool = False
    target: bytes | None = None
    target_digest: str | None = None
    current: bytes | None = None
    current_digest: str | None = None
    reason: str | None = None
    errno: str | None = None

    @property
    def real(self) -> Path:
        return Path(self.key)

    def matches(self, other: FilePlan) -> bool:
        """Same outcome from the same bytes on both sides."""
        return (self.outcome, self.target_digest, self.current_digest, self.target_exists) == (
            other.outcome,
            other.target_digest,
            other.current_digest,
            other.target_exists,
        )


@dataclass(frozen=True)
class RewindPlan:
    """What ``rewind(prompt_id, force=force)`` would do, file by file; nothing written yet."""

    prompt_id: str
    force: bool
    files: tuple[FilePlan, ...]

    @property
    def changes(self) -> tuple[FilePlan, ...]:
        """The files a rewind would write or delete."""
        return tuple(f for f in self.files if f.outcome in ("restore", "delete"))


class _Unknown:
    """What a file should hold, when even that is not known."""


UNKNOWN: Final = _Unknown()
Expected = str | _Unknown | None


def expected(model: Model, key: str) -> Expected:
    """What the file should hold if nobody but Waymark's writers touched it.

    Without a recorded write, nobody changed it through Waymark: it should still hold its
    first backup. Later snapshots are no guide, since they record whatever the file held.
    """
    write = model.writes.get(key)
    if write is not None:
        return write.digest
    entry = model.first[key][1]
    if entry.state == "absent":
        return None
    return entry.digest if entry.digest is not None else UNKNOWN


def plan_rewind(
    h: Parts,
    prompt_id: str,
    force: bool,
    blocked: Mapping[str, str],
    only: AbstractSet[str] | None = None,
) -> RewindPlan:
    """What a rewind to ``prompt_id`` would do to each tracked file; writes nothing."""
    model = h.ledger.model
    snap = require(h.ledger, prompt_id)
    return RewindPlan(
        prompt_id,
        force,
        tuple(plan_file(h, key, snap, force, blocked) for key in chosen(model, only)),
    )


def chosen(model: Model, only: AbstractSet[str] | None) -> list[str]:
    """The tracked files a rewind covers: all of them, or those of ``only`` it tracks."""
    return sorted(model.first if only is None else only & model.first.keys())


def plan_file(
    h: Parts,
    key: str,
    snap: Snapshot,
    force: bool,
    blocked: Mapping[str, str],
    walks: Walks | None = None,
) -> FilePlan:
    """What a rewind to ``snap`` would do to the file ``key`` (``blocked``: the files held
    elsewhere, with why; ``force``: over the agent's and other sessions' writes too;
    ``walks``: the rewind's directories already reached)."""
    shown = h.display(key)
    target = h.ledger.model.target(snap, key)
    refused = _refusal(h.workspace, key)
    if refused is not None:
        return FilePlan(key, shown, "failed", reason=refused)
    try:
        current = read_tracked(Path(key), limit=h.workspace.max_file_size, walks=walks)
    except WaymarkError as exc:
        return FilePlan(
            key, shown, "failed", reason=failure(exc, "unreadable"), errno=error_errno(exc)
        )
    base = FilePlan(
        key,
        shown,
        "unchanged",
        target_exists=target.state == "present",
        target_digest=target.digest,
        current_digest=current.digest,
    )
    if target.state == "failed":
        if target.digest is not None and current.digest == target.digest:
            return base
        return replace(base, outcome="failed", reason="backup_failed", errno=target.error)
    if current.digest == target.digest:
        return base
    data: bytes | None = None
    if target.state == "present" and target.digest is not None:
        fetched = fetch_backup(h.ledger.blobs, target.digest)
        if isinstance(fetched, Unfetched):
            return replace(base, outcome="failed", reason=fetched.reason, errno=fetched.errno)
        data = fetched
    if key in blocked:
        return replace(base, outcome="conflict", reason=blocked[key], target=data)
    should = expected(h.ledger.model, key)
    why = None
    if (isinstance(should, _Unknown) or current.digest != should) and not _write_cut_short(
        h.ledger.model, key, current.digest
    ):
        why = "changed_since_agent_write"
    elif _other_session(h, key, snap.seq):
        why = "written_by_other_session"
    if why is not None and not force:
        return replace(base, outcome="conflict", reason=why, target=data, current=current.data)
    if data is None:
        return replace(base, outcome="delete", current=current.data)
    return replace(base, outcome="restore", target=data, current=current.data)


def _write_cut_short(model: Model, key: str, found: str | None) -> bool:
    """Whether ``key`` still holds what a write recorded ahead of it replaced: the writer was
    stopped (killed, or its batch undone) before the write landed."""
    write = model.writes.get(key)
    return write is not None and found in write.was


def _refusal(workspace: Workspace, key: str) -> str | None:
    """Why the journal's ``key`` may not be written: it passes the client-path policy."""
    try:
        resolved = workspace.resolve(key)
    except WaymarkError as exc:
        return exc.code
    if os.fspath(resolved.real) != key or not os.path.isabs(key):
        return "path_outside_workspace"
    return None


def _other_session(h: Parts, key: str, since: int) -> bool:
    """Whether another session wrote ``key`` last, in turn ``since`` or later."""
    write = h.ledger.model.writes.get(key)
    return (
        write is not None
        and write.session is not None
        and h.session is not None
        and write.session != h.session
        and write.seq >= since
    )


def failure(exc: WaymarkError, default: str = "write_failed") -> str:
    """A per-file failure's reason: the policy's code when the path itself was refused."""
    if isinstance(exc, IsDirectory):
        return "is_directory"
    if isinstance(exc, PathOutsideWorkspace | NotRegularFile | ProtectedPath):
        return exc.code
    return default

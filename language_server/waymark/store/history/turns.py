"""Turns: opening one (a snapshot of every tracked file), the open one, and listing them."""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime

from waymark.store.history.backups import Backups
from waymark.store.history.budget import evict
from waymark.store.history.errors import UnknownTurn
from waymark.store.history.model import Model, delta, same
from waymark.store.history.pool import bounded_map, io_workers
from waymark.store.history.snapshots import FileEntry, Snapshot, SnapshotRecord
from waymark.store.history.sync import Ledger
from waymark.store.walk import Walks


@dataclass(frozen=True)
class Turn:
    """One live turn as ``turns`` lists it (paths absolute)."""

    prompt_id: str
    label: str | None
    timestamp: str
    files: tuple[str, ...]
    edited: tuple[str, ...]
    can_restore: bool
    # Paths a shell command may have changed that the turn could not back up, with why.
    unreached: tuple[tuple[str, str], ...] = ()


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def make_snapshot(
    ledger: Ledger, backups: Backups, prompt_id: str, label: str | None
) -> tuple[Snapshot, list[str]]:
    """Open turn ``prompt_id`` (the open one again if it is already that turn)."""
    latest = ledger.model.latest()
    if latest is not None and latest.prompt_id == prompt_id:
        return latest, []
    return open_turn(ledger, backups, prompt_id, label, evict_after=True)


def current(ledger: Ledger, backups: Backups) -> tuple[Snapshot, list[str]]:
    """The open turn; an implicit one when no snapshot was made yet."""
    latest = ledger.model.latest()
    if latest is not None:
        return latest, []
    return open_turn(ledger, backups, f"auto-{os.urandom(6).hex()}", "auto", evict_after=True)


def open_turn(
    ledger: Ledger, backups: Backups, prompt_id: str, label: str | None, *, evict_after: bool
) -> tuple[Snapshot, list[str]]:
    """Record every tracked file's current state as the start of turn ``prompt_id``."""
    model = ledger.model
    files: dict[str, FileEntry] = {}
    warnings: list[str] = []
    keys = sorted(model.first)
    # The base its entries are told apart from: any newest turn, other programs' included.
    parent = model.newest()
    inherited = parent.files if parent is not None else {}
    # Backups of big files wait on the filesystem, not the CPU: a few in parallel. Small ones
    # are read one after another, in sorted order, each directory walked once.
    size = sum(entry.size or 0 for entry in inherited.values())
    workers = io_workers(size)
    with Walks() as walks:
        shared = walks if workers == 1 else None
        captured = bounded_map(
            lambda key: backups.capture(key, reuse=True, walks=shared), keys, workers
        )
        for key, (entry, failures) in zip(keys, captured, strict=True):
            previous = inherited.get(key)
            files[key] = previous if previous is not None and same(previous, entry) else entry
            warnings.extend(failures)
    if parent is not None and parent.files.keys() <= files.keys():
        record = SnapshotRecord(
            prompt_id,
            label,
            _now_iso(),
            model.seq,
            False,
            delta(parent.files, files),
            {},
            inherit=parent.prompt_id,
        )
    else:
        record = SnapshotRecord(prompt_id, label, _now_iso(), model.seq, False, files, {})
    if not ledger.commit(record):
        warnings.append(
            "the history journal could not be written; this turn cannot be rewound after a restart"
        )
    snap = ledger.model.snaps[prompt_id]
    if evict_after:
        evict(ledger)
    return snap, warnings


def drop_if_unchanged(ledger: Ledger, prompt_id: str) -> bool:
    """Drop turn ``prompt_id`` if it is the newest and nothing was recorded in it."""
    snap = ledger.model.latest()
    if snap is None or snap.prompt_id != prompt_id or snap.edited or snap.unreached:
        return False
    # The newest turn: no later turn inherits its file states.
    ledger.commit(ledger.model.drop_record(snap))
    return True


def listing(model: Model) -> list[Turn]:
    """The live turns, oldest first."""
    failed_firsts = {k for k, (_, e) in model.first.items() if e.state == "failed"}
    return [
        Turn(
            snap.prompt_id,
            snap.label,
            snap.timestamp,
            tuple(sorted(snap.files)),
            tuple(sorted(snap.edited)),
            all(e.state != "failed" for e in snap.files.values())
            and all(k in snap.files for k in failed_firsts),
            tuple(sorted(snap.unreached.items())),
        )
        for snap in model.ordered()
    ]


def require(ledger: Ledger, prompt_id: str) -> Snapshot:
    """The live turn ``prompt_id``; :class:`UnknownTurn` when there is none."""
    model = ledger.model
    snap = model.snaps.get(prompt_id)
    if snap is None:
        known = [s.prompt_id for s in model.ordered()]
        raise UnknownTurn(prompt_id, known, deleted=prompt_id in ledger.lost)
    return snap

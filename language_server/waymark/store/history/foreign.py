"""Changes made by other programs (seen by the language server's watch): a turn of their own.

A watch reports what changed on disk whoever wrote it. Waymark's own writers (every door,
every process, rewinds included) note what they wrote in the journal, so a change whose new
digest is the last write the journal holds for that file is Waymark's and is not recorded
again; what is left is another program's, and becomes a new turn whose entries are the
pre-images, so a rewind to it puts back the bytes those programs replaced.

Such a turn is closed as it is made (:func:`~.snapshots.watched`): an agent's turn open
around it stays the open one. A burst may instead be taken into the newest turn when that
is other programs' too and ``joins`` allows it (same kind, within a window), so a person
saving fifty times makes one turn, not fifty of the history's turns.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from waymark.store.files import digest
from waymark.store.history.backups import Backups
from waymark.store.history.budget import evict
from waymark.store.history.model import Model
from waymark.store.history.snapshots import Snapshot, SnapshotRecord, watched
from waymark.store.history.sync import Ledger
from waymark.store.history.turns import open_turn


def recorded(model: Model, key: str, after: str | None) -> bool:
    """Whether ``key`` holding ``after`` (``None``: absent) is what the journal last noted
    being written to it: a Waymark writer's change (or one already recorded)."""
    write = model.writes.get(key)
    return write is not None and write.digest == after


def track_foreign(
    ledger: Ledger,
    backups: Backups,
    prompt_id: str,
    label: str,
    changes: Mapping[str, tuple[bytes | None, str | None]],
    unreached: Mapping[str, str],
    joins: Callable[[Snapshot], str | None] = lambda newest: None,
) -> tuple[list[str], list[str]]:
    """Record other programs' ``changes`` (bytes before, digest after) and what they changed
    out of reach as turn ``prompt_id``, or into the newest turn when ``joins`` gives the
    label it then has; the files recorded, and warnings. Nothing left once Waymark's own
    writes are set aside: no turn."""
    model = ledger.model
    mine = {key: change for key, change in changes.items() if not recorded(model, key, change[1])}
    if not mine and not unreached:
        return [], []
    snap = model.newest()
    joined = joins(snap) if snap is not None and watched(snap.prompt_id) else None
    warnings: list[str] = []
    if (
        snap is None
        or joined is None
        or not all(_untouched(model, snap, key, before) for key, (before, _) in mine.items())
    ):
        snap, warnings = open_turn(ledger, backups, prompt_id, label, evict_after=False)
        joined = None
    # A file a joined turn holds already keeps its entry: the file before its first change.
    files, failed = backups.keep_each(
        {
            key: before
            for key, (before, _) in mine.items()
            if joined is None or key not in snap.files
        }
    )
    warnings += failed
    # No session: another program's write never makes a rewind's files another session's.
    record = SnapshotRecord.update_of(
        snap,
        files,
        {key: after for key, (_, after) in mine.items()},
        unreached=dict(unreached),
    )
    if joined is not None:
        record = replace(record, label=joined)
    if not ledger.commit(record):
        warnings.append(
            "the history journal could not be written; changes by other programs cannot be "
            "rewound after a restart"
        )
    evict(ledger)
    return sorted(mine), warnings


def _untouched(model: Model, snap: Snapshot, key: str, before: bytes | None) -> bool:
    """Whether ``key`` was as ``snap`` found it until ``before`` (or ``snap`` changed it
    first): the turn's entry is then the state to go back to."""
    entry = snap.files.get(key)
    if key in snap.edited:
        return True
    if entry is None:
        # Untracked when the turn began: tracked since means another turn wrote it.
        return key not in model.first
    if before is None:
        return entry.state == "absent"
    return entry.state == "present" and entry.digest == digest(before)

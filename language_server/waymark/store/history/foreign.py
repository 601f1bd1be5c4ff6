"""Changes made by other programs (seen by the language server's watch): a turn of their own.

A watch reports what changed on disk whoever wrote it. Waymark's own writers (every door,
every process, rewinds included) note what they wrote in the journal, so a change whose new
digest is the last write the journal holds for that file is Waymark's and is not recorded
again; what is left is another program's, and becomes a new turn whose entries are the
pre-images, so a rewind to it puts back the bytes those programs replaced.
"""

from __future__ import annotations

from collections.abc import Mapping

from waymark.store.history.backups import Backups, no_rewind
from waymark.store.history.budget import evict
from waymark.store.history.model import Model
from waymark.store.history.snapshots import FileEntry, SnapshotRecord
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
) -> tuple[list[str], list[str]]:
    """Record other programs' ``changes`` (bytes before, digest after) and what they changed
    out of reach as turn ``prompt_id``; the files recorded, and warnings. Nothing left once
    Waymark's own writes are set aside: no turn."""
    model = ledger.model
    mine = {key: change for key, change in changes.items() if not recorded(model, key, change[1])}
    if not mine and not unreached:
        return [], []
    snap, warnings = open_turn(ledger, backups, prompt_id, label, evict_after=False)
    files: dict[str, FileEntry] = {}
    for key, (before, _) in mine.items():
        entry = backups.keep(key, before)
        if entry.state == "failed":
            warnings.append(no_rewind(entry.display, entry.error or "backup_failed"))
        files[key] = entry
    # No session: another program's write never makes a rewind's files another session's.
    record = SnapshotRecord.update_of(
        snap,
        files,
        {key: after for key, (_, after) in mine.items()},
        unreached=dict(unreached),
    )
    if not ledger.commit(record):
        warnings.append(
            "the history journal could not be written; changes by other programs cannot be "
            "rewound after a restart"
        )
    evict(ledger)
    return sorted(mine), warnings

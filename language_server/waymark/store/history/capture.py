"""Recording writes: the pre-image before a write, the digest after, a shell command's changes.

The write pipeline calls :func:`track_edit` before every file it writes, recording the backup
and the write itself ahead of it (write-ahead: no kill can leave a write unrecorded);
:func:`record_write` notes a write made by someone else (the editor, the host's own tool) after
it landed. The first write of a file in a turn backs up what it held at the turn's start;
later writes in the same turn keep that backup.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from waymark.engine.errors import FileTooLarge
from waymark.store.files import digest
from waymark.store.history.backups import Backups, no_rewind
from waymark.store.history.budget import evict
from waymark.store.history.snapshots import FileEntry, Snapshot, SnapshotRecord
from waymark.store.history.sync import Ledger
from waymark.store.history.turns import current


def track_edit(
    ledger: Ledger,
    backups: Backups,
    path: Path,
    write: tuple[bytes | None, bytes | None] | None = None,
    session: str | None = None,
    digests: tuple[str | None, str | None] | None = None,
) -> list[str]:
    """Back up ``path``'s pre-image on its first write in this turn; return warnings.

    ``write`` (the bytes before and after; ``None``: absent) records the write ahead, in the
    same journal record: a process killed before it writes, or before it could record what
    it wrote, leaves a file a rewind still undoes. ``digests``: those of ``write``'s two
    sides, when the writer took them already (a 10 MB file's hash is not taken twice).
    """
    key = os.fspath(path)
    snap, warnings = current(ledger, backups)
    before = None
    if write is not None:
        before = Before(write[0], None if digests is None else digests[0])
    files, more = _backup(ledger, backups, snap, key, before)
    warnings.extend(more)
    if not files and write is None:
        return warnings
    writes = {}
    if write is not None:
        writes = {key: _digest(write[1]) if digests is None else digests[1]}
    was = {} if before is None else {key: before.digest}
    record = SnapshotRecord.update_of(snap, files, writes, session=session, was=was)
    if not ledger.commit(record):
        warnings.append(_journal_lost(backups.display(key)))
    evict(ledger)
    return warnings


def _backup(
    ledger: Ledger, backups: Backups, snap: Snapshot, key: str, before: Before | None
) -> tuple[dict[str, FileEntry], list[str]]:
    """The entry ``key`` needs in ``snap`` before its first write in the turn, and warnings.

    ``before``: the bytes the write replaces, read by the writer under the write locks (no
    Waymark process changes the file meanwhile): they are the backup, the file is not read
    again (a 10 MB file's second read and hash were most of what history added to an edit).
    """
    entry = snap.files.get(key)
    if entry is not None and entry.state != "failed":
        return {}, []
    shown = backups.display(key)
    if entry is not None:
        healed = backups.heal(key, entry, None if before is None else before.data)
        if healed is None:
            return {}, [no_rewind(shown, entry.error or "backup_failed")]
        return {key: healed}, []
    if before is not None:
        max_size = backups.workspace.max_file_size
        if before.data is not None and len(before.data) > max_size:
            return {}, _too_large(ledger, snap, key, shown, len(before.data), backups)
        kept = backups.keep(key, before.data, before.digest)
        if kept.state == "failed":
            return {key: kept}, [no_rewind(shown, kept.error or "backup_failed")]
        return {key: kept}, []
    try:
        new, failures = backups.capture(key, too_large=True)
    except FileTooLarge as exc:
        return {}, _too_large(ledger, snap, key, shown, exc.details["size"], backups)
    return {key: new}, failures


class Before:
    """A writer's bytes before its write (``None``: absent), hashed once (``known``: the
    digest the writer took of these very bytes)."""

    def __init__(self, data: bytes | None, known: str | None = None) -> None:
        self.data = data
        self.digest = known if known is not None else _digest(data)


def _digest(data: bytes | None) -> str | None:
    return None if data is None else digest(data)


def _too_large(
    ledger: Ledger, snap: Snapshot, key: str, shown: str, size: int, backups: Backups
) -> list[str]:
    """Record ``key`` as out of reach of the turn instead of copying it: a file over the size
    limit would blow the history's budget (and a rewind could not restore it anyway)."""
    warnings = [
        f"{shown} is {size} bytes, over the {backups.workspace.max_file_size}-byte file size "
        "limit: it was not backed up, so this change cannot be rewound."
    ]
    if snap.unreached.get(key) == "too_large":
        return warnings
    record = SnapshotRecord.update_of(snap, unreached={key: "too_large"})
    if not ledger.commit(record):
        warnings.append(_journal_lost(shown))
    return warnings


def record_write(
    ledger: Ledger, backups: Backups, session: str | None, path: Path, digest: str | None
) -> None:
    """Note what was just written to ``path`` (``None``: deleted) and by which session."""
    note_writes(ledger, backups, session, {os.fspath(path): digest})
    evict(ledger)


def put_back(
    ledger: Ledger, backups: Backups, session: str | None, files: dict[str, str | None]
) -> None:
    """Note files of a failed change put back to what they held (digest; ``None``: absent)."""
    snap, _ = current(ledger, backups)
    ledger.commit(SnapshotRecord.update_of(snap, session=session, putback=files))


def note_writes(
    ledger: Ledger, backups: Backups, session: str | None, writes: dict[str, str | None]
) -> None:
    snap, _ = current(ledger, backups)
    ledger.commit(SnapshotRecord.update_of(snap, writes=writes, session=session))


def track_shell(
    ledger: Ledger,
    backups: Backups,
    session: str | None,
    changes: Mapping[str, tuple[bytes | None, str | None]],
    unreached: Mapping[str, str],
) -> list[str]:
    """Record what a shell command changed into the open turn; return warnings.

    ``changes`` maps each file to its bytes before the command (``None``: absent) and its
    digest after (``None``: deleted); ``unreached`` names what the command may have
    changed but could not be backed up, with why. A file already in the turn keeps its
    earlier backup (the turn's start), like any second write.
    """
    snap, warnings = current(ledger, backups)
    files, failed = backups.keep_each(
        {key: before for key, (before, _) in changes.items() if key not in snap.files}
    )
    warnings += failed
    record = SnapshotRecord.update_of(
        snap,
        files,
        {key: after for key, (_, after) in changes.items()},
        session=session,
        unreached=dict(unreached),
    )
    if (changes or unreached) and not ledger.commit(record):
        warnings.append(_journal_lost(f"{len(changes)} shell-changed file(s)"))
    evict(ledger)
    return warnings


def _journal_lost(shown: str) -> str:
    return (
        f"{shown}: the history journal could not be written, so this change cannot be "
        "rewound after a restart."
    )

"""What the history keeps: eviction past the limits, journal compaction, the sweep on open.

Turns go oldest first past ``max_snapshots`` or the byte budget (blobs plus journal); the
newest turn and every file's first backup are never evicted, though first backups no live
turn needs are let go when the budget still overflows.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from waymark.store.history.backups import errno_name
from waymark.store.history.errors import log_warning
from waymark.store.history.journal import TMP_PREFIX
from waymark.store.history.snapshots import SnapshotRecord, record_json
from waymark.store.history.sync import HistoryLock, Ledger
from waymark.store.private import DIR_MODE, make_private_dir

# Compaction waits until the journal is this many times what it would be compacted.
_DEAD_RATIO: Final = 2
_MIN_COMPACT: Final = 64 * 1024


@dataclass(frozen=True)
class Usage:
    """What the history holds on disk."""

    directory: Path
    turns: int
    tracked_files: int
    blob_bytes: int
    journal_bytes: int
    max_bytes: int
    max_snapshots: int


def resume(ledger: Ledger, lock: HistoryLock) -> None:
    """Create the directory, catch up with the journal, evict, and sweep what is left over."""
    try:
        make_private_dir(ledger.dir)
        os.chmod(ledger.dir, DIR_MODE)
        # Made with the history, so a session's first backup has one file to create, not two.
        make_private_dir(ledger.blobs.packs.root)
    except OSError as exc:
        ledger.usable = False
        ledger.warnings.append(
            f"history directory {ledger.dir} could not be created "
            f"({errno_name(exc)}); changes cannot be rewound."
        )
        return
    with lock:
        ledger.live_bytes = ledger.offset
        if ledger.replay_evicted:
            # The journal still holds turns the replay let go: make it say what is kept.
            maybe_compact(ledger, force=True)
        evict(ledger)
        ledger.warnings.extend(ledger.model.warnings)
        if not ledger.warnings:
            # A damaged journal may have lost references: keep unreferenced blobs then.
            try:
                ledger.blobs.sweep(set(ledger.model.refs))
            except OSError as exc:
                log_warning("history blobs of %s could not be swept: %s", ledger.dir, exc)
        for leftover in ledger.dir.glob(f"{TMP_PREFIX}*"):
            with contextlib.suppress(OSError):
                leftover.unlink()
        try:
            ledger.blobs.packs.first_segment()
        except OSError as exc:
            # The first backup tries again (and says so if it cannot either).
            log_warning("history pack of %s could not be created: %s", ledger.dir, exc)


def used(ledger: Ledger) -> int:
    """The directory's bytes that count: blobs as they lie on disk, and the journal."""
    return ledger.blobs.disk_bytes() + ledger.offset


def evict(ledger: Ledger) -> None:
    """Drop the oldest turns past ``max_snapshots`` or the byte budget; compact as needed."""
    while len(ledger.model.snaps) > ledger.max_snapshots:
        _drop_oldest(ledger)
    maybe_compact(ledger)
    if used(ledger) <= ledger.max_bytes:
        if ledger.blobs.packs.released:
            _compact_blobs(ledger)
        return
    # Packed blobs released since the last compaction still take their space.
    _compact_blobs(ledger, pressed=True)
    while used(ledger) > ledger.max_bytes and len(ledger.model.snaps) > 1:
        _drop_oldest(ledger)
        maybe_compact(ledger)
        _compact_blobs(ledger, pressed=True)
    if used(ledger) > ledger.max_bytes:
        _forget_firsts(ledger)


def _compact_blobs(ledger: Ledger, *, pressed: bool = False) -> None:
    try:
        ledger.blobs.compact(set(ledger.model.refs), pressed=pressed)
    except OSError as exc:
        log_warning("history blobs of %s could not be compacted: %s", ledger.dir, exc)


def _drop_oldest(ledger: Ledger) -> str:
    oldest = ledger.model.oldest()
    assert oldest is not None
    ledger.commit(ledger.model.drop_record(oldest))
    return oldest.prompt_id


def _forget_firsts(ledger: Ledger) -> None:
    """Let go of first backups no live turn needs: deleted files' first, then the largest."""
    model = ledger.model
    sizes = model.sizes

    def order(key: str) -> tuple[bool, int]:
        digest = model.first[key][1].digest
        return os.path.lexists(key), -sizes.get(digest or "", 0)

    for key in sorted(model.orphans(), key=order):
        if used(ledger) <= ledger.max_bytes:
            break
        ledger.commit(SnapshotRecord("base", None, "", 0, True, {}, {}, base=True, forget=(key,)))
        maybe_compact(ledger)
        _compact_blobs(ledger, pressed=True)


def maybe_compact(ledger: Ledger, *, force: bool = False) -> None:
    """Rewrite the journal to the live state when dead records outweigh live ones."""
    if not ledger.usable:
        return
    if not force and ledger.offset <= max(_DEAD_RATIO * ledger.live_bytes, _MIN_COMPACT):
        return
    records = ledger.model.live_records()
    live = sum(len(str(record_json([r]))) for r in records) if not force else 0
    if not force and ledger.offset <= _DEAD_RATIO * live:
        ledger.live_bytes = live
        return
    try:
        size = ledger.journal.rewrite(record_json([r]) for r in records)
    except OSError as exc:
        log_warning("history journal %s could not be compacted: %s", ledger.dir, exc)
        ledger.live_bytes = ledger.offset
        return
    ledger.pin_journal()
    ledger.offset, ledger.lines = size, len(records)
    ledger.live_bytes = size
    ledger.compactions += 1


def prune(ledger: Ledger, keep: int) -> list[str]:
    """Keep only the newest ``keep`` turns (at least one); return the dropped ones."""
    dropped = []
    while len(ledger.model.snaps) > max(keep, 1):
        dropped.append(_drop_oldest(ledger))
    maybe_compact(ledger, force=True)
    _compact_blobs(ledger, pressed=True)
    return dropped


def usage(ledger: Ledger) -> Usage:
    return Usage(
        ledger.dir,
        len(ledger.model.snaps),
        len(ledger.model.first),
        ledger.model.blob_bytes(),
        ledger.offset,
        ledger.max_bytes,
        ledger.max_snapshots,
    )

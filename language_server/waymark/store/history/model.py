"""The history model: a pure reducer over journal records.

:meth:`Model.apply` folds one :class:`SnapshotRecord` into the state (live turns, every
file's first backup, the last write to each file, blob reference counts) and returns the
blobs no record references any more. The live process and a resume run the same reducer, so
"replay of the journal equals the live model" holds by construction and is property-tested.
No I/O, no locks, no wire shapes: the store (``store.py``) does those.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from waymark.store.history.snapshots import FileEntry, Snapshot, SnapshotRecord, watched


@dataclass(frozen=True)
class Write:
    """The last write to a file: its digest (``None``: deleted), by whom, in which turn;
    ``was``: when recorded ahead of the write, the digest the file held before it."""

    digest: str | None
    session: str | None
    seq: int
    was: tuple[str | None, ...] = ()


class Model:
    """Live turns, first backups, last writes and blob references of one workspace."""

    def __init__(self) -> None:
        self.snaps: dict[str, Snapshot] = {}
        # Every tracked file's first backup, as (seq of its snapshot, entry); outlives eviction.
        self.first: dict[str, tuple[int, FileEntry]] = {}
        self.writes: dict[str, Write] = {}
        self.refs: Counter[str] = Counter()
        self.sizes: dict[str, int] = {}
        self._bytes = 0
        self.seen: set[str] = set()
        self.seq = 0
        self.warnings: list[str] = []
        # :meth:`latest`, asked before every recorded write, worked out again only after the
        # set of turns changed.
        self._latest: Snapshot | None = None
        self._latest_known = True

    # -- the reducer ----------------------------------------------------------------------------

    def apply(self, record: SnapshotRecord) -> list[str]:
        """Fold ``record`` in; return the digests nothing references any more."""
        freed: list[str] = []
        self.seq = max(self.seq, record.seq + 1)
        for key, digest in record.writes.items():
            was = (record.was[key],) if key in record.was else ()
            self.writes[key] = Write(digest, record.session, record.seq, was)
        if record.base:
            for key, entry in record.files.items():
                if key not in self.first:
                    self.first[key] = (-1, entry)
                    self._ref(entry)
            for key in record.forget:
                if key in self.first:
                    seq, gone = self.first[key]
                    self.first[key] = (seq, evicted(gone))
                    self._unref(gone, freed)
            return freed
        seen = record.prompt_id in self.seen
        self.seen.add(record.prompt_id)
        if record.dropped:
            dropped = self.snaps.pop(record.prompt_id, None)
            self._latest_known = False
            if dropped is not None:
                self._release(dropped, freed)
            return freed
        if not record.is_update:
            files = record.files
            if record.inherit is not None:
                parent = self.snaps.get(record.inherit)
                if parent is None:
                    self.warnings.append(
                        f"history turn {record.prompt_id!r} builds on unknown turn "
                        f"{record.inherit!r}; files it did not list go back to first backups"
                    )
                else:
                    files = {**parent.files, **record.files}
            old = self.snaps.get(record.prompt_id)
            snap = Snapshot(record.prompt_id, record.label, record.timestamp, record.seq)
            self.snaps[record.prompt_id] = snap
            self._latest_known = False
            for key, entry in files.items():
                self._set_entry(snap, key, entry, freed)
            snap.edited.update(record.writes)
            snap.edited.update(record.edited)
            snap.unreached.update(record.unreached)
            if old is not None:
                self._release(old, freed)
            return freed
        target = self.snaps.get(record.prompt_id)
        if target is None:
            if not seen:
                self.warnings.append(
                    f"history update for unknown turn {record.prompt_id!r}; "
                    "its first backups are kept"
                )
            for key, entry in record.files.items():
                if key not in self.first:
                    self.first[key] = (-1, entry)
                    self._ref(entry)
            return freed
        if record.label is not None:
            # Other programs' turn that took in a later burst spans both.
            target.label = record.label
        for key, entry in record.files.items():
            self._set_entry(target, key, entry, freed)
        target.edited.update(record.writes)
        target.edited.update(record.edited)
        target.unreached.update(record.unreached)
        for key, digest in record.putback.items():
            self.writes[key] = Write(digest, record.session, record.seq)
            start = target.files.get(key)
            if start is not None and start.state != "failed" and start.digest == digest:
                target.edited.discard(key)
        return freed

    def _set_entry(self, snap: Snapshot, key: str, entry: FileEntry, freed: list[str]) -> None:
        old = snap.files.get(key)
        snap.files[key] = entry
        self._ref(entry)
        first = self.first.get(key)
        if first is None or first[0] == snap.seq:
            self.first[key] = (snap.seq, entry)
            self._ref(entry)
            if first is not None:
                self._unref(first[1], freed)
        if old is not None:
            self._unref(old, freed)

    def _release(self, snap: Snapshot, freed: list[str]) -> None:
        for entry in snap.files.values():
            self._unref(entry, freed)

    def _ref(self, entry: FileEntry) -> None:
        if entry.state == "present" and entry.digest is not None:
            self.refs[entry.digest] += 1
            if entry.size is not None and entry.digest not in self.sizes:
                self.sizes[entry.digest] = entry.size
                self._bytes += entry.size

    def _unref(self, entry: FileEntry, freed: list[str]) -> None:
        if entry.state != "present" or entry.digest is None:
            return
        self.refs[entry.digest] -= 1
        if self.refs[entry.digest] <= 0:
            del self.refs[entry.digest]
            self._bytes -= self.sizes.pop(entry.digest, 0)
            freed.append(entry.digest)

    # -- queries --------------------------------------------------------------------------------

    def ordered(self) -> list[Snapshot]:
        """Live turns, oldest first."""
        return sorted(self.snaps.values(), key=lambda s: s.seq)

    def latest(self) -> Snapshot | None:
        """The open turn: the newest one that is not other programs' (those are closed as
        they are recorded, so an agent's turn open around them goes on receiving its writes)."""
        if not self._latest_known:
            self._latest = max(
                (s for s in self.snaps.values() if not watched(s.prompt_id)),
                key=lambda s: s.seq,
                default=None,
            )
            self._latest_known = True
        return self._latest

    def newest(self) -> Snapshot | None:
        """The newest turn, other programs' included."""
        return max(self.snaps.values(), key=lambda s: s.seq, default=None)

    def oldest(self) -> Snapshot | None:
        return min(self.snaps.values(), key=lambda s: s.seq, default=None)

    def target(self, snap: Snapshot, key: str) -> FileEntry:
        """The file's state at the start of ``snap``; its first backup if first touched later."""
        return snap.files.get(key) or self.first[key][1]

    def orphans(self) -> list[str]:
        """Files whose first backup no live turn holds (no rewind target; kept for recovery)."""
        live = {snap.seq for snap in self.snaps.values()}
        return [
            key
            for key, (seq, entry) in self.first.items()
            if seq not in live and entry.state == "present"
        ]

    def blob_bytes(self) -> int:
        """Bytes of every referenced blob whose size is known."""
        return self._bytes

    def drop_record(self, snap: Snapshot) -> SnapshotRecord:
        """The record that evicts ``snap``."""
        return SnapshotRecord.update_of(snap, dropped=True)

    def live_records(self) -> list[SnapshotRecord]:
        """The fewest records whose replay rebuilds this state (what compaction writes)."""
        live_firsts = {key for key, (seq, _) in self.first.items() if seq >= 0}
        in_snaps = {snap.seq for snap in self.snaps.values()}
        orphans = {
            key: entry
            for key, (seq, entry) in self.first.items()
            if key not in live_firsts or seq not in in_snaps
        }
        out: list[SnapshotRecord] = []
        if orphans:
            out.append(SnapshotRecord("base", None, "", 0, True, orphans, {}, base=True))
        parent: Snapshot | None = None
        for snap in self.ordered():
            if parent is not None and not parent.files.keys() <= snap.files.keys():
                parent = None  # a turn that does not cover its parent's files stands alone
            out.append(
                SnapshotRecord(
                    snap.prompt_id,
                    snap.label,
                    snap.timestamp,
                    snap.seq,
                    False,
                    delta(parent.files if parent else {}, snap.files),
                    {},
                    edited=tuple(sorted(snap.edited)),
                    inherit=parent.prompt_id if parent else None,
                    unreached=dict(snap.unreached),
                )
            )
            parent = snap
        # Last writes go last, one record per (session, seq) so each keeps its author and turn.
        groups: dict[tuple[str | None, int], dict[str, Write]] = {}
        for key, write in self.writes.items():
            groups.setdefault((write.session, write.seq), {})[key] = write
        for (session, seq), writes in sorted(groups.items(), key=lambda g: g[0][1]):
            out.append(
                SnapshotRecord(
                    "base",
                    None,
                    "",
                    seq,
                    True,
                    {},
                    {key: w.digest for key, w in writes.items()},
                    session=session,
                    base=True,
                    was={key: w.was[0] for key, w in writes.items() if w.was},
                )
            )
        if self.seq:
            out.append(SnapshotRecord("base", None, "", self.seq - 1, True, {}, {}, base=True))
        return out


def delta(parent: dict[str, FileEntry], files: dict[str, FileEntry]) -> dict[str, FileEntry]:
    """The entries of ``files`` a turn inheriting from ``parent`` must still list.

    ``files`` must hold every key ``parent`` does (a snapshot records every tracked file).
    """
    return {key: entry for key, entry in files.items() if parent.get(key) != entry}


def same(old: FileEntry | None, new: FileEntry) -> bool:
    """Whether two entries record the same state (when they were taken aside)."""
    return old is not None and (old.state, old.digest, old.error, old.size) == (
        new.state,
        new.digest,
        new.error,
        new.size,
    )


def evicted(entry: FileEntry) -> FileEntry:
    """What is left of a first backup evicted for the disk budget: its digest, not its bytes."""
    return FileEntry(entry.display, "failed", entry.digest, entry.time, "evicted")

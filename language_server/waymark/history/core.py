"""One session's file history: backups per turn, the journal, resume, rewind and diff stats.

The write pipeline calls :meth:`History.track_edit` before and :meth:`History.record_write`
after every write; :meth:`History.make_snapshot` opens a turn. Everything is kept in memory
and mirrored to the journal, so :meth:`History.open` on the same session rebuilds it.

Data lives in ``root/<session_id>/``: ``journal.jsonl`` and ``blobs/``. Blobs are per session
so one session's eviction can never delete another's backups.
"""

from __future__ import annotations

import errno as errno_mod
import logging
import os
import re
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from ..errors import InvalidParams, IsDirectory, RewindInProgress, UnknownPrompt, WaymarkError
from ..files import StatKey, atomic_write, create_parents, delete_file, read_state
from .blobs import BlobCorrupt, BlobMissing, BlobStore, make_private_dir
from .journal import Journal
from .rewind import FileOutcome, FilePlan, RewindPlan, RewindResult
from .snapshots import FileEntry, Snapshot, SnapshotRecord, record_json
from .stats import IO_WORKERS, bounded_map, count_lines

log = logging.getLogger("waymark.history")

OPTIONS: Final = ("code", "conversation", "both")
# A stat only stands for "unchanged" if the file was already this much older than our read.
_RACY_NS = 2_000_000_000
_SESSION_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


class _Unknown:
    """What the agent last left in a file, when even that is not known."""


_UNKNOWN: Final = _Unknown()


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _errno_name(exc: OSError) -> str:
    return errno_mod.errorcode.get(exc.errno or 0, "EIO")


def _error_errno(exc: WaymarkError) -> str:
    if isinstance(exc, IsDirectory):
        return "EISDIR"
    value = exc.details.get("errno")
    return value if isinstance(value, str) else exc.code


class History:
    """File history of one session (see the module docstring and docs/history.md)."""

    def __init__(self, root: Path, session_id: str, max_snapshots: int, enabled: bool) -> None:
        self.root = root
        self.session_id = session_id
        self.max_snapshots = max_snapshots
        self.enabled = enabled
        self.dir = root / session_id
        self.blobs = BlobStore(self.dir / "blobs")
        self.journal = Journal(self.dir / "journal.jsonl")
        self.lock = threading.RLock()
        self.warnings: list[str] = []
        self._gate = threading.Lock()
        self._snaps: dict[str, Snapshot] = {}
        # Every tracked file's first backup, as (seq of its snapshot, entry); outlives eviction.
        self._first: dict[str, tuple[int, FileEntry]] = {}
        self._display: dict[str, str] = {}
        # What the agent last wrote to each file (None: deleted), for conflict detection.
        self._writes: dict[str, str | None] = {}
        self._refs: Counter[str] = Counter()
        self._seen: set[str] = set()
        # Per file: stat signature, digest and when we read it, for the unchanged fast path.
        self._stats: dict[str, tuple[tuple[int, ...], str, int]] = {}
        self._seq = 0

    @classmethod
    def open(
        cls, root: Path, session_id: str, *, max_snapshots: int = 100, enabled: bool = True
    ) -> History:
        """Create the session's history, or resume it by replaying its journal."""
        if not isinstance(session_id, str) or not _SESSION_RE.fullmatch(session_id):
            raise InvalidParams(
                "`sessionId` must be 1-128 letters, digits, '.', '_' or '-', "
                "starting with a letter or digit.",
                {"field": "sessionId"},
            )
        if isinstance(max_snapshots, bool) or not isinstance(max_snapshots, int):
            raise InvalidParams("`maxSnapshots` must be an integer.", {"field": "maxSnapshots"})
        if max_snapshots < 1:
            raise InvalidParams("`maxSnapshots` must be at least 1.", {"field": "maxSnapshots"})
        history = cls(Path(root), session_id, max_snapshots, enabled)
        if enabled:
            history._resume()
        return history

    def _resume(self) -> None:
        try:
            make_private_dir(self.dir)
        except OSError as exc:
            self.warnings.append(
                f"history directory {self.dir} could not be created ({_errno_name(exc)}); "
                "changes cannot be rewound."
            )
            return
        replay = self.journal.replay()
        self.warnings.extend(replay.warnings)
        for record in replay.records:
            self._apply(record, live=False)
        self._evict()
        if not replay.warnings:
            # A damaged journal may have lost references: keep unreferenced blobs for recovery.
            try:
                self.blobs.sweep(set(self._refs))
            except OSError as exc:
                log.warning("history blobs of %s could not be swept: %s", self.dir, exc)

    def close(self) -> None:
        """Release the journal's descriptor (appends after this reopen it)."""
        self.journal.close()

    # -- model updates (shared by live changes and replay) ------------------------------------

    def _apply(self, record: SnapshotRecord, *, live: bool) -> None:
        self._seq = max(self._seq, record.seq + 1)
        self._writes.update(record.writes)
        seen = record.prompt_id in self._seen
        self._seen.add(record.prompt_id)
        if record.dropped:
            dropped = self._snaps.pop(record.prompt_id, None)
            if dropped is not None:
                self._release(dropped, live=live)
            return
        if not record.is_update:
            old = self._snaps.get(record.prompt_id)
            snap = Snapshot(record.prompt_id, record.label, record.timestamp, record.seq)
            self._snaps[record.prompt_id] = snap
            for key, entry in record.files.items():
                self._set_entry(snap, key, entry, live=live)
            snap.edited.update(record.writes)
            if old is not None:
                self._release(old, live=live)
            return
        target = self._snaps.get(record.prompt_id)
        if target is None:
            if not seen:
                self.warnings.append(
                    f"history update for unknown turn {record.prompt_id!r}; "
                    "its first backups are kept"
                )
            for key, entry in record.files.items():
                if key not in self._first:
                    self._first[key] = (-1, entry)
                    self._display[key] = entry.display
                    self._ref(entry)
            return
        for key, entry in record.files.items():
            self._set_entry(target, key, entry, live=live)
        target.edited.update(record.writes)

    def _set_entry(self, snap: Snapshot, key: str, entry: FileEntry, *, live: bool) -> None:
        old = snap.files.get(key)
        snap.files[key] = entry
        self._ref(entry)
        self._display[key] = entry.display
        first = self._first.get(key)
        if first is None or first[0] == snap.seq:
            self._first[key] = (snap.seq, entry)
            self._ref(entry)
            if first is not None:
                self._unref(first[1], live=live)
        if old is not None:
            self._unref(old, live=live)

    def _release(self, snap: Snapshot, *, live: bool) -> None:
        for entry in snap.files.values():
            self._unref(entry, live=live)

    def _ref(self, entry: FileEntry) -> None:
        if entry.state == "present" and entry.digest is not None:
            self._refs[entry.digest] += 1

    def _unref(self, entry: FileEntry, *, live: bool) -> None:
        if entry.state != "present" or entry.digest is None:
            return
        self._refs[entry.digest] -= 1
        if self._refs[entry.digest] <= 0:
            del self._refs[entry.digest]
            if live:
                try:
                    self.blobs.delete(entry.digest)
                except OSError as exc:
                    log.warning("history blob %s could not be deleted: %s", entry.digest, exc)

    def _evict(self) -> None:
        """Drop the oldest turns past ``max_snapshots``; first backups stay referenced."""
        while len(self._snaps) > self.max_snapshots:
            oldest = min(self._snaps.values(), key=lambda s: s.seq)
            self._drop(oldest)

    def _drop(self, snap: Snapshot) -> None:
        record = SnapshotRecord(
            snap.prompt_id, snap.label, snap.timestamp, snap.seq, True, {}, {}, dropped=True
        )
        self._apply(record, live=True)
        self._append([record])

    def _append(self, records: list[SnapshotRecord]) -> bool:
        return self.journal.append(record_json(records))

    def _latest(self) -> Snapshot | None:
        return max(self._snaps.values(), key=lambda s: s.seq, default=None)

    def _current(self) -> tuple[Snapshot, list[str]]:
        """The open turn; an implicit one when no snapshot was made yet."""
        latest = self._latest()
        if latest is not None:
            return latest, []
        return self._snapshot(f"auto-{uuid.uuid4().hex[:12]}", "auto", evict=True)

    # -- backups --------------------------------------------------------------------------------

    def _capture(
        self, key: str, display: str, *, reuse: bool = False
    ) -> tuple[FileEntry, list[str]]:
        """Back up the file's current state; a failure becomes a ``failed`` entry + warning.

        With ``reuse``, a file whose stat proves it unchanged since we last read it is not
        read again (see :func:`_stat_signature`).
        """
        now = time.time()
        if reuse:
            entry = self._unchanged(key, display, now)
            if entry is not None:
                return entry, []
        try:
            before = os.stat(key)
        except OSError:
            before = None
        try:
            state = read_state(Path(key))
        except WaymarkError as exc:
            name = _error_errno(exc)
            return FileEntry(display, "failed", None, now, name), [_no_rewind(display, name)]
        if state.data is None or state.digest is None:
            return FileEntry(display, "absent", None, now), []
        try:
            self.blobs.put(state.digest, state.data)
        except OSError as exc:
            name = _errno_name(exc)
            entry = FileEntry(display, "failed", state.digest, now, name)
            return entry, [_no_rewind(display, name)]
        if before is not None and StatKey.of(before) == state.stat:
            self._stats[key] = (_stat_signature(before), state.digest, time.time_ns())
        return FileEntry(display, "present", state.digest, now), []

    def _unchanged(self, key: str, display: str, now: float) -> FileEntry | None:
        """The file's entry without reading it, when its stat proves the bytes unchanged."""
        cached = self._stats.get(key)
        if cached is None:
            return None
        signature, digest, read_ns = cached
        try:
            st = os.stat(key)
            if _stat_signature(st) != signature:
                return None
            # Racily clean (git's term): changed within a timestamp tick of our read, a file
            # could keep its stat; only a file already older than that is trusted.
            if max(st.st_mtime_ns, st.st_ctime_ns) > read_ns - _RACY_NS:
                return None
            if os.stat(self.blobs.path_for(digest)).st_size != st.st_size:
                return None
        except OSError:
            return None
        return FileEntry(display, "present", digest, now)

    def track_edit(self, path: Path, display: str) -> list[str]:
        """Back up ``path``'s pre-image on its first write in this turn; return warnings."""
        if not self.enabled:
            return []
        with self.lock:
            key = os.fspath(path)
            snap, warnings = self._current()
            entry = snap.files.get(key)
            if entry is not None and entry.state != "failed":
                return warnings
            if entry is not None:
                healed = self._heal(key, display, entry)
                if healed is None:
                    return [*warnings, _no_rewind(display, entry.error or "backup_failed")]
                new = healed
            else:
                new, failures = self._capture(key, display)
                warnings.extend(failures)
            record = SnapshotRecord(
                snap.prompt_id, snap.label, snap.timestamp, snap.seq, True, {key: new}, {}
            )
            self._apply(record, live=True)
            if not self._append([record]):
                warnings.append(_journal_lost(display))
            return warnings

    def _heal(self, key: str, display: str, failed: FileEntry) -> FileEntry | None:
        """Store a failed backup now, if the file still holds exactly the bytes we missed."""
        if failed.digest is None:
            return None
        try:
            state = read_state(Path(key))
        except WaymarkError:
            return None
        if state.data is None or state.digest != failed.digest:
            return None
        try:
            self.blobs.put(failed.digest, state.data)
        except OSError:
            return None
        return FileEntry(display, "present", failed.digest, failed.time)

    def record_write(self, path: Path, content_digest: str | None) -> None:
        """Note what the agent just wrote (``None``: deleted), so later changes show up."""
        if not self.enabled:
            return
        with self.lock:
            self._note_writes({os.fspath(path): content_digest})

    def _note_writes(self, writes: dict[str, str | None]) -> None:
        snap, _ = self._current()
        record = SnapshotRecord(
            snap.prompt_id, snap.label, snap.timestamp, snap.seq, True, {}, writes
        )
        self._apply(record, live=True)
        self._append([record])

    # -- snapshots ------------------------------------------------------------------------------

    def make_snapshot(self, prompt_id: str, label: str | None = None) -> dict[str, Any]:
        """Open turn ``prompt_id``: record every tracked file's current state."""
        if not isinstance(prompt_id, str) or not prompt_id:
            raise InvalidParams("`promptId` must be a non-empty string.", {"field": "promptId"})
        if label is not None and not isinstance(label, str):
            raise InvalidParams("`label` must be a string.", {"field": "label"})
        if not self.enabled:
            return {"promptId": prompt_id, "label": label, "timestamp": _now_iso(), "files": []}
        with self.lock:
            latest = self._latest()
            if latest is not None and latest.prompt_id == prompt_id:
                return self._summary(latest, [])
            snap, warnings = self._snapshot(prompt_id, label, evict=True)
            return self._summary(snap, warnings)

    def _snapshot(
        self, prompt_id: str, label: str | None, *, evict: bool
    ) -> tuple[Snapshot, list[str]]:
        files: dict[str, FileEntry] = {}
        warnings: list[str] = []
        keys = sorted(self._first)
        # Backups wait on the filesystem (creating a blob), not the CPU: a few in parallel.
        captured = bounded_map(
            lambda key: self._capture(key, self._display[key], reuse=True), keys, IO_WORKERS
        )
        for key, (entry, failures) in zip(keys, captured, strict=True):
            files[key] = entry
            warnings.extend(failures)
        record = SnapshotRecord(prompt_id, label, _now_iso(), self._seq, False, files, {})
        self._apply(record, live=True)
        if not self._append([record]):
            warnings.append(
                "the history journal could not be written; this turn cannot be rewound "
                "after a restart"
            )
        if evict:
            self._evict()
        return self._snaps[prompt_id], warnings

    def _summary(self, snap: Snapshot, warnings: list[str]) -> dict[str, Any]:
        out: dict[str, Any] = {
            "promptId": snap.prompt_id,
            "label": snap.label,
            "timestamp": snap.timestamp,
            "files": sorted(e.display for e in snap.files.values()),
        }
        if warnings:
            out["warnings"] = warnings
        return out

    def turns(self) -> list[dict[str, Any]]:
        """The live turns, oldest first."""
        if not self.enabled:
            return []
        with self.lock:
            failed_firsts = {k for k, (_, e) in self._first.items() if e.state == "failed"}
            out = []
            for snap in sorted(self._snaps.values(), key=lambda s: s.seq):
                can_restore = all(e.state != "failed" for e in snap.files.values()) and all(
                    k in snap.files for k in failed_firsts
                )
                out.append(
                    {
                        "promptId": snap.prompt_id,
                        "label": snap.label,
                        "timestamp": snap.timestamp,
                        "files": sorted(e.display for e in snap.files.values()),
                        "edited": sorted(self._display.get(k, k) for k in snap.edited),
                        "canRestore": can_restore,
                    }
                )
            return out

    def _require(self, prompt_id: str) -> Snapshot:
        snap = self._snaps.get(prompt_id) if self.enabled else None
        if snap is None:
            known = [s.prompt_id for s in sorted(self._snaps.values(), key=lambda s: s.seq)]
            raise UnknownPrompt(
                f"No snapshot has promptId {prompt_id!r}; list the turns with waymark.turns."
                if self.enabled
                else "Checkpointing is off, so there are no turns to rewind to.",
                {"promptId": prompt_id, "known": known[-10:]},
            )
        return snap

    def _target(self, snap: Snapshot, key: str) -> FileEntry:
        """The file's state at the start of ``snap``; its first backup if first touched later."""
        return snap.files.get(key) or self._first[key][1]

    def _expected(self, key: str) -> str | _Unknown | None:
        """What the file should hold if nobody but this session's agent touched it.

        Without a recorded write, the agent never changed it: it should still hold its first
        backup. Later snapshots are no guide, since they record whatever the file held.
        """
        if key in self._writes:
            return self._writes[key]
        return _known(self._first[key][1])

    # -- rewind ---------------------------------------------------------------------------------

    def plan_rewind(self, prompt_id: str, *, force: bool = False) -> RewindPlan:
        """What a rewind to ``prompt_id`` would do to each tracked file; writes nothing."""
        with self.lock:
            snap = self._require(prompt_id)
            files = tuple(
                self._plan_file(key, self._target(snap, key), force) for key in sorted(self._first)
            )
            return RewindPlan(prompt_id, force, files)

    def _plan_file(self, key: str, target: FileEntry, force: bool) -> FilePlan:
        display = self._display[key]
        try:
            current = read_state(Path(key))
        except WaymarkError as exc:
            reason = "is_directory" if isinstance(exc, IsDirectory) else "unreadable"
            return FilePlan(key, display, "failed", reason=reason, errno=_error_errno(exc))
        base = FilePlan(
            key,
            display,
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
            try:
                data = self.blobs.get(target.digest)
            except BlobMissing:
                return replace(base, outcome="failed", reason="backup_missing", errno="ENOENT")
            except BlobCorrupt:
                return replace(base, outcome="failed", reason="backup_corrupt")
            except OSError as exc:
                return replace(
                    base, outcome="failed", reason="backup_unreadable", errno=_errno_name(exc)
                )
        expected = self._expected(key)
        if not force and (isinstance(expected, _Unknown) or current.digest != expected):
            return replace(
                base,
                outcome="conflict",
                reason="changed_since_agent_write",
                target=data,
                current=current.data,
            )
        if data is None:
            return replace(base, outcome="delete", current=current.data)
        return replace(base, outcome="restore", target=data, current=current.data)

    @property
    def rewinding(self) -> bool:
        """True while a rewind runs (edits should wait or answer rewind_in_progress)."""
        return self._gate.locked()

    def rewind(
        self,
        prompt_id: str,
        *,
        option: str = "code",
        force: bool = False,
        plan: RewindPlan | None = None,
    ) -> dict[str, Any]:
        """Rewind to the start of turn ``prompt_id``; exact per-file outcomes.

        ``code`` restores files and keeps the turns; ``conversation`` only drops the turns
        after ``prompt_id``; ``both`` does both. With ``plan`` (from a preview) only files still
        in the state the plan saw are written; the rest are conflicts.
        """
        if option not in OPTIONS:
            raise InvalidParams(
                "`option` must be one of code, conversation, both.", {"field": "option"}
            )
        if plan is not None and plan.prompt_id != prompt_id:
            raise InvalidParams(
                "The pending rewind was planned for another promptId.", {"field": "promptId"}
            )
        if not self._gate.acquire(blocking=False):
            raise RewindInProgress(
                "A rewind is already running in this session; wait for it to finish.",
                {"promptId": prompt_id},
            )
        try:
            with self.lock:
                return self._rewind(prompt_id, option, force, plan)
        finally:
            self._gate.release()

    def _rewind(
        self, prompt_id: str, option: str, force: bool, plan: RewindPlan | None
    ) -> dict[str, Any]:
        target = self._require(prompt_id)
        if plan is not None:
            force = plan.force
        # Eviction waits until the end so the turn being restored keeps its blobs meanwhile.
        undo, warnings = self._snapshot(
            f"undo-{uuid.uuid4().hex[:12]}", f"before rewind to {prompt_id}", evict=False
        )
        result = RewindResult(prompt_id, option, undo.prompt_id, warnings=warnings)
        if option != "conversation":
            planned = {f.key: f for f in plan.files} if plan is not None else None

            def step(key: str) -> FileOutcome:
                fresh = self._plan_file(key, self._target(target, key), force)
                if planned is not None:
                    fresh = _against_preview(planned.get(key), fresh)
                return self._carry_out(fresh, undo.files.get(key))

            writes: dict[str, str | None] = {}
            # Restores are fsynced writes: a few in flight share the filesystem's commits.
            for done in bounded_map(step, sorted(self._first), IO_WORKERS):
                result.add(done)
                if done.kind in ("restored", "deleted"):
                    writes[done.key] = done.digest
            if writes:
                self._note_writes(writes)
        if option != "code":
            for snap in sorted(self._snaps.values(), key=lambda s: s.seq):
                if target.seq < snap.seq < undo.seq:
                    self._drop(snap)
                    result.dropped_turns.append(snap.prompt_id)
        self._evict()
        return result.to_json()

    def _carry_out(self, plan: FilePlan, undo: FileEntry | None) -> FileOutcome:
        """Do what the plan says for one file, unless the undo snapshot cannot cover it."""
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
                    plan.key,
                    plan.path,
                    "failed",
                    "undo_backup_failed",
                    undo.error if undo else None,
                )
            if undo.digest != plan.current_digest:
                return FileOutcome(plan.key, plan.path, "conflict", "changed_during_rewind")
        try:
            if plan.outcome == "restore" and plan.target is not None:
                create_parents(plan.real)
                atomic_write(plan.real, plan.target)
                return FileOutcome(plan.key, plan.path, "restored", digest=plan.target_digest)
            delete_file(plan.real)
            return FileOutcome(plan.key, plan.path, "deleted")
        except WaymarkError as exc:
            reason = "is_directory" if isinstance(exc, IsDirectory) else "write_failed"
            return FileOutcome(plan.key, plan.path, "failed", reason, _error_errno(exc))

    # -- diff stats -----------------------------------------------------------------------------

    def diff_stats(self, prompt_id: str) -> dict[str, Any]:
        """Lines a rewind to ``prompt_id`` would undo, per file; bounded memory and threads.

        The lock is held only to list the work, so a long count never blocks edits; a blob
        evicted meanwhile shows up as ``unavailable``, never as a wrong count.
        """
        with self.lock:
            snap = self._require(prompt_id)
            jobs = [
                _StatJob(key, self._display[key], self._target(snap, key), self._expected(key))
                for key in sorted(self._first)
            ]
        files: list[dict[str, Any]] = []
        unavailable: list[dict[str, Any]] = []
        for item in bounded_map(self._stat_file, jobs):
            if item is not None:
                (unavailable if "reason" in item else files).append(item)
        out: dict[str, Any] = {
            "promptId": prompt_id,
            "filesChanged": len(files),
            "insertions": sum(f["insertions"] for f in files),
            "deletions": sum(f["deletions"] for f in files),
            "files": files,
        }
        if unavailable:
            out["unavailable"] = unavailable
        return out

    def _stat_file(self, job: _StatJob) -> dict[str, Any] | None:
        display, target, expected = job.display, job.target, job.expected
        try:
            current = read_state(Path(job.key))
        except WaymarkError as exc:
            return {"path": display, "reason": "unreadable", "errno": _error_errno(exc)}
        if current.digest == target.digest:
            return None
        if target.state == "failed":
            return {"path": display, "reason": "backup_failed", "errno": target.error}
        old: bytes | None = None
        if target.state == "present" and target.digest is not None:
            try:
                old = self.blobs.get(target.digest)
            except (BlobMissing, BlobCorrupt, OSError) as exc:
                reason = "backup_corrupt" if isinstance(exc, BlobCorrupt) else "backup_missing"
                return {"path": display, "reason": reason}
        counts = count_lines(old, current.data)
        status = "created" if old is None else "deleted" if current.data is None else "modified"
        out: dict[str, Any] = {
            "path": display,
            "status": status,
            "insertions": counts.insertions,
            "deletions": counts.deletions,
        }
        if counts.binary:
            out["binary"] = True
        if isinstance(expected, _Unknown) or expected != current.digest:
            out["conflict"] = True
        return out


@dataclass(frozen=True)
class _StatJob:
    key: str
    display: str
    target: FileEntry
    expected: str | _Unknown | None


def _stat_signature(st: os.stat_result) -> tuple[int, ...]:
    """What a change of the bytes always changes: ctime moves even under ``touch -d``/``cp -p``."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _known(entry: FileEntry) -> str | _Unknown | None:
    if entry.state == "absent":
        return None
    return entry.digest if entry.digest is not None else _UNKNOWN


def _against_preview(planned: FilePlan | None, fresh: FilePlan) -> FilePlan:
    """Only what the preview showed may be written; anything else changed since is a conflict."""
    if fresh.outcome in ("unchanged", "failed", "conflict"):
        return fresh
    if planned is None:
        return _as_conflict(fresh, "tracked_after_preview")
    if not planned.matches(fresh):
        return _as_conflict(fresh, "changed_since_preview")
    return fresh


def _as_conflict(plan: FilePlan, reason: str) -> FilePlan:
    return FilePlan(plan.key, plan.path, "conflict", reason=reason)


def _no_rewind(display: str, why: str) -> str:
    return f"{display}: its backup failed ({why}), so this change cannot be rewound."


def _journal_lost(display: str) -> str:
    return (
        f"{display}: the history journal could not be written, so this change cannot be "
        "rewound after a restart."
    )

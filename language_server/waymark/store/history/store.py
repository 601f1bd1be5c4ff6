"""One workspace's file history on disk: backups per turn, the journal, rewind and stats.

The write pipeline calls :meth:`History.track_edit` before and :meth:`History.record_write`
right after every file it writes; :meth:`History.make_snapshot` opens a turn. The state is
the pure :class:`~.model.Model` folded over the journal; this module does the I/O around it.

Data lives in ``root/ws-<key>/`` (:func:`workspace_dir`): ``journal.jsonl``, ``blobs/`` and
``lock``. Every process working in the workspace (editor server, CLI, MCP server, hooks) opens
the same directory. Each operation holds an advisory ``flock`` on ``lock`` and first catches
up with what other processes appended (or replays from the start when one compacted the
journal: a new inode), so all of them see one history. See docs/history.md.
"""

from __future__ import annotations

import contextlib
import errno as errno_mod
import fcntl
import hashlib
import logging
import os
import shutil
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from stat import S_ISREG
from typing import Final

from waymark.engine.errors import (
    FileChangedSinceRead,
    InvalidParams,
    IoError,
    IsDirectory,
    NotRegularFile,
    PathOutsideWorkspace,
    ProtectedPath,
    RewindInProgress,
    UnknownPrompt,
    WaymarkError,
)
from waymark.store.files import (
    StatKey,
    atomic_write,
    create_parents,
    delete_file,
    locked,
    read_state,
)
from waymark.store.files import digest as content_digest
from waymark.store.history.blobs import (
    DIR_MODE,
    FILE_MODE,
    BlobCorrupt,
    BlobMissing,
    BlobStore,
    make_private_dir,
)
from waymark.store.history.journal import TMP_PREFIX, Journal
from waymark.store.history.model import Model, delta, same
from waymark.store.history.rewind import FileOutcome, FilePlan, RewindPlan, RewindResult
from waymark.store.history.snapshots import FileEntry, Snapshot, SnapshotRecord, record_json
from waymark.store.history.stats import IO_WORKERS, LineCounts, bounded_map, count_lines
from waymark.store.workspace import DEFAULT_PROTECTED, Workspace

log = logging.getLogger("waymark.history")

OPTIONS: Final = ("code", "conversation", "both")
DEFAULT_MAX_SNAPSHOTS: Final = 100
DEFAULT_MAX_BYTES: Final = 1 << 30
# Histories of workspaces nobody opened for this long are removed when a history opens.
RETENTION_DAYS: Final = 30
# A stat only stands for "unchanged" if the file was already this much older than our read.
_RACY_NS = 2_000_000_000
# Compaction waits until the journal is this many times what it would be compacted.
_DEAD_RATIO = 2
_MIN_COMPACT = 64 * 1024
# A rewind waits this long for a file another process is writing, then leaves it alone.
_LOCK_TIMEOUT = 2.0


class _Unknown:
    """What a file should hold, when even that is not known."""


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


def workspace_dir(history_root: Path, folders: Sequence[Path]) -> Path:
    """The one history directory of the workspace whose first folder is ``folders[0]``."""
    first = os.path.realpath(folders[0]) if folders else ""
    key = hashlib.sha256(os.fsencode(first)).hexdigest()[:16]
    return Path(history_root) / f"ws-{key}"


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


@dataclass(frozen=True)
class FileStat:
    """Lines a rewind would undo in one file, or why they cannot be counted (``reason``)."""

    key: str
    status: str = ""
    counts: LineCounts | None = None
    conflict: bool = False
    reason: str | None = None
    errno: str | None = None


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


@dataclass
class _Lock:
    """The history's lock: a thread lock plus, outermost, the cross-process ``flock``."""

    history: History
    thread: threading.RLock = field(default_factory=threading.RLock)
    depth: int = 0

    def __enter__(self) -> None:
        self.thread.acquire()
        self.depth += 1
        if self.depth == 1:
            try:
                self.history._lock_files()
            except BaseException:
                self.depth -= 1
                self.thread.release()
                raise

    def __exit__(self, *exc: object) -> None:
        self.depth -= 1
        if self.depth == 0:
            self.history._unlock_files()
        self.thread.release()


class History:
    """File history of one workspace, shared by every process that opens it."""

    def __init__(
        self,
        directory: Path,
        workspace: Workspace,
        *,
        session: str | None,
        max_snapshots: int,
        max_bytes: int,
    ) -> None:
        self.dir = directory
        self.workspace = workspace
        self.session = session
        self.max_snapshots = max_snapshots
        self.max_bytes = max_bytes
        self.blobs = BlobStore(self.dir / "blobs")
        self.journal = Journal(self.dir / "journal.jsonl")
        self.lock = _Lock(self)
        self.warnings: list[str] = []
        self.model = Model()
        self._gate = threading.Lock()
        self._lock_fd: int | None = None
        self._inode: int | None = None
        self._offset = 0
        self._lines = 0
        self._live_bytes = 0
        self._usable = True
        self._replay_evicted = False
        # How many times this process rewrote the journal (the soak checks it compacts).
        self.compactions = 0
        # Per file: stat signature, digest and when we read it, for the unchanged fast path.
        self._stats: dict[str, tuple[tuple[int, ...], str, int]] = {}

    @classmethod
    def open(
        cls,
        history_root: Path,
        workspace_folders: Sequence[Path],
        *,
        session: str | None = None,
        max_snapshots: int = DEFAULT_MAX_SNAPSHOTS,
        max_bytes: int = DEFAULT_MAX_BYTES,
        protected: Sequence[str] = DEFAULT_PROTECTED,
    ) -> History:
        """The workspace's history (created, or resumed from its journal).

        The one place that maps a workspace to its history: every door calls this. Writes
        are tagged with ``session`` (``None``: a door with no session, e.g. the plain CLI).
        """
        for name, value, low in (
            ("maxSnapshots", max_snapshots, 1),
            ("maxHistoryBytes", max_bytes, 1),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise InvalidParams(
                    f"`{name}` must be an integer of at least {low}.", {"field": name}
                )
        root = Path(os.path.abspath(history_root))
        directory = workspace_dir(root, workspace_folders)
        workspace = Workspace(
            folders=list(workspace_folders),
            protected=tuple(protected),
            protected_dirs=(root,),
        )
        history = cls(
            directory,
            workspace,
            session=session,
            max_snapshots=max_snapshots,
            max_bytes=max_bytes,
        )
        history._resume()
        remove_stale(root, keep=directory)
        return history

    # -- locking and catching up -------------------------------------------------------------

    def _resume(self) -> None:
        try:
            make_private_dir(self.dir)
            os.chmod(self.dir, DIR_MODE)
        except OSError as exc:
            self._usable = False
            self.warnings.append(
                f"history directory {self.dir} could not be created ({_errno_name(exc)}); "
                "changes cannot be rewound."
            )
            return
        with self.lock:
            self._live_bytes = self._offset
            if self._replay_evicted:
                # The journal still holds turns the replay let go: make it say what is kept.
                self._maybe_compact(force=True)
            self._evict()
            self.warnings.extend(self.model.warnings)
            if not self.warnings:
                # A damaged journal may have lost references: keep unreferenced blobs then.
                try:
                    self.blobs.sweep(set(self.model.refs))
                except OSError as exc:
                    log.warning("history blobs of %s could not be swept: %s", self.dir, exc)
            for leftover in self.dir.glob(f"{TMP_PREFIX}*"):
                with contextlib.suppress(OSError):
                    leftover.unlink()

    def _lock_files(self) -> None:
        if not self._usable:
            return
        if self._lock_fd is None:
            self._lock_fd = os.open(
                self.dir / "lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, FILE_MODE
            )
        fcntl.flock(self._lock_fd, fcntl.LOCK_EX)
        self._catch_up()

    def _unlock_files(self) -> None:
        if self._lock_fd is not None:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)

    def _catch_up(self) -> None:
        """Fold in what other processes appended; replay anew if one compacted the journal."""
        try:
            st = os.stat(self.journal.path)
        except FileNotFoundError:
            st = None
        if st is not None and st.st_ino == self._inode and st.st_size == self._offset:
            return
        if (st is None and self._inode is None) or (st is not None and not S_ISREG(st.st_mode)):
            # Nothing to catch up with; a journal that is not a file is no one's new state.
            return
        if st is None or st.st_ino != self._inode or st.st_size < self._offset:
            self.model = Model()
            self._offset = self._lines = 0
            self.journal.close()
            if st is None:
                self._inode = None
                return
        replay = self.journal.replay(self._fold, offset=self._offset, number=self._lines)
        self._inode = replay.inode
        self._offset = replay.offset
        self._lines += replay.records
        self.warnings.extend(replay.warnings)

    def _fold(self, record: SnapshotRecord) -> None:
        """Replay one record; evict on the way so resume holds only what is kept.

        A live rewind holds one turn more than the limit (its undo turn) until it drops the
        turns it undid, so only a turn beyond that was certainly evicted.
        """
        self.model.apply(record)
        if not record.is_update and len(self.model.snaps) > self.max_snapshots + 1:
            oldest = self.model.oldest()
            assert oldest is not None
            # Unreferenced blobs are swept after the replay, once every record is in.
            self.model.apply(self.model.drop_record(oldest))
            self._replay_evicted = True

    def _append(self, records: list[SnapshotRecord]) -> bool:
        if not self._usable:
            return False
        written = self.journal.append(record_json(records))
        if written:
            self._offset += written
            self._lines += 1
            try:
                self._inode = os.stat(self.journal.path).st_ino
            except OSError:
                self._inode = None
        return bool(written)

    def _commit(self, record: SnapshotRecord) -> bool:
        """Journal ``record`` first, then fold it in and delete the blobs it freed."""
        ok = self._append([record])
        for digest in self.model.apply(record):
            try:
                self.blobs.delete(digest)
            except OSError as exc:
                log.warning("history blob %s could not be deleted: %s", digest, exc)
        return ok

    def close(self) -> None:
        """Release the journal's and the lock's descriptors."""
        self.journal.close()
        if self._lock_fd is not None:
            fd, self._lock_fd = self._lock_fd, None
            with contextlib.suppress(OSError):
                os.close(fd)

    # -- eviction, budget, compaction --------------------------------------------------------

    def _used(self) -> int:
        return self.model.blob_bytes() + self._offset

    def _evict(self) -> None:
        """Drop the oldest turns past ``max_snapshots`` or the byte budget; compact as needed.

        The newest turn and every file's first backup are never evicted.
        """
        while len(self.model.snaps) > self.max_snapshots:
            oldest = self.model.oldest()
            assert oldest is not None
            self._commit(self.model.drop_record(oldest))
        self._maybe_compact()
        while self._used() > self.max_bytes and len(self.model.snaps) > 1:
            oldest = self.model.oldest()
            assert oldest is not None
            self._commit(self.model.drop_record(oldest))
            self._maybe_compact()
        if self._used() > self.max_bytes:
            self._forget_firsts()

    def _forget_firsts(self) -> None:
        """Let go of first backups no live turn needs: deleted files' first, then the largest."""
        sizes = self.model.sizes

        def order(key: str) -> tuple[bool, int]:
            digest = self.model.first[key][1].digest
            return os.path.lexists(key), -sizes.get(digest or "", 0)

        for key in sorted(self.model.orphans(), key=order):
            if self._used() <= self.max_bytes:
                break
            self._commit(
                SnapshotRecord("base", None, "", 0, True, {}, {}, base=True, forget=(key,))
            )
            self._maybe_compact()

    def _maybe_compact(self, *, force: bool = False) -> None:
        """Rewrite the journal to the live state when dead records outweigh live ones."""
        if not self._usable:
            return
        if not force and self._offset <= max(_DEAD_RATIO * self._live_bytes, _MIN_COMPACT):
            return
        records = self.model.live_records()
        live = sum(len(str(record_json([r]))) for r in records) if not force else 0
        if not force and self._offset <= _DEAD_RATIO * live:
            self._live_bytes = live
            return
        try:
            size = self.journal.rewrite(record_json([r]) for r in records)
            st = os.stat(self.journal.path)
        except OSError as exc:
            log.warning("history journal %s could not be compacted: %s", self.dir, exc)
            self._live_bytes = self._offset
            return
        self._inode, self._offset, self._lines = st.st_ino, size, len(records)
        self._live_bytes = size
        self.compactions += 1

    def compact(self) -> None:
        """Rewrite the journal to the live state now."""
        with self.lock:
            self._maybe_compact(force=True)

    def prune(self, keep: int) -> list[str]:
        """Keep only the newest ``keep`` turns (at least one); return the dropped ones."""
        with self.lock:
            dropped = []
            while len(self.model.snaps) > max(keep, 1):
                oldest = self.model.oldest()
                assert oldest is not None
                self._commit(self.model.drop_record(oldest))
                dropped.append(oldest.prompt_id)
            self._maybe_compact(force=True)
            return dropped

    def usage(self) -> Usage:
        with self.lock:
            return Usage(
                self.dir,
                len(self.model.snaps),
                len(self.model.first),
                self.model.blob_bytes(),
                self._offset,
                self.max_bytes,
                self.max_snapshots,
            )

    # -- paths ------------------------------------------------------------------------------------

    def display(self, key: str) -> str:
        """The workspace-relative path of ``key`` (the key itself outside every folder)."""
        real = Path(key)
        folder = self.workspace._folder_of(real)
        return key if folder is None else real.relative_to(folder).as_posix()

    def _refusal(self, key: str) -> str | None:
        """Why the journal's ``key`` may not be written: it passes the client-path policy."""
        try:
            resolved = self.workspace.resolve(key)
        except WaymarkError as exc:
            return exc.code
        if os.fspath(resolved.real) != key or not os.path.isabs(key):
            return "path_outside_workspace"
        return None

    # -- backups --------------------------------------------------------------------------------

    def _current(self) -> tuple[Snapshot, list[str]]:
        """The open turn; an implicit one when no snapshot was made yet."""
        latest = self.model.latest()
        if latest is not None:
            return latest, []
        return self._snapshot(f"auto-{uuid.uuid4().hex[:12]}", "auto", evict=True)

    def _capture(self, key: str, *, reuse: bool = False) -> tuple[FileEntry, list[str]]:
        """Back up the file's current state; a failure becomes a ``failed`` entry + warning."""
        display = self.display(key)
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
        return FileEntry(display, "present", state.digest, now, size=len(state.data)), []

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
        return FileEntry(display, "present", digest, now, size=st.st_size)

    def track_edit(self, path: Path) -> list[str]:
        """Back up ``path``'s pre-image on its first write in this turn; return warnings."""
        with self.lock:
            key = os.fspath(path)
            snap, warnings = self._current()
            entry = snap.files.get(key)
            if entry is not None and entry.state != "failed":
                return warnings
            display = self.display(key)
            if entry is not None:
                healed = self._heal(key, display, entry)
                if healed is None:
                    return [*warnings, _no_rewind(display, entry.error or "backup_failed")]
                new = healed
            else:
                new, failures = self._capture(key)
                warnings.extend(failures)
            record = SnapshotRecord(
                snap.prompt_id, snap.label, snap.timestamp, snap.seq, True, {key: new}, {}
            )
            if not self._commit(record):
                warnings.append(_journal_lost(display))
            self._evict()
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
        return FileEntry(display, "present", failed.digest, failed.time, size=len(state.data))

    def record_write(self, path: Path, content_digest: str | None) -> None:
        """Note what was just written to ``path`` (``None``: deleted) and by which session."""
        with self.lock:
            self._note_writes({os.fspath(path): content_digest})
            self._evict()

    def _note_writes(self, writes: dict[str, str | None]) -> None:
        snap, _ = self._current()
        self._commit(
            SnapshotRecord(
                snap.prompt_id,
                snap.label,
                snap.timestamp,
                snap.seq,
                True,
                {},
                writes,
                session=self.session,
            )
        )

    def track_shell(
        self, changes: Mapping[str, tuple[bytes | None, str | None]], unreached: Mapping[str, str]
    ) -> list[str]:
        """Record what a shell command changed into the open turn; return warnings.

        ``changes`` maps each file to its bytes before the command (``None``: absent) and its
        digest after (``None``: deleted); ``unreached`` names what the command may have
        changed but could not be backed up, with why. A file already in the turn keeps its
        earlier backup (the turn's start), like any second write.
        """
        with self.lock:
            snap, warnings = self._current()
            now = time.time()
            files: dict[str, FileEntry] = {}
            for key, (before, _) in changes.items():
                if key in snap.files:
                    continue
                display = self.display(key)
                if before is None:
                    files[key] = FileEntry(display, "absent", None, now)
                    continue
                content = content_digest(before)
                try:
                    self.blobs.put(content, before)
                except OSError as exc:
                    files[key] = FileEntry(display, "failed", content, now, _errno_name(exc))
                    warnings.append(_no_rewind(display, _errno_name(exc)))
                    continue
                files[key] = FileEntry(display, "present", content, now, size=len(before))
            record = SnapshotRecord(
                snap.prompt_id,
                snap.label,
                snap.timestamp,
                snap.seq,
                True,
                files,
                {key: after for key, (_, after) in changes.items()},
                session=self.session,
                unreached=dict(unreached),
            )
            if (changes or unreached) and not self._commit(record):
                warnings.append(_journal_lost(f"{len(changes)} shell-changed file(s)"))
            self._evict()
            return warnings

    # -- snapshots ------------------------------------------------------------------------------

    def make_snapshot(self, prompt_id: str, label: str | None = None) -> tuple[Snapshot, list[str]]:
        """Open turn ``prompt_id``: record every tracked file's current state."""
        with self.lock:
            latest = self.model.latest()
            if latest is not None and latest.prompt_id == prompt_id:
                return latest, []
            return self._snapshot(prompt_id, label, evict=True)

    def _snapshot(
        self, prompt_id: str, label: str | None, *, evict: bool
    ) -> tuple[Snapshot, list[str]]:
        files: dict[str, FileEntry] = {}
        warnings: list[str] = []
        keys = sorted(self.model.first)
        parent = self.model.latest()
        inherited = parent.files if parent is not None else {}
        # Backups wait on the filesystem (creating a blob), not the CPU: a few in parallel.
        captured = bounded_map(lambda key: self._capture(key, reuse=True), keys, IO_WORKERS)
        for key, (entry, failures) in zip(keys, captured, strict=True):
            previous = inherited.get(key)
            files[key] = previous if previous is not None and same(previous, entry) else entry
            warnings.extend(failures)
        if parent is not None and parent.files.keys() <= files.keys():
            record = SnapshotRecord(
                prompt_id,
                label,
                _now_iso(),
                self.model.seq,
                False,
                delta(parent.files, files),
                {},
                inherit=parent.prompt_id,
            )
        else:
            record = SnapshotRecord(prompt_id, label, _now_iso(), self.model.seq, False, files, {})
        if not self._commit(record):
            warnings.append(
                "the history journal could not be written; this turn cannot be rewound "
                "after a restart"
            )
        snap = self.model.snaps[prompt_id]
        if evict:
            self._evict()
        return snap, warnings

    def tracked(self) -> list[str]:
        """Absolute paths of every file the history backs up."""
        with self.lock:
            return sorted(self.model.first)

    def turns(self) -> list[Turn]:
        """The live turns, oldest first."""
        with self.lock:
            model = self.model
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

    def _require(self, prompt_id: str) -> Snapshot:
        snap = self.model.snaps.get(prompt_id)
        if snap is None:
            known = [s.prompt_id for s in self.model.ordered()]
            raise UnknownPrompt(
                f"No snapshot has promptId {prompt_id!r}; list the turns with waymark.turns.",
                {"promptId": prompt_id, "known": known[-10:]},
            )
        return snap

    def _expected(self, key: str) -> str | _Unknown | None:
        """What the file should hold if nobody but Waymark's writers touched it.

        Without a recorded write, nobody changed it through Waymark: it should still hold its
        first backup. Later snapshots are no guide, since they record whatever the file held.
        """
        write = self.model.writes.get(key)
        if write is not None:
            return write.digest
        return _known(self.model.first[key][1])

    def _other_session(self, key: str, since: int) -> bool:
        """Whether another session wrote ``key`` last, in turn ``since`` or later."""
        write = self.model.writes.get(key)
        return (
            write is not None
            and write.session is not None
            and self.session is not None
            and write.session != self.session
            and write.seq >= since
        )

    # -- rewind ---------------------------------------------------------------------------------

    def plan_rewind(
        self, prompt_id: str, *, force: bool = False, blocked: Mapping[str, str] | None = None
    ) -> RewindPlan:
        """What a rewind to ``prompt_id`` would do to each tracked file; writes nothing."""
        with self.lock:
            snap = self._require(prompt_id)
            return RewindPlan(
                prompt_id,
                force,
                tuple(
                    self._plan_file(key, snap, force, blocked or {})
                    for key in sorted(self.model.first)
                ),
            )

    def _plan_file(
        self, key: str, snap: Snapshot, force: bool, blocked: Mapping[str, str]
    ) -> FilePlan:
        display = self.display(key)
        target = self.model.target(snap, key)
        refused = self._refusal(key)
        if refused is not None:
            return FilePlan(key, display, "failed", reason=refused)
        try:
            current = read_state(Path(key))
        except WaymarkError as exc:
            return FilePlan(
                key, display, "failed", reason=_reason(exc, "unreadable"), errno=_error_errno(exc)
            )
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
        if key in blocked:
            return replace(base, outcome="conflict", reason=blocked[key], target=data)
        expected = self._expected(key)
        why = None
        if isinstance(expected, _Unknown) or current.digest != expected:
            why = "changed_since_agent_write"
        elif self._other_session(key, snap.seq):
            why = "written_by_other_session"
        if why is not None and not force:
            return replace(base, outcome="conflict", reason=why, target=data, current=current.data)
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
        blocked: Mapping[str, str] | None = None,
    ) -> RewindResult:
        """Rewind to the start of turn ``prompt_id``; exact per-file outcomes by absolute path.

        ``code`` restores files and keeps the turns; ``conversation`` only drops the turns
        after ``prompt_id``; ``both`` does both. With ``plan`` (from a preview) only files still
        in the state the plan saw are written; the rest are conflicts. ``blocked`` files (e.g.
        unsaved in an editor) are conflicts with the given reason.
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
                return self._rewind(prompt_id, option, force, plan, blocked or {})
        finally:
            self._gate.release()

    def _rewind(
        self,
        prompt_id: str,
        option: str,
        force: bool,
        plan: RewindPlan | None,
        blocked: Mapping[str, str],
    ) -> RewindResult:
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
                fresh = self._plan_file(key, target, force, blocked)
                if planned is not None:
                    fresh = _against_preview(planned.get(key), fresh)
                return self._carry_out(fresh, undo.files.get(key))

            writes: dict[str, str | None] = {}
            # Restores are fsynced writes: a few in flight share the filesystem's commits.
            for done in bounded_map(step, sorted(self.model.first), IO_WORKERS):
                result.add(done)
                if done.kind in ("restored", "deleted"):
                    writes[done.key] = done.digest
            if writes:
                self._note_writes(writes)
        if option != "code":
            for snap in self.model.ordered():
                if target.seq < snap.seq < undo.seq:
                    self._commit(self.model.drop_record(snap))
                    result.dropped_turns.append(snap.prompt_id)
        self._evict()
        return result

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
        changed = FileOutcome(plan.key, plan.path, "conflict", "changed_during_rewind")
        try:
            if plan.outcome == "restore":
                create_parents(plan.real)
            # Under the file's lock no other Waymark process writes it: re-read, compare, and
            # replace only exactly the bytes planned (which the undo turn holds). Every step
            # walks the path without following symlinks.
            with locked(plan.real, timeout=_LOCK_TIMEOUT):
                if read_state(plan.real).digest != plan.current_digest:
                    return changed
                if plan.outcome == "restore" and plan.target is not None:
                    atomic_write(plan.real, plan.target, expected=plan.current_digest)
                    return FileOutcome(plan.key, plan.path, "restored", digest=plan.target_digest)
                delete_file(plan.real, expected=plan.current_digest)
                return FileOutcome(plan.key, plan.path, "deleted")
        except FileChangedSinceRead:
            return changed
        except WaymarkError as exc:
            if isinstance(exc, IoError) and exc.details.get("errno") == "EAGAIN":
                # Another process is writing it right now: its change wins, as any later one.
                return FileOutcome(plan.key, plan.path, "conflict", "being_written_elsewhere")
            return FileOutcome(plan.key, plan.path, "failed", _reason(exc), _error_errno(exc))

    # -- diff stats -----------------------------------------------------------------------------

    def diff_stats(self, prompt_id: str) -> list[FileStat]:
        """Lines a rewind to ``prompt_id`` would undo, per changed file; bounded memory.

        The lock is held only to list the work, so a long count never blocks edits; a blob
        evicted meanwhile shows up with a ``reason``, never as a wrong count.
        """
        with self.lock:
            snap = self._require(prompt_id)
            jobs = [
                (key, self.model.target(snap, key), self._expected(key))
                for key in sorted(self.model.first)
            ]
        return [item for item in bounded_map(self._stat_file, jobs) if item is not None]

    def _stat_file(self, job: tuple[str, FileEntry, str | _Unknown | None]) -> FileStat | None:
        key, target, expected = job
        try:
            current = read_state(Path(key))
        except WaymarkError as exc:
            return FileStat(key, reason="unreadable", errno=_error_errno(exc))
        if current.digest == target.digest:
            return None
        if target.state == "failed":
            return FileStat(key, reason="backup_failed", errno=target.error)
        old: bytes | None = None
        if target.state == "present" and target.digest is not None:
            try:
                old = self.blobs.get(target.digest)
            except (BlobMissing, BlobCorrupt, OSError) as exc:
                reason = "backup_corrupt" if isinstance(exc, BlobCorrupt) else "backup_missing"
                return FileStat(key, reason=reason)
        status = "created" if old is None else "deleted" if current.data is None else "modified"
        conflict = isinstance(expected, _Unknown) or expected != current.digest
        return FileStat(key, status, count_lines(old, current.data), conflict)


def remove_stale(root: Path, *, keep: Path, days: int = RETENTION_DAYS) -> list[Path]:
    """Delete workspace histories under ``root`` untouched for ``days``; never ``keep``."""
    removed: list[Path] = []
    cutoff = time.time() - days * 86400
    try:
        entries = list(os.scandir(root))
    except OSError:
        return removed
    for entry in entries:
        if not entry.name.startswith("ws-") or entry.path == os.fspath(keep):
            continue
        if not entry.is_dir(follow_symlinks=False):
            continue
        if _last_used(Path(entry.path)) >= cutoff:
            continue
        if delete_history(Path(entry.path), wait=False):
            removed.append(Path(entry.path))
    return removed


def _last_used(directory: Path) -> float:
    newest = 0.0
    for name in ("journal.jsonl", "lock", "."):
        with contextlib.suppress(OSError):
            newest = max(newest, os.stat(directory / name, follow_symlinks=False).st_mtime)
    return newest


def delete_history(directory: Path, *, wait: bool = True) -> bool:
    """Remove one workspace history, under its lock; False if another process holds it."""
    try:
        fd = os.open(directory / "lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW)
    except FileNotFoundError:
        return False
    except OSError:
        fd = -1
    try:
        if fd >= 0:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            except BlockingIOError:
                return False
        shutil.rmtree(directory, ignore_errors=True)
        return True
    finally:
        if fd >= 0:
            os.close(fd)


def _reason(exc: WaymarkError, default: str = "write_failed") -> str:
    """A per-file failure's reason: the policy's code when the path itself was refused."""
    if isinstance(exc, IsDirectory):
        return "is_directory"
    if isinstance(exc, PathOutsideWorkspace | NotRegularFile | ProtectedPath):
        return exc.code
    return default


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

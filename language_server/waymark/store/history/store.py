"""One workspace's file history on disk: backups per turn, the journal, rewind and stats.

:class:`History` is the one public face; each job lives in its own module:

- :mod:`~.sync`: the lock shared by every process, catching up with their journal appends,
  and :func:`~.writelocks.write_locks`, the one lock order of every write;
- :mod:`~.capture`: backups before a write, recording writes and shell changes;
- :mod:`~.turns`: opening turns (snapshots) and listing them;
- :mod:`~.rewind`: planning and carrying out a rewind;
- :mod:`~.stats`: lines a rewind would undo;
- :mod:`~.budget`: eviction, compaction and the sweep on open;
- :mod:`~.retention`: where a history lives and removing stale ones.

The state is the pure :class:`~.model.Model` folded over the journal. Data lives in
``root/ws-<key>/`` (:func:`~.retention.workspace_dir`): ``journal.jsonl``, ``blobs/`` and
``lock``. See docs/history.md.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import TYPE_CHECKING, Final

from waymark.store.files import digest
from waymark.store.history import budget, capture, foreign, turns
from waymark.store.history.backups import Backups, Unfetched, display, fetch_backup
from waymark.store.history.blobs import BlobStore
from waymark.store.history.budget import Usage
from waymark.store.history.errors import LimitTooLow
from waymark.store.history.journal import Journal
from waymark.store.history.model import Model
from waymark.store.history.retention import (
    RETENTION_DAYS,
    delete_history,
    remove_stale,
    workspace_dir,
)
from waymark.store.history.snapshots import Snapshot
from waymark.store.history.sync import HistoryLock, Ledger
from waymark.store.history.turns import Turn
from waymark.store.workspace import DEFAULT_PROTECTED, Workspace

if TYPE_CHECKING:
    # Rewind and stats (and their diff engine and thread pool) load on first use: a hook
    # opening a turn or tracking a shell command never needs them (issue 33).
    from waymark.store.history.plan import RewindPlan
    from waymark.store.history.rewind import RewindResult
    from waymark.store.history.stats import FileStat

DEFAULT_MAX_SNAPSHOTS: Final = 100
DEFAULT_MAX_BYTES: Final = 1 << 30

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_SNAPSHOTS",
    "RETENTION_DAYS",
    "History",
    "Turn",
    "Usage",
    "delete_history",
    "history_workspace",
    "workspace_dir",
]


def history_workspace(
    history_root: Path, folders: Sequence[Path], *, protected: Sequence[str] = DEFAULT_PROTECTED
) -> Workspace:
    """A workspace as the doors build one: ``protected`` globs, the history directory barred.

    For callers with no workspace of their own (tests, benches).
    """
    return Workspace(
        folders=list(folders),
        protected=tuple(protected),
        protected_dirs=(Path(os.path.abspath(history_root)),),
    )


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
        self.workspace = workspace
        self.session = session
        self.ledger = Ledger(directory, max_snapshots=max_snapshots, max_bytes=max_bytes)
        self.backups = Backups(self.ledger.blobs, workspace)
        self.lock = HistoryLock(self.ledger)
        # One rewind at a time in this process; edits check :attr:`rewinding`.
        self.gate = threading.Lock()

    @classmethod
    def open(
        cls,
        history_root: Path,
        workspace: Workspace,
        *,
        session: str | None = None,
        max_snapshots: int = DEFAULT_MAX_SNAPSHOTS,
        max_bytes: int = DEFAULT_MAX_BYTES,
    ) -> History:
        """The history of ``workspace`` (created, or resumed from its journal).

        The one place that maps a workspace to its history: every door calls this with the
        workspace it works in, so both see one set of folders. Writes are tagged with
        ``session`` (``None``: a door with no session, e.g. the plain CLI).
        """
        for name, value in (("max_snapshots", max_snapshots), ("max_bytes", max_bytes)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise LimitTooLow(name, value, 1)
        root = Path(os.path.abspath(history_root))
        directory = workspace_dir(root, workspace.folders)
        history = cls(
            directory,
            workspace,
            session=session,
            max_snapshots=max_snapshots,
            max_bytes=max_bytes,
        )
        budget.resume(history.ledger, history.lock)
        remove_stale(root, keep=directory)
        return history

    # -- the shared state -----------------------------------------------------------------------

    @property
    def dir(self) -> Path:
        return self.ledger.dir

    @property
    def model(self) -> Model:
        return self.ledger.model

    @property
    def blobs(self) -> BlobStore:
        return self.ledger.blobs

    @property
    def journal(self) -> Journal:
        return self.ledger.journal

    @property
    def warnings(self) -> list[str]:
        return self.ledger.warnings

    @property
    def compactions(self) -> int:
        return self.ledger.compactions

    @property
    def max_snapshots(self) -> int:
        return self.ledger.max_snapshots

    @property
    def max_bytes(self) -> int:
        return self.ledger.max_bytes

    def close(self) -> None:
        """Release the journal's and the lock's descriptors."""
        self.ledger.close()

    def display(self, key: str) -> str:
        """The workspace-relative path of ``key`` (the key itself outside every folder)."""
        return display(self.workspace, key)

    # -- recording writes -----------------------------------------------------------------------

    def track_edit(
        self,
        path: Path,
        write: tuple[bytes | None, bytes | None] | None = None,
        digests: tuple[str | None, str | None] | None = None,
    ) -> list[str]:
        """Back up ``path``'s pre-image on its first write in this turn, and record ``write``
        (the bytes before and after; ``None``: absent) ahead of it; return warnings.

        ``digests``: the digests of ``write``'s two sides when the caller took them already.
        """
        with self.lock:
            return capture.track_edit(self.ledger, self.backups, path, write, self.session, digests)

    def record_write(self, path: Path, content_digest: str | None) -> None:
        """Note what was just written to ``path`` (``None``: deleted) and by which session."""
        with self.lock:
            capture.record_write(self.ledger, self.backups, self.session, path, content_digest)

    def put_back(self, files: Mapping[Path, bytes | None]) -> None:
        """Note files of a failed change put back to these bytes (``None``: absent)."""
        digests = {os.fspath(p): None if b is None else digest(b) for p, b in files.items()}
        with self.lock:
            capture.put_back(self.ledger, self.backups, self.session, digests)

    def track_shell(
        self, changes: Mapping[str, tuple[bytes | None, str | None]], unreached: Mapping[str, str]
    ) -> list[str]:
        """Record what a shell command changed into the open turn (see :mod:`~.capture`)."""
        with self.lock:
            return capture.track_shell(self.ledger, self.backups, self.session, changes, unreached)

    def track_foreign(
        self,
        prompt_id: str,
        label: str,
        changes: Mapping[str, tuple[bytes | None, str | None]],
        unreached: Mapping[str, str],
        joins: Callable[[Snapshot], str | None] = lambda newest: None,
    ) -> tuple[list[str], list[str]]:
        """Record other programs' changes as a turn of their own, or into the newest such
        turn ``joins`` takes them into (see :mod:`~.foreign`)."""
        with self.lock:
            return foreign.track_foreign(
                self.ledger, self.backups, prompt_id, label, changes, unreached, joins
            )

    # -- turns ----------------------------------------------------------------------------------

    def make_snapshot(self, prompt_id: str, label: str | None = None) -> tuple[Snapshot, list[str]]:
        """Open turn ``prompt_id``: record every tracked file's current state."""
        with self.lock:
            return turns.make_snapshot(self.ledger, self.backups, prompt_id, label)

    def drop_if_unchanged(self, prompt_id: str) -> bool:
        """Drop turn ``prompt_id`` when it is the newest and recorded no change; whether it was."""
        with self.lock:
            return turns.drop_if_unchanged(self.ledger, prompt_id)

    def tracked(self) -> list[str]:
        """Absolute paths of every file the history backs up."""
        with self.lock:
            return sorted(self.model.first)

    def turns(self) -> list[Turn]:
        """The live turns, oldest first."""
        with self.lock:
            return turns.listing(self.model)

    # -- rewind and stats -----------------------------------------------------------------------

    def plan_rewind(
        self,
        prompt_id: str,
        *,
        force: bool = False,
        blocked: Mapping[str, str] | None = None,
        only: AbstractSet[str] | None = None,
    ) -> RewindPlan:
        """What a rewind to ``prompt_id`` would do to each tracked file; writes nothing."""
        from waymark.store.history import plan

        with self.lock:
            return plan.plan_rewind(self, prompt_id, force, blocked or {}, only)

    @property
    def rewinding(self) -> bool:
        """True while a rewind runs (edits should wait or answer rewind_in_progress)."""
        return self.gate.locked()

    def rewind(
        self,
        prompt_id: str,
        *,
        option: str = "code",
        force: bool = False,
        plan: RewindPlan | None = None,
        blocked: Mapping[str, str] | None = None,
        only: AbstractSet[str] | None = None,
    ) -> RewindResult:
        """Rewind to the start of turn ``prompt_id``; exact per-file outcomes by absolute path.

        ``code`` restores files and keeps the turns; ``conversation`` only drops the turns
        after ``prompt_id``; ``both`` does both. With ``plan`` (from a preview) only files still
        in the state the plan saw are written; the rest are conflicts. ``blocked`` files (e.g.
        unsaved in an editor) are conflicts with the given reason. ``only`` (absolute paths)
        limits the rewind to those tracked files; the undo turn still records every file.
        """
        from waymark.store.history import rewind

        return rewind.rewind(self, prompt_id, option, force, plan, blocked or {}, only)

    def diff_stats(self, prompt_id: str) -> list[FileStat]:
        """Lines a rewind to ``prompt_id`` would undo, per changed file; bounded memory."""
        from waymark.store.history import stats

        return stats.diff_stats(self.ledger, self.lock, prompt_id, self.workspace)

    # -- what is kept ---------------------------------------------------------------------------

    def compact(self) -> None:
        """Rewrite the journal to the live state now."""
        with self.lock:
            budget.maybe_compact(self.ledger, force=True)

    def prune(self, keep: int) -> list[str]:
        """Keep only the newest ``keep`` turns (at least one); return the dropped ones."""
        with self.lock:
            return budget.prune(self.ledger, keep)

    def usage(self) -> Usage:
        with self.lock:
            return budget.usage(self.ledger)

    def backup(self, content_digest: str) -> bytes | Unfetched:
        """A stored blob's bytes, checked against its name, or why not (manual recovery)."""
        with self.lock:
            return fetch_backup(self.ledger.blobs, content_digest)

"""File history: per-turn backups, the JSONL journal, resume, rewind and diff stats.

``model`` is the pure reducer over journal records; :class:`History` (``store``) is the one
public face over the modules that do the I/O around it (one history per workspace, shared by
every process). See docs/history.md.
"""

from waymark.store.history.errors import (
    HistoryError,
    LimitTooLow,
    PlanMismatch,
    RewindRunning,
    UnknownOption,
    UnknownTurn,
)
from waymark.store.history.rewind import FileOutcome, FilePlan, RewindPlan, RewindResult
from waymark.store.history.store import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_SNAPSHOTS,
    OPTIONS,
    RETENTION_DAYS,
    FileStat,
    History,
    Turn,
    Usage,
    delete_history,
    history_workspace,
    workspace_dir,
)
from waymark.store.history.sync import write_locks

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_SNAPSHOTS",
    "OPTIONS",
    "RETENTION_DAYS",
    "FileOutcome",
    "FilePlan",
    "FileStat",
    "History",
    "HistoryError",
    "LimitTooLow",
    "PlanMismatch",
    "RewindPlan",
    "RewindResult",
    "RewindRunning",
    "Turn",
    "UnknownOption",
    "UnknownTurn",
    "Usage",
    "delete_history",
    "history_workspace",
    "workspace_dir",
    "write_locks",
]

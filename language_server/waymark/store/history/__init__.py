"""File history: per-turn backups, the JSONL journal, resume, rewind and diff stats.

``model`` is the pure reducer over journal records; :class:`History` (``store``) is the one
public face over the modules that do the I/O around it (one history per workspace, shared by
every process). See docs/history.md.

Rewind's and stats' names load on first use (:func:`__getattr__`): the hooks open turns and
track shell commands many times a minute and never rewind (issue 33).
"""

from typing import TYPE_CHECKING

from waymark.engine.lazy import lazy_names
from waymark.store.history.errors import (
    HistoryError,
    LimitTooLow,
    PlanMismatch,
    RewindRunning,
    UnknownOption,
    UnknownTurn,
)
from waymark.store.history.store import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_SNAPSHOTS,
    RETENTION_DAYS,
    History,
    Turn,
    Usage,
    delete_history,
    history_workspace,
    workspace_dir,
)
from waymark.store.history.writelocks import write_locks

if TYPE_CHECKING:
    from waymark.store.history.plan import FilePlan, RewindPlan
    from waymark.store.history.rewind import OPTIONS, FileOutcome, RewindResult
    from waymark.store.history.stats import FileStat

_LAZY = {
    "OPTIONS": "rewind",
    "FileOutcome": "rewind",
    "FilePlan": "plan",
    "RewindPlan": "plan",
    "RewindResult": "rewind",
    "FileStat": "stats",
}


__getattr__ = lazy_names(__name__, _LAZY, globals())


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

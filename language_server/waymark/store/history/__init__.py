"""File history: per-turn backups, the JSONL journal, resume, rewind and diff stats.

``model`` is the pure reducer over journal records; ``store`` does the I/O around it (one
history per workspace, shared by every process). See docs/history.md.
"""

from waymark.store.history.rewind import FileOutcome, FilePlan, RewindPlan, RewindResult
from waymark.store.history.store import (
    DEFAULT_MAX_BYTES,
    OPTIONS,
    RETENTION_DAYS,
    FileStat,
    History,
    Turn,
    Usage,
    delete_history,
    workspace_dir,
)

__all__ = [
    "DEFAULT_MAX_BYTES",
    "OPTIONS",
    "RETENTION_DAYS",
    "FileOutcome",
    "FilePlan",
    "FileStat",
    "History",
    "RewindPlan",
    "RewindResult",
    "Turn",
    "Usage",
    "delete_history",
    "workspace_dir",
]

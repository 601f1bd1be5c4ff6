"""File history: per-turn backups, the JSONL journal, resume, rewind and diff stats.

See docs/history.md for the model, the journal format and the rules a rewind follows.
"""

from .core import OPTIONS, History
from .rewind import FilePlan, RewindPlan

__all__ = ["OPTIONS", "FilePlan", "History", "RewindPlan"]

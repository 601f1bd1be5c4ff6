"""The parts of an open history that its modules work on, without the facade itself.

:class:`~.store.History` holds them and passes itself; the modules under it type against
this protocol, so none of them imports the facade back (``tests/unit/test_layers.py``).
"""

from __future__ import annotations

import threading
from typing import Protocol

from waymark.store.history.backups import Backups
from waymark.store.history.sync import HistoryLock, Ledger
from waymark.store.workspace import Workspace


class Parts(Protocol):
    """An open history's journal, backups and locks, and the workspace and session."""

    @property
    def workspace(self) -> Workspace: ...

    @property
    def session(self) -> str | None: ...

    @property
    def ledger(self) -> Ledger: ...

    @property
    def backups(self) -> Backups: ...

    @property
    def lock(self) -> HistoryLock: ...

    @property
    def gate(self) -> threading.Lock: ...

    def display(self, key: str) -> str:
        """``key`` as the user reads it (workspace-relative when inside one folder)."""
        ...

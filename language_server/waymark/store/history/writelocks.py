"""The one order every write takes its locks in: the history's lock, then the files' own.

An edit, a write and a rewind take them through :func:`write_locks`, so two processes never
wait for each other crosswise (store/locks.py orders the files' locks among themselves).
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from waymark.store import callbound
from waymark.store.history.sync import HistoryLock
from waymark.store.locks import DEFAULT_LOCK_TIMEOUT, locked
from waymark.store.walk import Walks


class FileLocks:
    """Handed out by :func:`write_locks` once the history's lock is held.

    More files are locked through it (from worker threads too: the history's lock stays with
    the thread that took it), so no file lock is ever taken before the history's.
    """

    def hold(
        self, *paths: Path, timeout: float = DEFAULT_LOCK_TIMEOUT, walks: Walks | None = None
    ) -> contextlib.AbstractContextManager[None]:
        return locked(*paths, timeout=timeout, walks=walks)


class Locked(Protocol):
    """What holds a history's lock (an open history)."""

    @property
    def lock(self) -> HistoryLock: ...


def write_locks(
    history: Locked | None, paths: Sequence[Path] = (), *, walks: Walks | None = None
) -> contextlib.AbstractContextManager[FileLocks]:
    """The one order every write takes its locks in: the history's, then the files'.

    The files' directory locks are taken in :func:`~waymark.store.locks.locked`'s fixed
    order, so an edit and a rewind in two processes never wait for each other crosswise.
    ``history`` is ``None`` when history is off; ``walks`` as for ``locked``.
    """
    return _WriteLocks(history, paths, walks)


class _WriteLocks:
    """:func:`write_locks`' hold: plain enter and exit, as every edit takes it (a generator
    and an exit stack cost it more than its own system calls)."""

    def __init__(self, history: Locked | None, paths: Sequence[Path], walks: Walks | None):
        self._history = None if history is None else history.lock
        self._files = locked(*paths, walks=walks) if paths else None

    def __enter__(self) -> FileLocks:
        history, files = self._history, self._files
        if history is not None:
            history.__enter__()
        try:
            if files is not None:
                files.__enter__()
            try:
                callbound.before_acting()
            except BaseException:
                if files is not None:
                    files.__exit__(None, None, None)
                raise
        except BaseException:
            if history is not None:
                history.__exit__(None, None, None)
            raise
        return FileLocks()

    def __exit__(self, *exc: object) -> None:
        try:
            if self._files is not None:
                self._files.__exit__(None, None, None)
        finally:
            if self._history is not None:
                self._history.__exit__(None, None, None)

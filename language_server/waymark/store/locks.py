"""Advisory locks across processes: every Waymark process writing a file holds one.

:func:`locked` takes an exclusive ``flock`` on each path's directory around re-read →
compare → replace, so two processes never both act on the same old content. Several paths
are locked in one fixed order (by device and inode), so two writers never wait crosswise.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from waymark.engine.errors import IoError
from waymark.store import callbound
from waymark.store.walk import Walks, os_error, split_text, walk

DEFAULT_LOCK_TIMEOUT = 10.0


@dataclass
class _Held:
    """One process's hold on a directory lock; threads of the process queue on ``mutex``."""

    mutex: threading.RLock = field(default_factory=threading.RLock)
    fd: int = -1
    depth: int = 0


_held: dict[tuple[int, int], _Held] = {}
_held_guard = threading.Lock()


def locked(
    *paths: Path, timeout: float = DEFAULT_LOCK_TIMEOUT, walks: Walks | None = None
) -> contextlib.AbstractContextManager[None]:
    """Hold an exclusive advisory lock on each path's directory (``flock``), in a fixed order.

    Every Waymark process writing a file takes this lock around re-read → compare →
    replace, so two processes never both act on the same old content. Reentrant within a
    process; threads of one process wait for each other. Parents must exist (see
    :func:`create_parents`); the lock never follows a symlink. Raises ``io_error`` (EAGAIN)
    after ``timeout`` seconds, or earlier at a hook call's bound (:mod:`.callbound`).
    ``walks``: the caller's directories already reached (the lock is then on the very
    directory its reads and writes go through).
    """
    return _Locked(paths, timeout, walks)


class _Locked:
    """:func:`locked`'s hold: nothing happens before ``with`` enters it. A plain class, as
    every edit takes it (a generator's context manager cost more than its system calls)."""

    def __init__(self, paths: tuple[Path, ...], timeout: float, walks: Walks | None) -> None:
        self._paths = paths
        self._timeout = timeout
        self._walks = walks
        self._acquired: list[tuple[int, int]] = []

    def __enter__(self) -> None:
        paths, walks = self._paths, self._walks
        opened: list[tuple[tuple[int, int], int]] = []
        try:
            for path in paths:
                absolute, dirs, _ = split_text(path, False)
                if walks is not None:
                    fd = _open_lock(walks.directory(absolute, dirs))
                else:
                    with walk(absolute, dirs) as dir_fd:
                        fd = _open_lock(dir_fd)
                st = os.fstat(fd)
                opened.append(((st.st_dev, st.st_ino), fd))
        except OSError as exc:
            for _, fd in opened:
                os.close(fd)
            raise os_error(exc, "lock", paths[len(opened)]) from exc
        except BaseException:
            for _, fd in opened:
                os.close(fd)
            raise
        unique: dict[tuple[int, int], int] = {}
        for key, fd in opened:
            if key in unique:
                os.close(fd)
            else:
                unique[key] = fd
        deadline = callbound.deadline(time.monotonic() + self._timeout)
        acquired = self._acquired
        try:
            for key in sorted(unique):
                _acquire(key, unique.pop(key), deadline, paths)
                acquired.append(key)
        except BaseException:
            for fd in unique.values():
                os.close(fd)
            self._release()
            raise

    def __exit__(self, *exc: object) -> None:
        self._release()

    def _release(self) -> None:
        acquired, self._acquired = self._acquired, []
        for key in reversed(acquired):
            _release(key)


def _open_lock(dir_fd: int) -> int:
    # The walk's descriptor may be O_PATH, which flock refuses: the directory opened anew.
    return os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=dir_fd)


def _acquire(key: tuple[int, int], fd: int, deadline: float, paths: tuple[Path, ...]) -> None:
    held = _held.get(key)
    if held is None:
        with _held_guard:
            held = _held.setdefault(key, _Held())
    if not held.mutex.acquire(blocking=False) and not held.mutex.acquire(
        timeout=max(0.0, deadline - time.monotonic())
    ):
        os.close(fd)
        raise _busy(paths)
    if held.depth:
        os.close(fd)
        held.depth += 1
        return
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise _busy(paths) from None
                time.sleep(0.002)
    except BaseException:
        os.close(fd)
        held.mutex.release()
        raise
    held.fd = fd
    held.depth = 1


def _release(key: tuple[int, int]) -> None:
    held = _held[key]
    held.depth -= 1
    if held.depth == 0:
        # Closing the descriptor drops the flock.
        os.close(held.fd)
        held.fd = -1
    held.mutex.release()


def _busy(paths: tuple[Path, ...]) -> IoError:
    stop = callbound.over()
    if stop is not None:
        return stop
    shown = ", ".join(str(p) for p in paths)
    return IoError(
        f"Another process kept {shown} locked for too long; nothing was changed, retry.",
        {"errno": "EAGAIN", "path": str(paths[0]) if paths else ""},
    )

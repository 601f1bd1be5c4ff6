"""Acting once per call across processes: the first delivery acts, the others replay it.

A host may deliver one hook call twice (two installs of the hook, a retry), and both
processes may run at once. Each call has a key; :func:`claim` under the directory's lock
(:func:`waymark.store.locks.locked`) either hands the call to this process, or returns the
answer the first delivery recorded with :func:`settle`, waiting while it is still at work.
A claim whose process is gone (killed by the host's timeout, crashed) is taken over, unless
that process had begun a call that must not run twice (:func:`begin`, before it may first
write): its changes may be on disk, so the call gets the answer it left for that case.

One small file per key, named by its hash; the directory keeps the newest :data:`KEEP`
within :data:`MAX_AGE_S`, so it stays bounded however long the workspace is used.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from waymark.store import callbound
from waymark.store.locks import locked
from waymark.store.private import make_private_dir

KEEP = 1000
MAX_AGE_S = 24 * 3600
# A host waits about 10 s for a hook; the second delivery gives up waiting before that.
WAIT_S = 8.0
_POLL_S = 0.02
_SUFFIX = ".call.json"


@dataclass(frozen=True)
class Claim:
    path: Path
    # The first delivery's answer to give again; None: this process acts, then settles.
    replay: str | None = None
    # The first delivery is still at work after WAIT_S: answer nothing, act not.
    busy: bool = False
    # ``replay`` is what a delivery that began acting and then stopped left to answer.
    cut: bool = False


def claim(directory: Path, key: str, *, wait: float = WAIT_S) -> Claim:
    """Take the call ``key``, or get what its first delivery answered."""
    name = hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:32] + _SUFFIX
    path = directory / name
    make_private_dir(directory)
    deadline = callbound.deadline(time.monotonic() + wait)
    while True:
        with locked(path):
            record = _read(path)
            if record is None or _abandoned(record):
                _write(path, {"pid": os.getpid(), "started": time.time()})
                _prune(directory, name)
                return Claim(path)
            if isinstance(record.get("answer"), str):
                return Claim(path, replay=record["answer"])
            if isinstance(record.get("cut"), str) and _owner_gone(record):
                return Claim(path, replay=record["cut"], cut=True)
        if time.monotonic() >= deadline:
            return Claim(path, busy=True)
        time.sleep(_POLL_S)


def begin(claimed: Claim, cut: str) -> None:
    """Note that this delivery starts acting: should it stop before :func:`settle`, the
    others answer ``cut`` instead of running the call again."""
    with locked(claimed.path):
        _write(claimed.path, {"pid": os.getpid(), "started": time.time(), "cut": cut})


def settle(claimed: Claim, answer: str) -> None:
    """Record what this delivery answered, for the others of the same call."""
    with locked(claimed.path):
        _write(claimed.path, {"pid": os.getpid(), "started": time.time(), "answer": answer})


def _read(path: Path) -> dict[str, Any] | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    with os.fdopen(fd, "rb") as f:
        data = f.read()
    try:
        record = json.loads(data)
    except ValueError:
        return {}  # not a record Waymark wrote (it renames whole ones in): nobody's
    return record if isinstance(record, dict) else {}


def _write(path: Path, record: dict[str, Any]) -> None:
    # Written aside and renamed over: a process killed mid-write (a hook server killed as it
    # records its answer) leaves the record it had, never an empty one that reads as
    # abandoned and lets another delivery run the call again. The answer may quote a file's
    # diff, so only the owner reads it.
    aside = path.with_name(path.name + ".new")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
    with os.fdopen(os.open(aside, flags, 0o600), "wb") as f:
        f.write(json.dumps(record, ensure_ascii=False).encode("utf-8"))
    os.replace(aside, path)


def _abandoned(record: dict[str, Any]) -> bool:
    """Whether a record without an answer belongs to no running process that began acting."""
    if isinstance(record.get("answer"), str) or isinstance(record.get("cut"), str):
        return False
    return _owner_gone(record)


def _owner_gone(record: dict[str, Any]) -> bool:
    pid, started = record.get("pid"), record.get("started")
    if not isinstance(pid, int) or not isinstance(started, int | float):
        return True
    if time.time() - started > MAX_AGE_S:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return _zombie(pid)


def _zombie(pid: int) -> bool:
    """Killed but not reaped yet: it acts no more."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except (OSError, IndexError):
        return False


def _prune(directory: Path, keep: str) -> None:
    """Forget calls older than MAX_AGE_S, and all but the newest KEEP.

    Looked at closely (a stat per record) only when the records reach KEEP, or for one call
    in 16 (by its name's hash): with a thousand records a stat each cost every hook call
    two milliseconds.
    """
    if not keep.startswith("0"):
        with contextlib.suppress(OSError):
            if sum(1 for name in os.listdir(directory) if name.endswith(_SUFFIX)) < KEEP:
                return
    entries: list[tuple[float, str]] = []
    with os.scandir(directory) as scan:
        for entry in scan:
            if entry.name.endswith(_SUFFIX + ".new"):
                # Records are written under the directory's lock, held here: one set aside
                # is what a process killed mid-write left.
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
            elif entry.name.endswith(_SUFFIX) and entry.name != keep:
                with contextlib.suppress(OSError):
                    entries.append((entry.stat(follow_symlinks=False).st_mtime, entry.name))
    cutoff = time.time() - MAX_AGE_S
    entries.sort(reverse=True)
    for index, (mtime, name) in enumerate(entries):
        if index >= KEEP - 1 or mtime < cutoff:
            with contextlib.suppress(OSError):
                os.unlink(directory / name)

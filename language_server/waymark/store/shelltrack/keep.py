"""The pre-image cache as every door uses it: the last known bytes of the files git cannot
give back (untracked, dirty and git-ignored ones; every file of a folder without git).

The hooks and ``waymark run`` fill it around each shell command (:mod:`.track`); a resident
process that sees other programs write (the language server's watch) asks it for what a file
held before a change it saw, and asks it to keep more files current. Two calls:

- :func:`ensure`: copy the current bytes of some files, or of every file under a folder,
  within the limits of :mod:`.ignored` (bulky trees, large files and the budget are
  refused, each with its reason); cheap for files copied before and unchanged since (the
  stat index answers without reading them);
- :func:`preimage`: the bytes a file held as last copied, if copied at or before a moment,
  else (a clean file of a git work tree) its blob in git's index.

Both take the history's lock, as every writer of the cache does.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterable
from pathlib import Path

from waymark.store.history import History
from waymark.store.shelltrack import ignored
from waymark.store.shelltrack.changes import policy_refusal
from waymark.store.shelltrack.preimages import Preimages, Unreachable, git_blobs
from waymark.store.shelltrack.scan import GitUnavailable, git_out, git_paths, lstat_signature


def cache_of(history: History) -> Preimages:
    """The workspace's cache (under the history's ``shell/``)."""
    return Preimages(history.dir / "shell")


def ensure(history: History, paths: Iterable[Path], *, copy_seconds: float = 1.0) -> dict[str, str]:
    """Keep the current bytes of ``paths`` (absolute; a directory stands for the files
    under it) in the cache; the files out of reach, each with its reason (see
    ``commands/shellreport.py``). Copying stops after ``copy_seconds``: the rest answer
    ``not_backed_up_yet`` and are copied by a later call."""
    deadline = time.monotonic() + copy_seconds
    limit = min(history.workspace.max_file_size, ignored.FILE_LIMIT)
    refused: dict[str, str] = {}
    with history.lock:
        cache = cache_of(history)
        for path in paths:
            sig = lstat_signature(path)
            if sig is None:
                continue
            name = path.name + ("/" if stat.S_ISDIR(sig[0]) else "")
            found = ignored.expand(path.parent, [name], history.max_bytes // ignored.BUDGET_SHARE)
            refused.update({os.fspath(path.parent / r): ignored.BULKY for r in found.bulky})
            for rel, file_sig in found.files.items():
                key = os.fspath(path.parent / rel)
                why = found.refused.get(rel) or policy_refusal(history, key)
                if why is None:
                    try:
                        cache.back_up(key, file_sig, limit, copy=time.monotonic() < deadline)
                        continue
                    except Unreachable as exc:
                        why = str(exc.args[0])
                refused[key] = why
        cache.save()
    return refused


def preimage(history: History, path: Path, before_ns: int | None = None) -> bytes:
    """What ``path`` (absolute) held as the cache last copied it, if that was at or before
    ``before_ns`` (``time.time_ns()``; None: whenever); else its blob in git's index when git
    tracks it. :class:`Unreachable` (``args[0]`` the reason) when neither is known."""
    key = os.fspath(path)
    with history.lock:
        cache = cache_of(history)
        entry = cache.entry(key)
        if entry is not None and (before_ns is None or entry[2] <= before_ns):
            return cache.load(entry[1])
    return _index_blob(path, history.workspace.max_file_size)


def _index_blob(path: Path, limit: int) -> bytes:
    located = git_paths(path.parent)
    if located is None:
        raise Unreachable("not_backed_up_yet")
    root = located[0]
    try:
        listing = git_out(root, "ls-files", "-s", "-z", "--", os.path.relpath(path, root))
    except GitUnavailable as exc:
        raise Unreachable("not_backed_up_yet") from exc
    meta = listing.split(b"\0")[0].partition(b"\t")[0].split(b" ")
    if len(meta) != 3 or meta[2] != b"0":
        raise Unreachable("not_backed_up_yet")
    blob_id = meta[1].decode()
    blobs, oversized = git_blobs(root, {blob_id}, limit)
    if blob_id in blobs:
        return blobs[blob_id]
    raise Unreachable("too_large" if blob_id in oversized else "unreadable")

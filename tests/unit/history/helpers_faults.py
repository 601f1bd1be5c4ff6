"""Fault scenarios that must run as another user or on a tiny filesystem.

Each scenario runs in a child (forked and setuid, or under ``unshare``) and returns a JSON-safe
dict of what it saw; the test process asserts on it. We are root, so permission faults need a
child that is not.
"""

from __future__ import annotations

import errno
import json
import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from helpers_history import Agent, open_history, tree

from waymark.store.history import workspace_dir

NOBODY = 65534


def run_as_nobody(fn: Callable[[Path], dict[str, Any]], base: Path) -> dict[str, Any]:
    """Run ``fn(base)`` in a forked child with uid/gid 65534; return its dict."""
    os.chown(base, NOBODY, NOBODY)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        os.close(read_end)
        try:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            payload = {"ok": True, "value": fn(base)}
        except BaseException:
            payload = {"ok": False, "error": traceback.format_exc()}
        with os.fdopen(write_end, "w") as out:
            json.dump(payload, out)
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as inp:
        data = inp.read()
    os.waitpid(pid, 0)
    payload = json.loads(data)
    assert payload["ok"], payload.get("error")
    result: dict[str, Any] = payload["value"]
    return result


def unwritable_backups(base: Path) -> dict[str, Any]:
    """Backups fail with EACCES; the edits proceed; rewind never restores stale content."""
    ws = base / "ws"
    ws.mkdir()
    (ws / "ro").mkdir()
    (ws / "a.txt").write_bytes(b"orig\n")
    (ws / "ro" / "c.txt").write_bytes(b"c0\n")
    history = open_history(base / "h", ws, "s")
    agent = Agent(history, ws)
    out: dict[str, Any] = {}
    history.make_snapshot("t0")
    agent.write("ro/c.txt", b"c1\n")
    blobs = workspace_dir(base / "h", [ws]) / "packs"
    _backups_writable(blobs, False)
    # Permissions are checked when a file is opened: a process opening the history now (a
    # CLI call, a hook) finds its backup store unwritable.
    history = open_history(base / "h", ws, "s")
    agent = Agent(history, ws)
    out["first_write"] = agent.write("a.txt", b"new\n")
    out["second_write"] = agent.write("a.txt", b"newer\n")
    out["create"] = agent.write("b.txt", b"b\n")
    out["a_after_edit"] = (ws / "a.txt").read_text()
    out["turns"] = history.turns()
    out["rewind_full"] = history.rewind("t0")
    out["tree_after_full"] = {k: v.decode() for k, v in tree(ws).items()}
    _backups_writable(blobs, True)
    history = open_history(base / "h", ws, "s")
    (ws / "ro").chmod(0o500)
    out["rewind"] = history.rewind("t0")
    out["tree_after"] = {k: v.decode() for k, v in tree(ws).items()}
    (ws / "ro").chmod(0o700)
    # A snapshot whose backups failed heals when the agent writes the still-unchanged file.
    _backups_writable(blobs, False)
    history = open_history(base / "h", ws, "s")
    agent = Agent(history, ws)
    (ws / "heal.txt").write_bytes(b"h0\n")
    agent.write("heal.txt", b"h1\n")
    out["t1"] = history.make_snapshot("t1")
    _backups_writable(blobs, True)
    history = open_history(base / "h", ws, "s")
    agent = Agent(history, ws)
    journal = workspace_dir(base / "h", [ws]) / "journal.jsonl"
    lines_before = journal.read_bytes().count(b"\n")
    out["heal_write"] = agent.write("heal.txt", b"h2\n")
    out["heal_lines"] = journal.read_bytes().count(b"\n") - lines_before
    out["heal_rewind"] = history.rewind("t1")
    out["heal_content"] = (ws / "heal.txt").read_text()
    return out


def _backups_writable(packs: Path, writable: bool) -> None:
    """No segment can be created or appended to (EACCES), or all can again."""
    for segment in packs.iterdir():
        segment.chmod(0o600 if writable else 0o400)
    packs.chmod(0o700 if writable else 0o500)


def disk_full(base: Path) -> dict[str, Any]:
    """Backups and the journal hit ENOSPC on a tiny tmpfs mounted at ``base / 'h'``."""
    ws = base / "ws"
    history = open_history(base / "h", ws, "s")
    agent = Agent(history, ws)
    out: dict[str, Any] = {}
    history.make_snapshot("t0")
    # Larger than a page: appending its backup needs more of the disk, not just the room left
    # in the last page of a segment.
    agent.write("a.txt", b"a1\n" * 4096)
    filler = base / "h" / "filler"
    with open(filler, "wb", buffering=0) as handle:
        try:
            while True:
                handle.write(b"\0" * 4096)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
    out["big_write"] = agent.write("big.txt", b"agent\n")
    out["rewind_full"] = history.rewind("t0")
    out["tree_after_full"] = {k: len(v) for k, v in tree(ws).items()}
    filler.unlink()
    out["rewind"] = history.rewind("t0")
    out["tree_after"] = {k: len(v) for k, v in tree(ws).items()}
    resumed = open_history(base / "h", ws, "s")
    out["resume_warnings"] = resumed.warnings
    out["resume_turns"] = [t["promptId"] for t in resumed.turns()]
    return out


if __name__ == "__main__":
    print(json.dumps(globals()[sys.argv[1]](Path(sys.argv[2]))))

"""Other programs' changes as a turn of their own (what the language server's watch records)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from helpers_history import Agent

from waymark.store.files import digest


def key(path: Path) -> str:
    return os.fspath(path.resolve())


def test_other_programs_changes_rewind_byte_for_byte_and_waymark_writes_stay_out(
    agent: Agent, workspace: Path
) -> None:
    history = agent.history
    history.make_snapshot("t1", "the agent's turn")
    agent.write("mine.txt", b"written by Waymark\n")
    theirs = agent.path("theirs.txt")
    theirs.write_bytes(b"after\n")
    gone = agent.path("gone.bin")
    changes = {
        # What the shell tracker's diff hands over: Waymark's own write is among them.
        key(agent.path("mine.txt")): (None, digest(b"written by Waymark\n")),
        key(theirs): (b"before\r\n", digest(b"after\n")),
        key(gone): (b"\x00\xff old", None),
    }
    files, warnings = history.raw.track_foreign("watch-1", "Changes by other programs", changes, {})
    assert (sorted(files), warnings) == (sorted([key(theirs), key(gone)]), [])
    turns = history.turns()
    assert [(t["promptId"], t["label"], sorted(t["edited"])) for t in turns] == [
        ("t1", "the agent's turn", ["mine.txt"]),
        ("watch-1", "Changes by other programs", ["gone.bin", "theirs.txt"]),
    ]
    result = history.rewind("watch-1")
    assert sorted(result["restored"]) == ["gone.bin", "theirs.txt"], result
    assert theirs.read_bytes() == b"before\r\n"
    assert gone.read_bytes() == b"\x00\xff old"
    assert agent.path("mine.txt").read_bytes() == b"written by Waymark\n"


def test_only_waymark_writes_make_no_turn(agent: Agent) -> None:
    agent.history.make_snapshot("t1")
    agent.write("mine.txt", b"x\n")
    agent.write("deleted.txt", b"y\n")
    agent.write("deleted.txt", None)
    changes = {
        key(agent.path("mine.txt")): (None, digest(b"x\n")),
        key(agent.path("deleted.txt")): (None, None),
    }
    assert agent.history.raw.track_foreign("watch-2", "x", changes, {}) == ([], [])
    assert [t["promptId"] for t in agent.history.turns()] == ["t1"]


WAITER = """
import sys
from pathlib import Path
from waymark.store.history import History, history_workspace
root = Path(sys.argv[1])
history = History.open(root, history_workspace(root, [Path(sys.argv[2])]), session=None)
with history.lock:
    print("had it", flush=True)
"""


def test_the_watch_s_fill_sees_another_process_waiting_for_the_history(
    agent: Agent, workspace: Path, history_root: Path
) -> None:
    lock = agent.history.raw.lock
    with lock:
        going_on = lock.slice(0.0, 3600.0)
        assert going_on()
        waiter = subprocess.Popen(
            [sys.executable, "-c", WAITER, str(history_root), str(workspace)],
            stdout=subprocess.PIPE,
        )
        deadline = time.monotonic() + 60
        while going_on():
            if time.monotonic() > deadline:
                waiter.kill()
                raise AssertionError("the waiting process was never seen")
            time.sleep(0.05)
    try:
        out, _ = waiter.communicate(timeout=60)
    finally:
        waiter.kill()
    assert out == b"had it\n"

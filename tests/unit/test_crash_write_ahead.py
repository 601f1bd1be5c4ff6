"""A Waymark process SIGKILLed between writing a file and recording that write.

The write is recorded ahead of it (store/history/capture.py): whichever side of the write the
kill lands, the file is at its old content or at the new one, and the rewind of the turn
restores the exact bytes of the turn's start instead of reporting a conflict.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

# Runs the real CLI in a process that kills itself the moment its batch of writes landed,
# before anything after the write (recording it, answering) can run.
_KILLED_AFTER_WRITE = """
import os, signal, sys
import waymark.commands.commit as commit
landed = commit.write_batch
def write_then_die(*args):
    landed(*args)
    os.kill(os.getpid(), signal.SIGKILL)
commit.write_batch = write_then_die
from waymark.doors.launch import main
sys.argv = ["waymark", *sys.argv[1:]]
main()
"""


def _waymark(root: Path, *args: str, killed: bool = False) -> subprocess.CompletedProcess[str]:
    head = ["-c", _KILLED_AFTER_WRITE] if killed else ["-m", "waymark"]
    return subprocess.run(
        [sys.executable, *head, *args, "--root", str(root)],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("before", "command"),
    [
        (b"alpha\r\nbeta\r\n", ["replace", "a.txt", "beta", "gamma"]),
        (b"one\ntwo\n", ["sed", "sed -i s/two/TWO/ a.txt"]),
        (None, ["write", "--params", json.dumps({"path": "a.txt", "content": "new\n"})]),
    ],
    ids=["replace", "sed", "create"],
)
# Flush-behind (the default) and fsync-before-returning: a kill costs nothing in either.
@pytest.mark.parametrize("durability", ["", "sync"])
def test_a_write_killed_before_its_record_is_rewound_exactly(
    workspace: Path,
    before: bytes | None,
    command: list[str],
    durability: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WAYMARK_DURABILITY", durability)
    path = workspace / "a.txt"
    if before is not None:
        path.write_bytes(before)
        assert _waymark(workspace, "read", "a.txt").returncode == 0
    assert _waymark(workspace, "snapshot", "t1").returncode == 0
    killed = _waymark(workspace, *command, killed=True)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert path.exists() and path.read_bytes() != before  # the write landed
    rewound = _waymark(workspace, "rewind", "t1", "--json")
    assert rewound.returncode == 0, rewound.stdout + rewound.stderr
    assert json.loads(rewound.stdout).get("conflicts", []) == []
    if before is None:
        assert not path.exists()
    else:
        assert path.read_bytes() == before

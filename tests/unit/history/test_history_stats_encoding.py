"""diffStats counts the lines of a file in the encoding the project declares for it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

TIMEOUT = 60


def waymark(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "waymark", *args],
        cwd=root,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=TIMEOUT,
        env=os.environ.copy(),
    )


def test_diff_stats_counts_a_utf16_file_declared_in_editorconfig(workspace: Path) -> None:
    (workspace / ".editorconfig").write_text("root = true\n[*.txt]\ncharset = utf-16le\n")
    target = workspace / "a.txt"
    # No BOM: only the declaration says this is text.
    target.write_bytes("one\ntwo\nthree\n".encode("utf-16-le"))
    assert waymark(workspace, "snapshot", "t1").returncode == 0
    assert waymark(workspace, "read", "a.txt").returncode == 0
    done = waymark(workspace, "replace", "a.txt", "two", "TWO\nmore")
    assert done.returncode == 0, done.stderr
    assert target.read_bytes() == "one\nTWO\nmore\nthree\n".encode("utf-16-le")
    stats = waymark(workspace, "diff-stats", "t1", "--json")
    assert stats.returncode == 0, stats.stderr
    result = json.loads(stats.stdout)
    assert result["files"] == [
        {"path": "a.txt", "status": "modified", "insertions": 2, "deletions": 1}
    ]
    assert (result["insertions"], result["deletions"]) == (2, 1)
    short = waymark(workspace, "diff-stats", "t1")
    assert short.stdout == "a.txt  modified  +2 −1\n1 file changed, +2 −1 since turn t1\n"


def test_diff_stats_counts_a_utf16_file_created_in_the_turn(workspace: Path) -> None:
    (workspace / ".editorconfig").write_text("root = true\n[*.txt]\ncharset = utf-16le\n")
    assert waymark(workspace, "snapshot", "t1").returncode == 0
    done = waymark(workspace, "write", "b.txt", "--content", "x\ny\nz\n")
    assert done.returncode == 0, done.stderr
    assert (workspace / "b.txt").read_bytes() == "x\ny\nz\n".encode("utf-16-le")
    result = json.loads(waymark(workspace, "diff-stats", "t1", "--json").stdout)
    assert result["files"] == [
        {"path": "b.txt", "status": "created", "insertions": 3, "deletions": 0}
    ]

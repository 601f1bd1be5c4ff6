"""Classes 4 and 11 in the CLI: a bad session id is a clean error; the session file is 0600."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest


def waymark(root: Path, history: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "waymark", *args, "--root", str(root)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "XDG_STATE_HOME": str(history), **env},
    )


@pytest.mark.parametrize("session_id", ["../../escape", "a/b", "x" * 129, ".."])
def test_an_unsafe_session_id_is_a_clean_error(
    workspace: Path, tmp_path: Path, session_id: str
) -> None:
    (workspace / "a.txt").write_bytes(b"one\n")
    state = tmp_path / "state"
    done = waymark(workspace, state, "read", "a.txt", WAYMARK_SESSION=session_id)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert "session id" in done.stderr
    assert not state.exists()


def test_the_session_file_is_private_whatever_the_umask(workspace: Path, tmp_path: Path) -> None:
    (workspace / "a.txt").write_bytes(b"one\n")
    state = tmp_path / "state"
    old = os.umask(0)
    try:
        done = waymark(workspace, state, "read", "a.txt", WAYMARK_SESSION="s1")
    finally:
        os.umask(old)
    assert done.returncode == 0, done.stderr
    found = list(state.rglob("cli-session.json"))
    assert len(found) == 1
    assert stat.S_IMODE(found[0].stat().st_mode) == 0o600

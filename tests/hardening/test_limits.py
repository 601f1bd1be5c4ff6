"""Size limits are checked before a file is read: a huge file costs a stat, never its bytes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.timeout(180)

LIMIT = 20 * 1024 * 1024
# A Python process with Waymark imported stays well under this; reading the file would not.
RSS_BOUND_KB = 150 * 1024


# The child is started by this small launcher, which reports the child's peak RSS: a process
# spawned straight from pytest inherits pytest's own peak in its ru_maxrss (the exec records
# the memory it leaves, which a vfork shares with pytest), so the figure would be pytest's.
_LAUNCH = """
import resource, subprocess, sys
code = subprocess.call(sys.argv[2:])
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
with open(sys.argv[1], "w") as f:
    f.write(str(peak))
sys.exit(code)
"""


def run(
    workspace: Path, args: list[str], stdin: str | None = None, timeout: float = 30
) -> tuple[str, str, int]:
    """(stdout, stderr, peak RSS in KiB) of one ``python -m waymark`` process."""
    out = workspace.parent / "out.txt"
    err = workspace.parent / "err.txt"
    peak = workspace.parent / "peak.txt"
    with out.open("wb") as o, err.open("wb") as e:
        proc = subprocess.Popen(
            [sys.executable, "-c", _LAUNCH, str(peak), sys.executable, "-m", "waymark", *args],
            cwd=workspace,
            stdin=subprocess.PIPE,
            stdout=o,
            stderr=e,
            start_new_session=True,
        )
        assert proc.stdin is not None
        proc.stdin.write((stdin or "").encode())
        proc.stdin.close()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            pytest.fail(f"waymark {args} ran past {timeout} s")
    return out.read_text(), err.read_text(), int(peak.read_text())


def sparse(path: Path, size: int, head: bytes = b"head\n") -> None:
    path.write_bytes(head)
    os.truncate(path, size)


def state_files() -> dict[str, int]:
    state = Path(os.environ["XDG_STATE_HOME"])
    return {
        p.relative_to(state).as_posix(): p.stat().st_size for p in state.rglob("*") if p.is_file()
    }


def test_cli_write_over_a_2gb_file_is_refused_before_reading_it(workspace: Path) -> None:
    big = workspace / "big.log"
    sparse(big, 2 * 1024**3)
    out, err, rss = run(workspace, ["write", "big.log", "--content", "small\n", "--json"])
    result = json.loads(out)
    assert result["error"] == "file_too_large", (result, err)
    assert result["message"] == (
        f"big.log is {2 * 1024**3} bytes, over the {LIMIT}-byte limit; edit a smaller file or "
        "raise maxFileSize."
    )
    assert result["details"] == {"path": "big.log", "size": 2 * 1024**3, "limit": LIMIT}
    assert rss < RSS_BOUND_KB, f"peak RSS {rss} KiB"
    assert big.stat().st_size == 2 * 1024**3
    assert all(size <= LIMIT for size in state_files().values())


def hook(workspace: Path, event: dict[str, Any]) -> tuple[str, str, int]:
    payload = json.dumps({"cwd": str(workspace), "session_id": "s1", **event})
    return run(workspace, ["hook", "claude-code"], stdin=payload)


def test_hook_does_not_back_up_a_file_over_the_limit(workspace: Path) -> None:
    big = workspace / "big.bin"
    size = 300 * 1024 * 1024
    sparse(big, size)
    out, _, _ = hook(workspace, {"hook_event_name": "UserPromptSubmit", "prompt": "go"})
    assert json.loads(out)["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    write = {"tool_name": "Write", "tool_input": {"file_path": str(big), "content": "x"}}
    out, err, rss = hook(workspace, {"hook_event_name": "PreToolUse", **write})
    # No answer: the host's own Write runs as usual.
    assert out == ""
    assert err == (
        f"waymark hook: big.bin is {size} bytes, over the {LIMIT}-byte file size limit: it was "
        "not backed up, so this change cannot be rewound.\n"
    )
    assert rss < RSS_BOUND_KB, f"peak RSS {rss} KiB"
    # The host writes a file still over the limit; its Post reads nothing either.
    with big.open("r+b") as f:
        f.write(b"HEAD\n")
    out, err, rss = hook(workspace, {"hook_event_name": "PostToolUse", **write})
    assert (out, err) == ("", "")
    assert rss < RSS_BOUND_KB, f"peak RSS {rss} KiB"
    assert all(size <= LIMIT for size in state_files().values()), state_files()
    out, _, _ = run(workspace, ["turns", "--json"])
    [turn] = json.loads(out)["turns"]
    assert turn["unreached"] == [{"path": "big.bin", "reason": "too_large"}]
    assert turn["files"] == []


def test_shell_command_over_a_big_file_copies_nothing_of_it(workspace: Path) -> None:
    big = workspace / "big.bin"
    sparse(big, 300 * 1024 * 1024)
    _, err, rss = run(workspace, ["run", "--", "sh", "-c", "printf tail >> big.bin"])
    assert "big.bin (over the file size limit)" in err, err
    assert rss < RSS_BOUND_KB, f"peak RSS {rss} KiB"
    assert all(size <= LIMIT for size in state_files().values()), state_files()

"""A command or a prompt that changes no file leaves no turn to wade through."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers_commands import cli
from helpers_hooks import hook

pytestmark = pytest.mark.timeout(120)


def run(workspace: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "waymark", "run", *argv],
        cwd=workspace,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("argv", [["true"], [sys.executable, "-c", "print(1)"]])
def test_run_of_a_command_that_changes_nothing_records_no_turn(
    workspace: Path, argv: list[str]
) -> None:
    (workspace / "a.txt").write_bytes(b"a\n")
    done = run(workspace, "--", *argv)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ("1\n" if len(argv) > 1 else "")
    assert done.stderr == (
        "waymark: Waymark saw no file changes in the workspace from this command.\n"
        "waymark: nothing to undo; no turn was recorded.\n"
    )
    assert cli(workspace, "turns", "--all")["turns"] == []
    reported = run(workspace, "--json", "--", *argv)
    assert json.loads(reported.stderr)["promptId"] is None
    assert cli(workspace, "turns", "--all")["turns"] == []
    assert (workspace / "a.txt").read_bytes() == b"a\n"


def test_run_that_changes_a_file_still_records_a_rewindable_turn(workspace: Path) -> None:
    (workspace / "a.txt").write_bytes(b"a\n")
    done = run(workspace, "--prompt-id", "r1", "--", "sh", "-c", "echo b > a.txt")
    assert done.returncode == 0, done.stderr
    assert "undo with: waymark rewind r1" in done.stderr
    assert [t["promptId"] for t in cli(workspace, "turns")["turns"]] == ["r1"]
    assert cli(workspace, "rewind", "r1")["ok"] is True
    assert (workspace / "a.txt").read_bytes() == b"a\n"


def test_a_prompt_that_ended_without_a_change_is_not_listed(workspace: Path) -> None:
    (workspace / "a.txt").write_bytes(b"a\n")
    for prompt_id in ("p1", "p2"):
        hook(
            "claude-code",
            workspace,
            {
                "hook_event_name": "UserPromptSubmit",
                "prompt": f"ask {prompt_id}",
                "prompt_id": prompt_id,
            },
        )
    # p1 ended with no change; p2 is the open turn (its changes may still come).
    listed = cli(workspace, "turns")["turns"]
    assert [(t["promptId"], t["changed"]) for t in listed] == [("p2", False)]
    every = cli(workspace, "turns", "--all")["turns"]
    assert [(t["promptId"], t["changed"]) for t in every] == [("p1", False), ("p2", False)]
    # Its id stays a valid rewind target.
    assert cli(workspace, "rewind", "p1")["ok"] is True
    assert (workspace / "a.txt").read_bytes() == b"a\n"

"""``waymark hook gemini-cli`` and ``waymark hook copilot-cli`` as the hosts run them.

The envelopes are the ones Gemini CLI 0.61.0 and Copilot CLI 1.0.102 sent (docs/agents.md):
neither names a tool call, so one event's ``timestamp`` does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from helpers_commands import cli

pytestmark = pytest.mark.timeout(120)

SESSION = "8dca2341-fe36-47d8-b811-60811da25e89"


def hook(
    host: str, workspace: Path, event: dict[str, Any], env: dict[str, str] | None = None
) -> tuple[dict[str, Any] | None, str]:
    """(the JSON answer or None, stderr); the hook always exits 0."""
    envelope = {"session_id": SESSION, "cwd": str(workspace), **event}
    done = subprocess.run(
        [sys.executable, "-m", "waymark", "hook", host],
        input=json.dumps(envelope),
        cwd=workspace,
        # Both hosts name the project for their hooks; a bare temp folder is not trusted.
        env={
            **os.environ,
            "GEMINI_PROJECT_DIR": str(workspace),
            "COPILOT_PROJECT_DIR": str(workspace),
            **(env or {}),
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return (json.loads(done.stdout) if done.stdout else None), done.stderr


def gemini(event: str, stamp: str, **fields: Any) -> dict[str, Any]:
    return {"hook_event_name": event, "timestamp": f"2026-11-26T07:34:{stamp}Z", **fields}


def copilot(event: str, stamp: str, **fields: Any) -> dict[str, Any]:
    return {"hook_event_name": event, "timestamp": f"2026-11-26T07:36:{stamp}Z", **fields}


def _printed(command: str) -> bytes:
    shown = subprocess.run(["sh", "-c", command], capture_output=True, timeout=10)
    assert shown.returncode == 0
    return shown.stdout


def test_gemini_sed_is_applied_once_and_reads_as_the_shell_printing_its_result(
    workspace: Path,
) -> None:
    f = workspace / "f.txt"
    f.write_bytes(b"a\n")
    opened, _ = hook("gemini-cli", workspace, gemini("BeforeAgent", "50.346", prompt="Grow a"))
    assert opened is not None
    context = opened["hookSpecificOutput"]["additionalContext"]
    assert opened == {
        "hookSpecificOutput": {"hookEventName": "BeforeAgent", "additionalContext": context}
    }
    assert context.startswith("Waymark opened turn turn-")
    call = gemini(
        "BeforeTool",
        "52.196",
        tool_name="run_shell_command",
        tool_input={"command": "sed -i 's/a/aa/' f.txt"},
    )
    answer, _ = hook("gemini-cli", workspace, call)
    assert f.read_bytes() == b"aa\n"
    assert answer is not None
    rewritten = answer["hookSpecificOutput"]["tool_input"]["command"]
    assert answer == {
        "hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": {"command": rewritten}}
    }
    assert _printed(rewritten) == (
        b"Waymark applied this sed -i as a tracked edit (waymark_rewind undoes it). "
        b"The file changed like this:\n--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+aa\n"
    )
    # Two installs' hooks get the same event (same timestamp): the second answers as the
    # first did, and the sed is not applied again.
    again, notice = hook("gemini-cli", workspace, call)
    assert again == answer and "already handled" in notice
    assert f.read_bytes() == b"aa\n"
    turn = cli(workspace, "turns")["turns"][0]
    assert (turn["label"], turn["edited"]) == ("Grow a", ["f.txt"])
    assert cli(workspace, "rewind", turn["promptId"])["ok"] is True
    assert f.read_bytes() == b"a\n"


def test_gemini_write_file_and_shell_commands_are_tracked_into_the_turn(workspace: Path) -> None:
    (workspace / "old.txt").write_bytes(b"old\n")
    hook("gemini-cli", workspace, gemini("BeforeAgent", "50.000", prompt="Make files"))
    write = {"tool_name": "write_file", "tool_input": {"file_path": "new.txt", "content": "n\n"}}
    assert hook("gemini-cli", workspace, gemini("BeforeTool", "51.000", **write))[0] is None
    (workspace / "new.txt").write_bytes(b"n\n")
    hook("gemini-cli", workspace, gemini("AfterTool", "51.500", **write))
    shell = {"tool_name": "run_shell_command", "tool_input": {"command": "rm old.txt"}}
    assert hook("gemini-cli", workspace, gemini("BeforeTool", "52.000", **shell))[0] is None
    (workspace / "old.txt").unlink()
    report, _ = hook("gemini-cli", workspace, gemini("AfterTool", "52.500", **shell))
    assert report == {
        "hookSpecificOutput": {
            "hookEventName": "AfterTool",
            "additionalContext": "Waymark tracked this command's file changes (rewindable): "
            "deleted old.txt.",
        }
    }
    turn = cli(workspace, "turns")["turns"][0]
    assert sorted(turn["edited"]) == ["new.txt", "old.txt"]
    rewound = cli(workspace, "rewind", turn["promptId"])
    assert (rewound["restored"], rewound["deleted"]) == (["old.txt"], ["new.txt"])
    assert (workspace / "old.txt").read_bytes() == b"old\n"
    assert not (workspace / "new.txt").exists()


def test_copilot_write_names_its_file_in_path_and_is_tracked(workspace: Path) -> None:
    """Copilot's Write input is {path, file_text}: the create is backed up and rewound."""
    hook("copilot-cli", workspace, copilot("UserPromptSubmit", "20.778", prompt="Create"))
    target = str(workspace / "new.txt")
    write = {"tool_name": "Write", "tool_input": {"path": target, "file_text": "created\n"}}
    _, notice = hook("copilot-cli", workspace, copilot("PreToolUse", "22.534", **write))
    assert "names no file" not in notice
    (workspace / "new.txt").write_bytes(b"created\n")
    hook("copilot-cli", workspace, copilot("PostToolUse", "22.858", **write))
    turn = cli(workspace, "turns")["turns"][0]
    assert turn["edited"] == ["new.txt"]
    assert cli(workspace, "rewind", turn["promptId"])["deleted"] == ["new.txt"]
    assert not (workspace / "new.txt").exists()


def test_copilot_sed_reads_as_a_command_that_succeeded(workspace: Path) -> None:
    f = workspace / "f.txt"
    f.write_bytes(b"a\n")
    command = {"command": "sed -i 's/a/aa/' f.txt", "description": "grow"}
    call = copilot("PreToolUse", "22.203", tool_name="Bash", tool_input=command)
    answer, _ = hook("copilot-cli", workspace, call)
    assert f.read_bytes() == b"aa\n"
    assert answer is not None
    out = answer["hookSpecificOutput"]
    assert (out["permissionDecision"], out["updatedInput"]["description"]) == ("allow", "grow")
    assert _printed(out["updatedInput"]["command"]).endswith(b"-a\n+aa\n")


def test_claude_code_hook_steps_aside_when_copilot_runs_it(workspace: Path) -> None:
    """Copilot runs .claude/settings*.json hooks too: its own Waymark hook acts, not these."""
    f = workspace / "f.txt"
    f.write_bytes(b"a\n")
    call = copilot(
        "PreToolUse", "22.203", tool_name="Bash", tool_input={"command": "sed -i s/a/aa/ f.txt"}
    )
    env = {"COPILOT_CLI": "1", "CLAUDE_PROJECT_DIR": str(workspace)}
    answer, notice = hook("claude-code", workspace, call, env)
    assert answer is None
    assert f.read_bytes() == b"a\n"
    assert notice == (
        "waymark hook claude-code: copilot-cli runs this hook (COPILOT_CLI is set) and tracks "
        "its tools with its own Waymark hook (waymark init copilot-cli); this one steps aside.\n"
    )
    prompt = copilot("UserPromptSubmit", "20.778", prompt="Twice?")
    assert hook("claude-code", workspace, prompt, env)[0] is None
    assert cli(workspace, "turns")["turns"] == []

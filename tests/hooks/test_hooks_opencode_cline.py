"""``waymark hook opencode`` and ``waymark hook cline`` as the hosts run them.

opencode's events come from the plugin ``waymark init opencode`` writes (its own hook
inputs forwarded as JSON); Cline's from the hook files in ``.clinerules/hooks`` (Cline's
payload). The envelopes below are the ones the pinned hosts sent (tests/hosts).
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

SED = "sed -i 's/beta/gamma/' b.txt"
SIMULATED = (
    "Waymark applied this sed -i as a tracked edit (waymark_rewind undoes it). "
    "The file changed like this:\n"
)


def hook(host: str, workspace: Path, event: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """(the JSON answer or None, stderr), run in the workspace as the host runs it."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_PROJECT_DIR")}
    done = subprocess.run(
        [sys.executable, "-m", "waymark", "hook", host],
        input=json.dumps(event),
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return (json.loads(done.stdout) if done.stdout else None), done.stderr


def opencode(workspace: Path, event: str, tool: str = "", **args: Any) -> dict[str, Any]:
    """What the plugin sends: opencode's hook input and output, and its project folder."""
    if event == "chat.message":
        text = args["text"]
        return {
            "hook_event_name": event,
            "cwd": str(workspace),
            "input": {"sessionID": "ses_1", "messageID": "msg_1"},
            "output": {
                "message": {"id": "msg_1", "role": "user", "sessionID": "ses_1"},
                "parts": [{"type": "text", "text": text, "id": "prt_1"}],
            },
        }
    call = {"tool": tool, "sessionID": "ses_1", "callID": args.pop("call", "call_1")}
    if event == "tool.execute.before":
        return {
            "hook_event_name": event,
            "cwd": str(workspace),
            "input": call,
            "output": {"args": args},
        }
    return {"hook_event_name": event, "cwd": str(workspace), "input": {**call, "args": args}}


def cline(
    workspace: Path, event: str, tool: str, call: str = "call_1", **args: Any
) -> dict[str, Any]:
    """Cline's payload for a PreToolUse (tool_call) or PostToolUse (tool_result) hook file."""
    payload: dict[str, Any] = {
        "clineVersion": "",
        "timestamp": "2026-11-26T07:37:46.717Z",
        "taskId": "conv_1795678666331_wmbwixc",
        "workspaceRoots": [str(workspace)],
        "hookName": event,
        "iteration": 2,
    }
    if event == "tool_call":
        payload["tool_call"] = {"id": call, "name": tool, "input": args}
        payload["preToolUse"] = {"toolName": tool, "parameters": json.dumps(args)}
    else:
        payload["tool_result"] = {"id": call, "name": tool, "input": args, "output": "ok"}
        payload["postToolUse"] = {"toolName": tool, "parameters": json.dumps(args)}
    return payload


@pytest.fixture
def project(workspace: Path) -> Path:
    (workspace / ".git").mkdir()
    (workspace / "b.txt").write_bytes(b"alpha\nbeta\n")
    return workspace


def test_opencode_prompt_opens_a_turn_and_sed_reads_as_a_printed_success(project: Path) -> None:
    opened, _ = hook("opencode", project, opencode(project, "chat.message", text="Rename beta"))
    # The plugin adds context to tool outputs only; the prompt's goes unread.
    assert opened is not None and "Waymark opened turn msg_1" in opened["context"]
    answer, _ = hook(
        "opencode",
        project,
        opencode(project, "tool.execute.before", "bash", command=SED, description="d"),
    )
    # The plugin merges "args" into the tool's input: the shell prints Waymark's result.
    assert answer is not None and set(answer) == {"args"}
    assert answer["args"]["description"] == "d"
    printed = subprocess.run(
        ["/bin/sh", "-c", answer["args"]["command"]], capture_output=True, text=True, timeout=10
    ).stdout
    assert printed.startswith(SIMULATED) and "-beta\n+gamma\n" in printed
    assert (project / "b.txt").read_bytes() == b"alpha\ngamma\n"
    # The rewritten call, through the plugin again, is no sed: nothing is applied twice.
    again = opencode(project, "tool.execute.before", "bash", call="c9", **answer["args"])
    assert hook("opencode", project, again)[0] is None
    assert (project / "b.txt").read_bytes() == b"alpha\ngamma\n"
    turns = cli(project, "turns")["turns"]
    assert [(t["promptId"], t["label"]) for t in turns] == [("msg_1", "Rename beta")]
    assert turns[0]["edited"] == ["b.txt"]


def test_opencode_write_tool_is_backed_up_and_the_shell_tracked(project: Path) -> None:
    hook("opencode", project, opencode(project, "chat.message", text="Write"))
    for event in ("tool.execute.before", "tool.execute.after"):
        if event == "tool.execute.after":
            (project / "new.txt").write_bytes(b"created\n")
            (project / "b.txt").write_bytes(b"changed\n")
        hook(
            "opencode",
            project,
            opencode(project, event, "write", call="c1", filePath="new.txt", content="created\n"),
        )
        hook(
            "opencode",
            project,
            opencode(
                project,
                event,
                "edit",
                call="c2",
                filePath=str(project / "b.txt"),
                oldString="a",
                newString="b",
            ),
        )
    hook(
        "opencode",
        project,
        opencode(project, "tool.execute.before", "bash", call="c3", command="rm b.txt"),
    )
    (project / "b.txt").unlink()
    answer, _ = hook(
        "opencode",
        project,
        opencode(project, "tool.execute.after", "bash", call="c3", command="rm b.txt"),
    )
    assert answer is not None and "b.txt" in answer["context"]
    turn = cli(project, "turns")["turns"][-1]
    assert cli(project, "rewind", turn["promptId"])["ok"] is True
    assert (project / "b.txt").read_bytes() == b"alpha\nbeta\n"
    assert not (project / "new.txt").exists()


def test_opencode_untracked_tools_are_left_alone(project: Path) -> None:
    answer, err = hook(
        "opencode",
        project,
        opencode(project, "tool.execute.before", "waymark_waymark_read", path="b.txt"),
    )
    assert (answer, err) == (None, "")


def test_cline_sed_is_overridden_by_a_printf_and_the_task_is_the_turn(project: Path) -> None:
    # The task's first tool call opens its turn, whatever the tool (Waymark's MCP edit here).
    mcp = cline(project, "tool_call", "waymark__waymark_edit", call="call_0", path="b.txt")
    assert hook("cline", project, mcp)[0] is None
    assert len(cli(project, "turns")["turns"]) == 1
    answer, _ = hook("cline", project, cline(project, "tool_call", "run_commands", commands=[SED]))
    # overrideInput replaces the tool's input: one command printing Waymark's result.
    assert answer is not None and set(answer) == {"overrideInput"}
    (command,) = answer["overrideInput"]["commands"]
    printed = subprocess.run(
        ["/bin/sh", "-c", command], capture_output=True, text=True, timeout=10
    ).stdout
    assert printed.startswith(SIMULATED) and "-beta\n+gamma\n" in printed
    assert (project / "b.txt").read_bytes() == b"alpha\ngamma\n"
    again = cline(project, "tool_call", "run_commands", call="call_9", commands=[command])
    assert hook("cline", project, again)[0] is None
    assert (project / "b.txt").read_bytes() == b"alpha\ngamma\n"
    turns = cli(project, "turns")["turns"]
    assert [(t["promptId"], t["label"]) for t in turns] == [
        ("conv_1795678666331_wmbwixc", "cline task conv_1795678666331_wmbwixc")
    ]
    # A second tool call of the same task stays in its turn.
    hook(
        "cline",
        project,
        cline(
            project, "tool_call", "editor", call="call_2", path="b.txt", old_text="a", new_text="b"
        ),
    )
    assert len(cli(project, "turns")["turns"]) == 1


def test_cline_shell_and_editor_changes_rewind_byte_exact(project: Path) -> None:
    hook(
        "cline",
        project,
        cline(project, "tool_call", "editor", call="e1", path="new.txt", new_text="x"),
    )
    (project / "new.txt").write_bytes(b"x")
    hook(
        "cline",
        project,
        cline(project, "tool_result", "editor", call="e1", path="new.txt", new_text="x"),
    )
    command = ["rm b.txt"]
    hook("cline", project, cline(project, "tool_call", "run_commands", call="r1", commands=command))
    (project / "b.txt").unlink()
    answer, _ = hook(
        "cline", project, cline(project, "tool_result", "run_commands", call="r1", commands=command)
    )
    assert answer is not None and "b.txt" in answer["contextModification"]
    turn = cli(project, "turns")["turns"][-1]
    assert sorted(turn["edited"]) == ["b.txt", "new.txt"]
    assert cli(project, "rewind", turn["promptId"])["ok"] is True
    assert (project / "b.txt").read_bytes() == b"alpha\nbeta\n"
    assert not (project / "new.txt").exists()


def test_cline_runs_a_list_of_commands_as_is(project: Path) -> None:
    """Only a lone sed is simulated: with more commands, replacing them would drop the rest."""
    answer, err = hook(
        "cline", project, cline(project, "tool_call", "run_commands", commands=["echo hi", SED])
    )
    assert answer is None, err
    assert (project / "b.txt").read_bytes() == b"alpha\nbeta\n"

"""``waymark hook <host>`` as the hosts run it: a process, the hook JSON on stdin."""

from __future__ import annotations

import json
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from helpers_commands import cli
from helpers_hooks import hook, pre_tool

pytestmark = pytest.mark.timeout(120)


def test_prompt_opens_a_turn_the_terminal_lists(workspace: Path) -> None:
    prompt = (
        "  \nRename alpha to beta everywhere in the parser module, and update the tests too\nmore"
    )
    answer, _ = hook(
        "claude-code", workspace, {"hook_event_name": "UserPromptSubmit", "prompt": prompt}
    )
    assert answer is not None
    context = answer["hookSpecificOutput"]["additionalContext"]
    turns = cli(workspace, "turns")["turns"]
    assert len(turns) == 1
    assert turns[0]["promptId"] in context
    first_line = "Rename alpha to beta everywhere in the parser module, and update the tests too"
    assert turns[0]["label"] == first_line[:59] + "…"


def test_qwen_code_prompt_comes_from_the_transcript_and_opens_one_turn(
    workspace: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "chat.jsonl"
    lines = [
        {
            "uuid": "u1",
            "type": "user",
            "timestamp": datetime.now(UTC).isoformat(),
            "message": {"role": "user", "parts": [{"text": "First"}]},
        },
        {"uuid": "s1", "type": "system", "message": None},
    ]
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines))
    event = {
        "hook_event_name": "UserPromptSubmit",
        "prompt": "",
        "transcript_path": str(transcript),
    }
    # Qwen Code fires this before every model request of one prompt.
    assert hook("qwen-code", workspace, {**event, "prompt": "First"})[0] is not None
    assert hook("qwen-code", workspace, event)[0] is None
    parts = [{"text": "Second\nmore"}, {"text": "context a hook added"}]
    sent = datetime.now(UTC).isoformat()
    second = {"uuid": "u2", "type": "user", "timestamp": sent, "message": {"parts": parts}}
    with transcript.open("a") as f:
        f.write(json.dumps(second) + "\n")
    hook("qwen-code", workspace, event)
    # "First" ended without a change: only --all lists it.
    turns = cli(workspace, "turns", "--all")["turns"]
    assert [t["label"] for t in turns] == ["First", "Second"]
    assert turns[1]["promptId"] == "u2"


@pytest.mark.parametrize(("host", "shell"), [("claude-code", "Bash"), ("codex", "Bash")])
def test_simulated_sed_reads_as_the_output_of_a_command_that_succeeded(
    workspace: Path, host: str, shell: str
) -> None:
    f = workspace / "f.txt"
    f.write_bytes(b"aaa\r\nkeep\n")
    hook(host, workspace, {"hook_event_name": "UserPromptSubmit", "prompt": "p", "prompt_id": "p1"})
    command = "sed -i 's/a/b/g' f.txt"
    answer, _ = hook(host, workspace, pre_tool(shell, command=command, description="d"))
    assert f.read_bytes() == b"bbb\r\nkeep\n"
    assert answer is not None
    out = answer["hookSpecificOutput"]
    assert out["permissionDecision"] == "allow"
    assert out["updatedInput"]["description"] == "d"
    rewritten = out["updatedInput"]["command"]
    assert not rewritten.startswith("sed")
    # What the host's shell runs instead, and the model reads as the command's output.
    shown = subprocess.run(["sh", "-c", rewritten], capture_output=True, timeout=10)
    assert shown.returncode == 0
    assert shown.stdout.startswith(b"Waymark applied this sed -i as a tracked edit")
    assert b"\n-aaa\r\n+bbb\r\n" in shown.stdout
    # The rewritten call, run through the hooks again, is not a sed: nothing applied twice.
    again, _ = hook(host, workspace, pre_tool(shell, command=rewritten))
    assert again is None
    assert f.read_bytes() == b"bbb\r\nkeep\n"
    assert cli(workspace, "rewind", "p1")["ok"] is True
    assert f.read_bytes() == b"aaa\r\nkeep\n"


def test_qwen_code_reads_a_simulated_sed_in_its_refusal_text(workspace: Path) -> None:
    """Qwen Code's PreToolUse takes no new input: the refusal's text is all the model reads."""
    f = workspace / "f.txt"
    f.write_bytes(b"aaa\n")
    answer, _ = hook(
        "qwen-code", workspace, pre_tool("run_shell_command", command="sed -i s/a/b/ f.txt")
    )
    assert f.read_bytes() == b"baa\n"
    assert answer == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "Waymark applied this sed -i as a tracked edit "
            "(waymark_rewind undoes it). The shell did not run it again; do not run it again. "
            "The file changed like this:\n--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-aaa\n+baa\n",
        }
    }


def test_simulated_sed_quotes_quotes_and_bounds_what_it_prints(workspace: Path) -> None:
    f = workspace / "f.txt"
    f.write_bytes(b"".join(b"line %d 'q' $HOME `x` \\n\n" % i for i in range(3000)))
    answer, _ = hook("claude-code", workspace, pre_tool("Bash", command="sed -i 's/q/Q/' f.txt"))
    assert answer is not None
    rewritten = answer["hookSpecificOutput"]["updatedInput"]["command"]
    # Well under the 128 KiB Linux allows one argument, even when every character is a quote.
    assert len(rewritten) < 100_000
    shown = subprocess.run(["sh", "-c", rewritten], capture_output=True, timeout=10)
    assert b"\n-line 0 'q' $HOME `x` \\n\n" in shown.stdout
    assert shown.stdout.endswith(b"(the diff goes on; read the files for the rest)\n")


@pytest.mark.parametrize(
    "command",
    ["sed -n 'p' f.txt", "sed -i 's/a/b/' f.txt | cat", "sed -i 's/a/b/' missing.txt", "ls -l"],
)
def test_what_cannot_be_simulated_runs_as_before(workspace: Path, command: str) -> None:
    f = workspace / "f.txt"
    f.write_bytes(b"aaa\n")
    answer, _ = hook("claude-code", workspace, pre_tool("Bash", command=command))
    assert answer is None
    assert f.read_bytes() == b"aaa\n"


def test_native_edits_are_backed_up_and_rewound(workspace: Path) -> None:
    f = workspace / "src" / "m.py"
    f.parent.mkdir()
    f.write_bytes(b"x = 1\n")
    hook(
        "claude-code",
        workspace,
        {"hook_event_name": "UserPromptSubmit", "prompt": "p", "prompt_id": "p1"},
    )
    assert hook("claude-code", workspace, pre_tool("Edit", file_path=str(f)))[0] is None
    f.write_bytes(b"x = 2\n")  # the host's own Edit tool
    post = {**pre_tool("Edit", file_path=str(f)), "hook_event_name": "PostToolUse"}
    assert hook("claude-code", workspace, post)[0] is None
    new = workspace / "new.txt"
    assert hook("claude-code", workspace, pre_tool("Write", file_path="new.txt"))[0] is None
    new.write_bytes(b"created\n")
    hook(
        "claude-code",
        workspace,
        {**pre_tool("Write", file_path="new.txt"), "hook_event_name": "PostToolUse"},
    )
    result = cli(workspace, "rewind", "p1")
    assert result["ok"] is True, result
    assert f.read_bytes() == b"x = 1\n"
    assert not new.exists()


@pytest.mark.parametrize(
    "event",
    [
        "not json",
        json.dumps(["a list"]),
        json.dumps(pre_tool("Edit", file_path="/etc/passwd")),
        json.dumps(pre_tool("Edit")),
    ],
)
def test_a_hook_that_fails_lets_the_tool_run_and_says_why(workspace: Path, event: str) -> None:
    answer, stderr = hook("claude-code", workspace, event)
    assert answer is None
    assert stderr.startswith("waymark hook: skipped")
    assert list(workspace.iterdir()) == []


def test_codex_apply_patch_backs_up_every_file_it_names(workspace: Path) -> None:
    a, gone = workspace / "a.txt", workspace / "gone.txt"
    a.write_bytes(b"one\n")
    gone.write_bytes(b"old\n")
    hook(
        "codex", workspace, {"hook_event_name": "UserPromptSubmit", "prompt": "p", "turn_id": "t1"}
    )
    patch = (
        "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n"
        "*** Delete File: gone.txt\n*** Add File: new.txt\n+new\n*** End Patch\n"
    )
    call = pre_tool("apply_patch", command=patch)
    assert hook("codex", workspace, {**call, "tool_use_id": "c1"})[0] is None
    a.write_bytes(b"two\n")  # what Codex's apply_patch does
    gone.unlink()
    (workspace / "new.txt").write_bytes(b"new\n")
    post = {**call, "tool_use_id": "c1", "hook_event_name": "PostToolUse"}
    assert hook("codex", workspace, post)[0] is None
    assert cli(workspace, "rewind", "t1")["ok"] is True
    assert a.read_bytes() == b"one\n" and gone.read_bytes() == b"old\n"
    assert not (workspace / "new.txt").exists()

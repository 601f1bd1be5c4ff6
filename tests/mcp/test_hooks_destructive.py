"""Destructive shell commands through every host's hook framing (issue 39): what a command
deletes, truncates or overwrites — git-ignored files included — comes back byte for byte on
a rewind; a command reaching outside the workspace is refused before it runs; a file that
cannot be backed up is named before it runs, in the host's own way.

Each hook call is a ``waymark hook HOST`` process fed the envelope that host sends (the ones
the pinned hosts sent, tests/hosts); the commands really run in bash between Pre and Post.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from helpers_shell import git, put, repo, tree

pytestmark = pytest.mark.timeout(300)

SECRET = b"API_KEY=only-copy\r\n"
IGNORED = {
    ".env.local": SECRET,
    "build/a.o": b"\x7fELF\x00\x01",
    "build/sub/b.o": b"\x00\xff" * 40,
    "x.log": b"log one\n",
    "sub/y.log": b"log two\n",
    "ignored.json": b'{"local": true}\n',
}
RULES = b".env.local\nbuild/\n*.log\nignored.json\nbig.bin\n"
# What each of issue 39's commands destroys, run one after another in one turn.
DESTRUCTIVE = [
    ": > .env.local",
    "mv notes.txt .env.local",
    "rm .env.local",
    "rm -r build/*.o",
    "rm -rf build",
    "find . -name '*.log' -delete",
    "python3 -c \"import os; os.remove('ignored.json')\"",
    "git clean -fdx",
]
OUTSIDE_DENIED = (
    "Waymark blocked this command: it would delete or overwrite {paths}, outside the "
    "workspace, where no rewind can bring it back; ask the user to run it themselves, or to "
    "allow that folder by adding it to WAYMARK_ALLOW_OUTSIDE."
)
BIG = "big.bin (5.0 MiB, ignored by git and over 4 MiB)"
ASKED = (
    f"This command may delete or overwrite {BIG}, which Waymark cannot back up, so no rewind "
    "would bring it back; run it only if the user agrees."
)
STOPPED_ONCE = (
    f"Waymark stopped this command once: it may delete or overwrite {BIG}, which Waymark "
    "cannot back up, so no rewind would bring it back; ask the user, and if they agree run the "
    "same command again."
)


def claude_like(pre: str, post: str, tool: str, ids: bool) -> Callable[..., dict[str, Any]]:
    def event(ws: Path, kind: str, command: str, n: int) -> dict[str, Any]:
        if kind == "prompt":
            return {"hook_event_name": "UserPromptSubmit", "prompt": "go", "prompt_id": "p1"}
        out: dict[str, Any] = {
            "hook_event_name": pre if kind == "pre" else post,
            "tool_name": tool,
            "tool_input": {"command": command},
        }
        if ids:
            out["tool_use_id"] = f"toolu_{n}"
        else:
            out["timestamp"] = f"2026-11-27T07:00:{n % 60:02d}.{0 if kind == 'pre' else 5}Z"
        return out

    return event


def gemini(ws: Path, kind: str, command: str, n: int) -> dict[str, Any]:
    stamp = f"2026-11-27T07:01:{n % 60:02d}.{0 if kind == 'pre' else 5}Z"
    if kind == "prompt":
        return {"hook_event_name": "BeforeAgent", "prompt": "go", "timestamp": "2026-11-27T07Z"}
    name = "BeforeTool" if kind == "pre" else "AfterTool"
    tool_input = {"command": command}
    return {
        "hook_event_name": name,
        "tool_name": "run_shell_command",
        "tool_input": tool_input,
        "timestamp": stamp,
    }


def opencode(ws: Path, kind: str, command: str, n: int) -> dict[str, Any]:
    if kind == "prompt":
        return {
            "hook_event_name": "chat.message",
            "input": {"sessionID": "ses_1", "messageID": "msg_1"},
            "output": {"message": {"id": "msg_1"}, "parts": [{"type": "text", "text": "go"}]},
        }
    call = {"tool": "bash", "sessionID": "ses_1", "callID": f"call_{n}"}
    if kind == "pre":
        return {
            "hook_event_name": "tool.execute.before",
            "input": call,
            "output": {"args": {"command": command}},
        }
    return {
        "hook_event_name": "tool.execute.after",
        "input": {**call, "args": {"command": command}},
    }


def cline(ws: Path, kind: str, command: str, n: int) -> dict[str, Any]:
    payload: dict[str, Any] = {"taskId": "task_1", "workspaceRoots": [str(ws)]}
    item = {"id": f"call_{n}", "name": "run_commands", "input": {"commands": [command]}}
    if kind == "pre":
        return {**payload, "hookName": "tool_call", "tool_call": item}
    return {**payload, "hookName": "tool_result", "tool_result": {**item, "output": "ok"}}


HOSTS: dict[str, Callable[..., dict[str, Any]]] = {
    "claude-code": claude_like("PreToolUse", "PostToolUse", "Bash", True),
    "codex": claude_like("PreToolUse", "PostToolUse", "Bash", True),
    "qwen-code": claude_like("PreToolUse", "PostToolUse", "run_shell_command", True),
    "copilot-cli": claude_like("PreToolUse", "PostToolUse", "Bash", False),
    "gemini-cli": gemini,
    "opencode": opencode,
    "cline": cline,
}


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """The hooks' environment: a home and a temp folder of their own, outside the workspace
    and apart from each other (the temp folder's scratch folders are allowed)."""
    (tmp_path / "home").mkdir()
    (tmp_path / "scratch").mkdir()
    kept = {k: v for k, v in os.environ.items() if not k.endswith("_PROJECT_DIR")}
    return {**kept, "HOME": str(tmp_path / "home"), "TMPDIR": str(tmp_path / "scratch")}


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path)) / "ws"
    repo(root, {".gitignore": RULES, "notes.txt": b"notes\n", "a.txt": b"a\n"})
    put(root, {**IGNORED, "untracked.txt": b"u\n"})
    return root


def hook(host: str, ws: Path, env: dict[str, str], event: dict[str, Any]) -> dict[str, Any] | None:
    envelope = {"session_id": "s1", "cwd": str(ws), **event}
    done = subprocess.run(
        [sys.executable, "-m", "waymark", "hook", host],
        input=json.dumps(envelope),
        cwd=ws,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if done.stdout else None


def waymark(ws: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "waymark", *args],
        cwd=ws,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def refusal(host: str, answer: dict[str, Any] | None, ws: Path) -> str:
    """What the model reads of a refused call (None: the call runs), and that it is one."""
    assert answer is not None, "the command would have run"
    if "hookSpecificOutput" in answer:
        out = answer["hookSpecificOutput"]
        assert out["permissionDecision"] in ("deny", "ask")
        return str(out["permissionDecisionReason"])
    if host == "gemini-cli":
        assert answer["decision"] == "deny"
        return str(answer["reason"])
    if host == "opencode":
        return str(answer["deny"])
    # Cline's refusal would end the task: the command becomes one that says why and fails.
    (command,) = answer["overrideInput"]["commands"]
    done = subprocess.run(["bash", "-c", command], cwd=ws, capture_output=True, text=True)
    assert done.returncode == 1
    return done.stderr.strip()


def newest_turn(ws: Path, env: dict[str, str]) -> str:
    done = waymark(ws, env, "turns", "--json")
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["turns"][-1]["promptId"])


@pytest.mark.parametrize("host", list(HOSTS))
def test_destructive_commands_rewind_byte_for_byte(
    host: str, ws: Path, env: dict[str, str]
) -> None:
    event = HOSTS[host]
    before = tree(ws)
    if host != "cline":  # Cline's first tool call opens the turn
        hook(host, ws, env, event(ws, "prompt", "", 0))
    for n, command in enumerate(DESTRUCTIVE, 1):
        assert hook(host, ws, env, event(ws, "pre", command, n)) is None, command
        subprocess.run(["bash", "-c", command], cwd=ws, env=env, check=True, timeout=60)
        hook(host, ws, env, event(ws, "post", command, n))
    assert not (ws / ".env.local").exists() and not (ws / "build").exists()
    done = waymark(ws, env, "rewind", newest_turn(ws, env), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["conflicts"] == []
    assert tree(ws) == before


@pytest.mark.parametrize("host", list(HOSTS))
def test_commands_reaching_outside_are_refused_before_they_run(
    host: str, ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    other = Path(os.path.realpath(tmp_path)) / "other"
    put(other, {"keep.txt": b"keep\n"})
    (ws / "linked").symlink_to(other)
    event = HOSTS[host]
    cases = {
        "rm -rf ../other": str(other),
        "rm -rf linked/*": str(other / "keep.txt"),
        'rm -rf "$HOME"': env["HOME"],
        "cd build && rm -rf ../../other": str(other),
        "rm -rf /": "/",
    }
    for n, (command, paths) in enumerate(cases.items(), 1):
        answer = hook(host, ws, env, event(ws, "pre", command, n))
        assert refusal(host, answer, ws) == OUTSIDE_DENIED.format(paths=paths), command
    # A scratch folder of the temp directory is no one's project: allowed.
    assert hook(host, ws, env, event(ws, "pre", f"rm -rf {env['TMPDIR']}/x", 9)) is None
    # And a folder the user allows.
    allowed = {**env, "WAYMARK_ALLOW_OUTSIDE": str(other)}
    assert hook(host, ws, allowed, event(ws, "pre", "rm -rf ../other", 10)) is None
    assert (other / "keep.txt").read_bytes() == b"keep\n"


@pytest.mark.parametrize("host", list(HOSTS))
def test_a_file_too_large_to_back_up_is_named_before_the_command(
    host: str, ws: Path, env: dict[str, str]
) -> None:
    (ws / "big.bin").write_bytes(b"\0" * (5 * 1024 * 1024))
    event = HOSTS[host]
    hook(host, ws, env, event(ws, "prompt", "", 0)) if host != "cline" else None
    answer = hook(host, ws, env, event(ws, "pre", "rm big.bin", 1))
    if host == "claude-code":
        assert answer is not None
        assert answer["hookSpecificOutput"]["permissionDecision"] == "ask"
        assert refusal(host, answer, ws) == ASKED
        return
    assert refusal(host, answer, ws) == STOPPED_ONCE
    # The model asked the user, who agreed: the same command runs the second time.
    assert hook(host, ws, env, event(ws, "pre", "rm big.bin", 2)) is None


def test_moving_an_ignored_file_rewinds_to_it(ws: Path, env: dict[str, str]) -> None:
    """``mv ignored.json new.json``: a rewind brings back ignored.json and removes new.json
    (it used to delete new.json, the only copy)."""
    event = HOSTS["claude-code"]
    hook("claude-code", ws, env, event(ws, "prompt", "", 0))
    for kind in ("pre", "post"):
        hook("claude-code", ws, env, event(ws, kind, "mv ignored.json new.json", 1))
        if kind == "pre":
            subprocess.run(["mv", "ignored.json", "new.json"], cwd=ws, check=True)
    done = waymark(ws, env, "rewind", "p1", "--json")
    result = json.loads(done.stdout)
    assert (result["restored"], result["deleted"]) == (["ignored.json"], ["new.json"])
    assert (ws / "ignored.json").read_bytes() == IGNORED["ignored.json"]
    assert not (ws / "new.json").exists()


def test_bulky_trees_are_named_not_copied(ws: Path, env: dict[str, str]) -> None:
    (ws / ".gitignore").write_bytes(RULES + b"node_modules/\n")
    git(ws, "commit", "-qam", "ignore node_modules")
    put(ws, {"node_modules/pkg/index.js": b"module.exports = 1\n"})
    event = HOSTS["claude-code"]
    hook("claude-code", ws, env, event(ws, "prompt", "", 0))
    # A file appearing in one (an install, a build) is no loss: not named.
    grow = "python3 -c \"open('node_modules/pkg/new.js', 'w').write('x')\""
    hook("claude-code", ws, env, event(ws, "pre", grow, 0))
    subprocess.run(["bash", "-c", grow], cwd=ws, check=True)
    answer = hook("claude-code", ws, env, event(ws, "post", grow, 0))
    assert answer is not None
    assert answer["hookSpecificOutput"]["additionalContext"] == (
        "Waymark saw no file changes in the workspace from this command."
    )
    hook("claude-code", ws, env, event(ws, "pre", "rm -rf node_modules .env.local", 1))
    subprocess.run(["rm", "-rf", "node_modules", ".env.local"], cwd=ws, check=True)
    answer = hook("claude-code", ws, env, event(ws, "post", "rm -rf node_modules .env.local", 1))
    assert answer is not None
    assert answer["hookSpecificOutput"]["additionalContext"] == (
        "Waymark tracked this command's file changes (rewindable): deleted .env.local. "
        "Not rewindable (out of reach): node_modules (a bulky or regenerable tree, never "
        "backed up)."
    )


def test_waymark_run_rewinds_refuses_and_names(
    ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    before = tree(ws)
    for command in DESTRUCTIVE:
        done = waymark(ws, env, "run", "--prompt-id", "r1", "--", "bash", "-c", command)
        assert done.returncode == 0, done.stderr
    assert waymark(ws, env, "rewind", "r1", "--json").returncode == 0
    assert tree(ws) == before

    put(Path(os.path.realpath(tmp_path)) / "other", {"keep.txt": b"keep\n"})
    done = waymark(ws, env, "run", "--", "rm", "-rf", "../other")
    assert done.returncode == 126
    assert (
        done.stderr
        == "waymark run: "
        + OUTSIDE_DENIED.format(paths=os.path.realpath(tmp_path / "other")).replace(
            "by adding it to WAYMARK_ALLOW_OUTSIDE", "with --allow-outside FOLDER"
        )
        + "\n"
    )
    assert (tmp_path / "other/keep.txt").exists()

    (ws / "big.bin").write_bytes(b"\0" * (5 * 1024 * 1024))
    done = waymark(ws, env, "run", "--", "rm", "big.bin")
    assert done.returncode == 126
    assert done.stderr == (
        f"waymark run: This command may delete or overwrite {BIG}, which Waymark cannot back "
        "up, so no rewind would bring it back; run it again with --allow-unsaved to go ahead.\n"
    )
    assert (ws / "big.bin").exists()
    done = waymark(ws, env, "run", "--allow-unsaved", "--", "rm", "big.bin")
    assert done.returncode == 0 and not (ws / "big.bin").exists()


def test_removing_the_repository_itself_is_asked_about(ws: Path, env: dict[str, str]) -> None:
    """A clean file's pre-image is its blob in ``.git``: a command removing ``.git`` takes
    every such pre-image with it."""
    event = HOSTS["claude-code"]
    hook("claude-code", ws, env, event(ws, "prompt", "", 0))
    for n, command in enumerate(["rm -rf .git", "cd .. && rm -rf ws"], 1):
        answer = hook("claude-code", ws, env, event(ws, "pre", command, n))
        assert refusal("claude-code", answer, ws) == (
            "This command may delete or overwrite .git (a folder, the repository's own .git, "
            "which rewinds read from), which Waymark cannot back up, so no rewind would bring "
            "it back; run it only if the user agrees."
        ), command

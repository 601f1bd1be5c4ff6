"""A hook runs around every tool call of its host: it imports only what its event needs.

Each event is answered by a real ``waymark hook claude-code`` process (``python -m waymark``,
or the installed ``waymark`` a host runs) run with ``-X importtime``, whose report names every
module the process imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from helpers_hook_server import stop_servers, wait_server

pytestmark = pytest.mark.timeout(120)

# Nobody's hook call needs these: the servers' SDKs, the params converter, the patch parser,
# the encoding detector (only a file that is not UTF-8 loads it).
NEVER = ("mcp", "pygls", "lsprotocol", "cattrs", "unidiff", "charset_normalizer")
SED = "waymark.engine.sed"
# What no prompt and no non-sed shell call uses: rewind and diff stats (with the diff engine
# and the thread pool behind them), attrs, logging (for warnings hardly ever logged), and
# secrets (issue 33: each costs every hook call its import).
LAZY = (
    "attr",
    "attrs",
    "concurrent.futures",
    "difflib",
    "logging",
    "platform",
    "secrets",
    "waymark.engine.diff",
    "waymark.store.history.rewind",
    "waymark.store.history.stats",
)


# The command ``waymark init`` writes (``waymark`` on PATH) is this install's executable.
INSTALLED = [str(Path(sys.executable).parent / "waymark")]


def imported(
    workspace: Path,
    event: dict[str, Any],
    env: dict[str, str] | None = None,
    command: list[str] | None = None,
) -> set[str]:
    done = subprocess.run(
        [*(command or [sys.executable, "-m", "waymark"]), "hook", "claude-code"],
        input=json.dumps({"cwd": str(workspace), "session_id": "s", **event}),
        cwd=workspace,
        env={
            **(env or os.environ),
            "CLAUDE_PROJECT_DIR": str(workspace),
            "PYTHONPROFILEIMPORTTIME": "1",
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("import time:")]
    assert lines, done.stderr
    return {line.rsplit("|", 1)[1].strip() for line in lines[1:]}


def heavy(modules: set[str], also: tuple[str, ...] = ()) -> list[str]:
    tops = NEVER + also
    return sorted(
        m for m in modules if m.split(".")[0] in tops or m == SED or m.startswith(SED + ".")
    )


@pytest.fixture
def project(workspace: Path) -> Path:
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True, timeout=30)
    (workspace / "a.txt").write_bytes(b"one\n")
    return workspace


def test_a_prompt_imports_neither_servers_nor_sed_nor_the_shell_parser(project: Path) -> None:
    modules = imported(
        project, {"hook_event_name": "UserPromptSubmit", "prompt": "go", "prompt_id": "p1"}
    )
    assert heavy(modules, also=("tree_sitter", "tree_sitter_bash")) == []
    assert sorted(modules & {*LAZY, "random", "shutil", "waymark.store.shelltrack.track"}) == []


@pytest.mark.parametrize("event", ["PreToolUse", "PostToolUse"])
def test_a_non_sed_shell_call_imports_neither_servers_nor_sed(project: Path, event: str) -> None:
    call = {"tool_name": "Bash", "tool_input": {"command": "echo x >> a.txt"}, "tool_use_id": "t1"}
    if event == "PostToolUse":
        imported(project, {"hook_event_name": "PreToolUse", **call})
    modules = imported(project, {"hook_event_name": event, **call})
    assert heavy(modules) == []
    assert sorted(modules & set(LAZY)) == []


def test_an_untracked_tool_imports_no_command_at_all(project: Path) -> None:
    modules = imported(
        project,
        {"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": {"file_path": "a"}},
    )
    assert sorted(m for m in modules if m.startswith("waymark.commands")) == []


def test_a_call_the_resident_server_answers_imports_only_the_relay(project: Path) -> None:
    """With the hook server up, the hook process is a relay: interpreter start, the relay and
    where state lives; everything else runs in the server."""
    env = {k: v for k, v in os.environ.items() if k != "WAYMARK_HOOK_SERVER"}
    state = Path(env["XDG_STATE_HOME"])
    prompt = {"hook_event_name": "UserPromptSubmit", "prompt": "go", "prompt_id": "p1"}
    try:
        imported(project, prompt, env)  # starts the server, answered in-process
        wait_server(state)
        call = {"tool_name": "Bash", "tool_input": {"command": "echo x >> a.txt"}}
        modules = imported(
            project, {"hook_event_name": "PreToolUse", "tool_use_id": "t", **call}, env
        )
    finally:
        stop_servers(state)
    ours = sorted(m for m in modules if m.split(".")[0] == "waymark")
    assert ours == [
        "waymark",
        "waymark.doors",
        "waymark.doors.hook_relay",
        "waymark.doors.launch",
        "waymark.store",
        "waymark.store.state_home",
    ]
    assert sorted(m for m in modules if m in ("json", "pathlib", "dataclasses", "socket")) == []


def test_the_installed_command_a_host_runs_imports_nothing_before_the_relay(project: Path) -> None:
    """The ``waymark`` a host runs adds to the interpreter's own start only the relay: no
    wrapper's imports (pip's console-script wrapper imports ``re`` before Waymark runs)."""
    env = {k: v for k, v in os.environ.items() if k != "WAYMARK_HOOK_SERVER"}
    state = Path(env["XDG_STATE_HOME"])
    prompt = {"hook_event_name": "UserPromptSubmit", "prompt": "go", "prompt_id": "p1"}
    bare = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "pass"],
        capture_output=True,
        text=True,
        timeout=60,
    ).stderr.splitlines()[1:]
    interpreter = {line.rsplit("|", 1)[1].strip() for line in bare}
    try:
        imported(project, prompt, env, INSTALLED)  # starts the server, answered in-process
        wait_server(state)
        modules = imported(project, {**prompt, "prompt_id": "p2"}, env, INSTALLED)
    finally:
        stop_servers(state)
    added = sorted(m for m in modules - interpreter if m.split(".")[0] != "waymark")
    assert added == ["__future__", "_socket", "zlib"]

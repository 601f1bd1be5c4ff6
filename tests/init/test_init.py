"""``waymark init <host>``: merges into user configs, idempotent; ``--print`` writes nothing."""

from __future__ import annotations

import json
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

from helpers_commands import file_tree as tree
from helpers_commands import init

pytestmark = pytest.mark.timeout(120)


def test_claude_code_merges_and_keeps_the_users_entries(workspace: Path) -> None:
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"other": {"command": "x"}}}))
    (workspace / ".claude").mkdir()
    user_hook = {"matcher": "Bash", "hooks": [{"type": "command", "command": "audit"}]}
    shared = json.dumps({"model": "m", "hooks": {"PreToolUse": [user_hook]}})
    (workspace / ".claude" / "settings.json").write_text(shared)
    (workspace / ".claude" / "settings.local.json").write_text(json.dumps({"mine": 1}))
    assert init(workspace, "claude-code").returncode == 0
    mcp = json.loads((workspace / ".mcp.json").read_text())
    assert mcp["mcpServers"]["other"] == {"command": "x"}
    assert mcp["mcpServers"]["waymark"]["args"][-1] == "mcp"
    # The team's settings stay byte for byte; Waymark's go to the uncommitted file.
    assert (workspace / ".claude" / "settings.json").read_text() == shared
    settings = json.loads((workspace / ".claude" / "settings.local.json").read_text())
    assert settings["mine"] == 1
    ours = settings["hooks"]["PreToolUse"][0]
    assert ours["matcher"] == "Bash|Edit|Write|MultiEdit|NotebookEdit"
    assert ours["hooks"][0]["command"].endswith(
        "then waymark hook claude-code; else echo 'waymark: not installed here, so this hook "
        "does nothing (to track edits, install it as the Install section of the Waymark README "
        "says)' >&2; fi"
    )
    assert list(settings["hooks"]) == [
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
    ]
    assert settings["permissions"]["allow"] == ["mcp__waymark"]
    assert settings["enabledMcpjsonServers"] == ["waymark"]


def _events(hooks: dict[str, Any]) -> dict[str, list[str]]:
    """Each event's hook commands."""
    return {
        event: [h["command"] for entry in entries for h in entry["hooks"]]
        for event, entries in hooks["hooks"].items()
    }


OTHER_INSTALL = "/opt/venv/bin/python -m waymark hook {}"


@pytest.mark.parametrize(
    ("host", "path"),
    [
        ("claude-code", ".claude/settings.local.json"),
        ("claude-code", ".claude/settings.json"),
        ("qwen-code", ".qwen/settings.json"),
        ("codex", ".codex/hooks.json"),
    ],
)
def test_init_from_another_install_leaves_one_waymark_hook_per_event(
    workspace: Path, host: str, path: str
) -> None:
    """A teammate's committed hooks (another interpreter path) are taken over, not doubled."""
    config = workspace / path
    config.parent.mkdir()
    user = {"type": "command", "command": "audit"}
    theirs = {"type": "command", "command": OTHER_INSTALL.format(host), "timeout": 5}
    config.write_text(
        json.dumps(
            {
                "hooks": {
                    "UserPromptSubmit": [{"hooks": [user, theirs]}],
                    "PreToolUse": [{"matcher": "x", "hooks": [theirs]}, {"hooks": [theirs]}],
                }
            }
        )
    )
    assert init(workspace, host).returncode == 0
    found = {
        str(p.relative_to(workspace)): _events(json.loads(p.read_text()))
        for p in (workspace / path).parent.glob("*.json")
        if "hooks" in json.loads(p.read_text())
    }
    assert list(found) == [path], found  # one file holds Waymark's hooks
    events = found[path]
    assert events["UserPromptSubmit"][0] == "audit"
    for event, commands in events.items():
        waymark = [c for c in commands if f"hook {host}" in c]
        assert len(waymark) == 1, (event, commands)
        assert "/opt/venv" not in waymark[0]
    again = tree(workspace)
    assert init(workspace, host).returncode == 0
    assert tree(workspace) == again


@pytest.mark.parametrize("host", ["claude-code", "qwen-code", "codex"])
def test_init_is_idempotent_and_print_writes_nothing(workspace: Path, host: str) -> None:
    shown = init(workspace, host, "--print")
    assert shown.returncode == 0 and "waymark" in shown.stdout
    assert tree(workspace) == {}
    assert init(workspace, host).returncode == 0
    first = tree(workspace)
    assert first
    again = init(workspace, host)
    assert again.returncode == 0 and "unchanged" in again.stdout
    assert tree(workspace) == first


def test_qwen_code_registers_a_trusted_server_and_hooks(workspace: Path) -> None:
    assert init(workspace, "qwen-code").returncode == 0
    settings = json.loads((workspace / ".qwen" / "settings.json").read_text())
    assert settings["mcpServers"]["waymark"]["trust"] is True
    pre = settings["hooks"]["PreToolUse"][0]
    assert pre["matcher"] == "^run_shell_command$|^(edit|write_file)$"
    assert "then waymark hook qwen-code; else echo" in pre["hooks"][0]["command"]
    assert pre["hooks"][0]["timeout"] == 10_000  # Qwen Code counts milliseconds


def test_codex_appends_a_table_and_keeps_the_users_toml(workspace: Path) -> None:
    (workspace / ".codex").mkdir()
    config = workspace / ".codex" / "config.toml"
    config.write_text('# mine\nmodel = "m"\n\n[mcp_servers.other]\ncommand = "x"\n')
    assert init(workspace, "codex").returncode == 0
    text = config.read_text()
    assert text.startswith('# mine\nmodel = "m"\n')
    parsed = tomllib.loads(text)
    assert parsed["mcp_servers"]["other"] == {"command": "x"}
    assert parsed["mcp_servers"]["waymark"]["args"][-1] == "mcp"
    assert parsed["mcp_servers"]["waymark"]["required"] is True
    # Codex hands servers a clean environment: the history's location is passed on.
    assert parsed["mcp_servers"]["waymark"]["env_vars"] == ["XDG_STATE_HOME"]
    hooks = json.loads((workspace / ".codex" / "hooks.json").read_text())["hooks"]
    assert list(hooks) == ["UserPromptSubmit", "PreToolUse", "PostToolUse"]
    assert hooks["PreToolUse"][0]["matcher"] == "^Bash$|^apply_patch$"
    assert "then waymark hook codex; else" in hooks["PreToolUse"][0]["hooks"][0]["command"]


def test_a_committed_hook_steps_aside_where_waymark_is_missing(workspace: Path) -> None:
    assert init(workspace, "claude-code").returncode == 0
    settings = json.loads((workspace / ".claude" / "settings.local.json").read_text())
    command = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    # A teammate's machine: no waymark on PATH.
    done = subprocess.run(
        ["/bin/sh", "-c", command],
        input="{}",
        env={"PATH": "/nonexistent"},
        capture_output=True,
        text=True,
        timeout=10,
    )
    assert (done.returncode, done.stdout) == (0, "")
    assert done.stderr == (
        "waymark: not installed here, so this hook does nothing "
        "(to track edits, install it as the Install section of the Waymark README says)\n"
    )


def test_a_broken_config_is_reported_and_left_alone(workspace: Path) -> None:
    (workspace / ".mcp.json").write_text("{not json")
    done = init(workspace, "claude-code")
    assert done.returncode == 1
    assert "is not valid JSON" in done.stderr
    assert tree(workspace) == {".mcp.json": b"{not json"}

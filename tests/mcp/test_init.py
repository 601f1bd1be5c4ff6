"""``waymark init <host>``: merges into user configs, idempotent; ``--print`` writes nothing."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(120)


def init(workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "waymark", "init", *args],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=60,
    )


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_claude_code_merges_and_keeps_the_users_entries(workspace: Path) -> None:
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"other": {"command": "x"}}}))
    (workspace / ".claude").mkdir()
    user_hook = {"matcher": "Bash", "hooks": [{"type": "command", "command": "audit"}]}
    (workspace / ".claude" / "settings.json").write_text(
        json.dumps({"model": "m", "hooks": {"PreToolUse": [user_hook]}})
    )
    assert init(workspace, "claude-code").returncode == 0
    mcp = json.loads((workspace / ".mcp.json").read_text())
    assert mcp["mcpServers"]["other"] == {"command": "x"}
    assert mcp["mcpServers"]["waymark"]["args"][-1] == "mcp"
    settings = json.loads((workspace / ".claude" / "settings.json").read_text())
    assert settings["model"] == "m"
    assert settings["hooks"]["PreToolUse"][0] == user_hook
    ours = settings["hooks"]["PreToolUse"][1]
    assert ours["matcher"] == "Bash|Edit|Write|MultiEdit|NotebookEdit"
    assert ours["hooks"][0]["command"].endswith("hook claude-code")
    assert settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"].endswith(
        "hook claude-code"
    )
    assert settings["permissions"]["allow"] == ["mcp__waymark"]
    assert settings["enabledMcpjsonServers"] == ["waymark"]


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


def test_a_broken_config_is_reported_and_left_alone(workspace: Path) -> None:
    (workspace / ".mcp.json").write_text("{not json")
    done = init(workspace, "claude-code")
    assert done.returncode == 1
    assert "is not valid JSON" in done.stderr
    assert tree(workspace) == {".mcp.json": b"{not json"}

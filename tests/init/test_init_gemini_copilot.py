"""``waymark init gemini-cli`` and ``waymark init copilot-cli``: configs a team can commit."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from helpers_commands import file_tree as tree
from helpers_commands import init

pytestmark = pytest.mark.timeout(120)

OTHER_INSTALL = "/opt/venv/bin/python -m waymark hook {}"
MISSING = (
    "waymark: not installed here, so this hook does nothing "
    "(to track edits, install it as the Install section of the Waymark README says)\n"
)


def commands(config: dict[str, Any]) -> dict[str, list[str]]:
    return {
        event: [h["command"] for entry in entries for h in entry["hooks"]]
        for event, entries in config["hooks"].items()
    }


def test_gemini_cli_registers_a_trusted_server_and_hooks_in_its_settings(
    workspace: Path,
) -> None:
    (workspace / ".gemini").mkdir()
    settings_path = workspace / ".gemini" / "settings.json"
    user = {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "audit"}]}
    theirs = {"type": "command", "command": OTHER_INSTALL.format("gemini-cli"), "timeout": 5}
    settings_path.write_text(
        json.dumps(
            {
                "ui": {"theme": "x"},
                "hooks": {
                    "BeforeTool": [user, {"hooks": [theirs]}],
                    "AfterTool": [{"hooks": [theirs]}],
                },
            }
        )
    )
    done = init(workspace, "gemini-cli")
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        f"wrote {settings_path}\nGemini CLI runs a project's hooks and MCP servers only in a "
        f"trusted folder: trust {workspace} when gemini asks (or with /permissions); it then "
        "warns at each start that the project has hooks.\n"
    )
    settings = json.loads(settings_path.read_text())
    assert settings["ui"] == {"theme": "x"}
    assert settings["mcpServers"]["waymark"]["trust"] is True
    assert settings["mcpServers"]["waymark"]["args"][-1] == "mcp"
    events = commands(settings)
    assert list(events) == ["BeforeTool", "AfterTool", "BeforeAgent"]
    assert events["BeforeTool"][0] == "audit"
    for event, hooks in events.items():
        ours = [c for c in hooks if "hook gemini-cli" in c]
        assert len(ours) == 1 and "/opt/venv" not in ours[0], (event, hooks)
    ours_entry = settings["hooks"]["BeforeTool"][1]
    # Gemini's matchers are unanchored regexes, its timeouts milliseconds.
    assert ours_entry["matcher"] == "^run_shell_command$|^(replace|write_file)$"
    assert ours_entry["hooks"][0]["timeout"] == 10_000
    assert "matcher" not in settings["hooks"]["BeforeAgent"][0]
    written = tree(workspace)
    again = init(workspace, "gemini-cli")
    assert again.returncode == 0 and again.stdout.startswith(f"unchanged {settings_path}\n")
    assert tree(workspace) == written


def test_copilot_cli_hooks_go_to_its_own_file_and_the_server_to_mcp_json(
    workspace: Path,
) -> None:
    assert init(workspace, "claude-code").returncode == 0
    (workspace / ".github" / "hooks").mkdir(parents=True)
    hooks_path = workspace / ".github" / "hooks" / "waymark.json"
    theirs = {"type": "command", "command": OTHER_INSTALL.format("copilot-cli")}
    hooks_path.write_text(
        json.dumps({"version": 1, "hooks": {"PreToolUse": [{"hooks": [theirs]}]}})
    )
    done = init(workspace, "copilot-cli")
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        f"unchanged {workspace / '.mcp.json'}\nwrote {hooks_path}\nGitHub Copilot CLI: trust "
        f"{workspace} when copilot asks at its first start (in -p mode pass --trust-folder); it "
        "reads the server from .mcp.json and the hooks from .github/hooks/waymark.json. It also "
        "runs Claude Code's hooks, which step aside under Copilot.\n"
    )
    # One server for both hosts.
    assert list(json.loads((workspace / ".mcp.json").read_text())["mcpServers"]) == ["waymark"]
    config = json.loads(hooks_path.read_text())
    assert config["version"] == 1
    events = commands(config)
    assert list(events) == ["PreToolUse", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure"]
    for event, hooks in events.items():
        assert len(hooks) == 1 and "then waymark hook copilot-cli; else" in hooks[0], event
    pre = config["hooks"]["PreToolUse"][0]
    assert (pre["matcher"], pre["hooks"][0]["timeout"]) == ("^Bash$|^(Edit|Write)$", 10)
    written = tree(workspace)
    assert init(workspace, "copilot-cli").returncode == 0
    assert tree(workspace) == written


def test_copilot_cli_hook_file_of_another_version_is_refused(workspace: Path) -> None:
    (workspace / ".github" / "hooks").mkdir(parents=True)
    hooks_path = workspace / ".github" / "hooks" / "waymark.json"
    hooks_path.write_text('{"version": 2, "hooks": {}}')
    done = init(workspace, "copilot-cli")
    assert done.returncode == 1
    assert done.stderr == (
        f'waymark init: {hooks_path}: "version" is 2, not 1; fix it and run init again.\n'
    )
    assert tree(workspace) == {".github/hooks/waymark.json": b'{"version": 2, "hooks": {}}'}


@pytest.mark.parametrize(
    ("host", "path", "event"),
    [
        ("gemini-cli", ".gemini/settings.json", "BeforeTool"),
        ("copilot-cli", ".github/hooks/waymark.json", "PreToolUse"),
    ],
)
def test_a_committed_hook_steps_aside_where_waymark_is_missing(
    workspace: Path, host: str, path: str, event: str
) -> None:
    assert init(workspace, host).returncode == 0
    command = json.loads((workspace / path).read_text())["hooks"][event][0]["hooks"][0]["command"]
    done = subprocess.run(
        ["/bin/sh", "-c", command],
        input="{}",
        env={"PATH": "/nonexistent"},
        capture_output=True,
        text=True,
        timeout=10,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", MISSING)

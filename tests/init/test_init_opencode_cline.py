"""``waymark init opencode`` and ``waymark init cline``: files a team can commit."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from helpers_commands import file_tree as tree
from helpers_commands import init as run_init

pytestmark = pytest.mark.timeout(120)

NOTICE = (
    "waymark: not installed here, so this hook does nothing "
    "(to track edits, install it as the Install section of the Waymark README says)\n"
)


def init(workspace: Path, *args: str, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CLINE_MCP_SETTINGS_PATH"}
    if home is not None:
        env["HOME"] = str(home)
    return run_init(workspace, *args, env=env)


@pytest.mark.parametrize("host", ["opencode", "cline"])
def test_init_is_idempotent_and_print_writes_nothing(workspace: Path, host: str) -> None:
    shown = init(workspace, host, "--print")
    assert shown.returncode == 0 and f"hook {host}" in shown.stdout
    assert tree(workspace) == {}
    assert init(workspace, host).returncode == 0
    first = tree(workspace)
    again = init(workspace, host)
    assert again.returncode == 0 and "wrote" not in again.stdout
    assert tree(workspace) == first


def test_opencode_merges_its_server_and_writes_the_plugin(workspace: Path) -> None:
    mine = {"model": "x/y", "mcp": {"other": {"type": "local", "command": ["o"]}}}
    (workspace / "opencode.json").write_text(json.dumps(mine))
    done = init(workspace, "opencode")
    assert done.returncode == 0, done.stderr
    config = json.loads((workspace / "opencode.json").read_text())
    assert config["model"] == "x/y" and config["mcp"]["other"] == mine["mcp"]["other"]
    server = config["mcp"]["waymark"]
    assert (server["type"], server["command"][-1], server["enabled"]) == ("local", "mcp", True)
    plugin = (workspace / ".opencode" / "plugin" / "waymark.js").read_text()
    assert 'const TOOLS = ["bash", "edit", "write"];' in plugin
    assert "then waymark hook opencode; else echo" in plugin and "@HOOK@" not in plugin
    assert "npm_config_offline=true" in done.stdout  # what the user must still know


def test_init_from_another_install_leaves_one_waymark_entry(workspace: Path) -> None:
    """A teammate's committed files (another interpreter) are taken over, not doubled."""
    assert init(workspace, "opencode").returncode == 0
    assert init(workspace, "cline").returncode == 0
    other = "/opt/venv/bin/python -m waymark hook cline"
    for name in ("PreToolUse", "PostToolUse"):
        (workspace / ".clinerules" / "hooks" / name).write_text(f"#!/bin/sh\n{other}\n")
    plugin = workspace / ".opencode" / "plugin" / "waymark.js"
    plugin.write_text(plugin.read_text().replace("then waymark hook", "then /opt/w hook"))
    assert init(workspace, "opencode").returncode == 0
    assert init(workspace, "cline").returncode == 0
    assert sorted(os.listdir(workspace / ".clinerules" / "hooks")) == ["PostToolUse", "PreToolUse"]
    for name in ("PreToolUse", "PostToolUse"):
        hook = workspace / ".clinerules" / "hooks" / name
        assert "/opt/venv" not in hook.read_text() and "waymark hook cline" in hook.read_text()
        assert stat.S_IMODE(hook.stat().st_mode) == 0o755
    assert "/opt/w" not in plugin.read_text()
    assert os.listdir(workspace / ".opencode" / "plugin") == ["waymark.js"]


def test_cline_keeps_a_users_own_hook_and_says_where_it_can_go(workspace: Path) -> None:
    hooks = workspace / ".clinerules" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "PreToolUse").write_text("#!/bin/sh\naudit\n")
    done = init(workspace, "cline")
    assert done.returncode == 1
    assert done.stderr == (
        f"waymark init: {hooks / 'PreToolUse'} is a hook of yours; Cline also runs "
        "PreToolUse.sh or PreToolUse.py beside it: rename yours to one of those and run init "
        "again.\n"
    )
    assert tree(workspace) == {".clinerules/hooks/PreToolUse": b"#!/bin/sh\naudit\n"}


def test_cline_server_is_per_user_and_written_only_with_user(
    workspace: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    settings = home / ".cline" / "data" / "settings" / "cline_mcp_settings.json"
    done = init(workspace, "cline", home=home)
    assert done.returncode == 0
    assert not settings.exists()
    assert f"Cline reads MCP servers only from {settings}" in done.stdout
    assert "waymark init cline --user" in done.stdout
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"mcpServers": {"other": {"command": "o"}}}))
    done = init(workspace, "cline", "--user", home=home)
    assert done.returncode == 0, done.stderr
    assert f"wrote {settings}" in done.stdout
    servers = json.loads(settings.read_text())["mcpServers"]
    assert servers["other"] == {"command": "o"}
    ours = servers["waymark"]
    assert ours["args"][-3:] == ["mcp", "--workspace", str(workspace)]
    assert (ours["cwd"], ours["timeout"], ours["disabled"]) == (str(workspace), 30, False)
    assert f"unchanged {settings}" in init(workspace, "cline", "--user", home=home).stdout


def test_user_is_refused_where_the_host_reads_the_project(workspace: Path) -> None:
    done = init(workspace, "opencode", "--user")
    assert done.returncode == 2
    assert done.stderr == (
        "waymark init: opencode reads Waymark's server from the project; run init without --user.\n"
    )
    assert tree(workspace) == {}


def test_committed_cline_hook_steps_aside_where_waymark_is_missing(workspace: Path) -> None:
    assert init(workspace, "cline").returncode == 0
    done = subprocess.run(
        [str(workspace / ".clinerules" / "hooks" / "PreToolUse")],
        input="{}",
        env={"PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=10,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", NOTICE)


@pytest.mark.skipif(shutil.which("node") is None, reason="node runs the plugin outside opencode")
def test_committed_opencode_plugin_steps_aside_where_waymark_is_missing(
    workspace: Path,
) -> None:
    """The plugin under node with no waymark on PATH: the tool runs as is, one notice logged."""
    assert init(workspace, "opencode").returncode == 0
    plugin = workspace / ".opencode" / "plugin" / "waymark.js"
    probe = workspace / "probe.mjs"
    probe.write_text(
        f"import {{ Waymark }} from {json.dumps(plugin.as_uri())};\n"
        "const logged = [];\n"
        "const client = { app: { log: async (m) => logged.push(m.body.message) } };\n"
        f"const hooks = await Waymark({{ directory: {json.dumps(str(workspace))}, client }});\n"
        "const output = { args: { command: \"sed -i 's/a/b/' f\" } };\n"
        "const call = { tool: 'bash', sessionID: 's', callID: 'c' };\n"
        "await hooks['tool.execute.before'](call, output);\n"
        "console.log(JSON.stringify({ args: output.args, logged }));\n"
    )
    done = subprocess.run(
        ["node", str(probe)],
        env={"PATH": f"{Path(shutil.which('node') or '').parent}:/nonexistent"},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "args": {"command": "sed -i 's/a/b/' f"},
        "logged": [NOTICE.strip()],
    }

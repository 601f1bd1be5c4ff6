"""Each host's ``waymark init`` plan: which of its configs get Waymark's server and hooks.

A plan reads the configs it touches and returns their new content, writing nothing
(doors/init.py writes them, all or nothing). A host's record names its plan
(``Host.setup`` in doors/hosts.py); hosts keeping their configs alike share one.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import tomlkit
import tomlkit.exceptions
import tomlkit.items

from waymark.commands.context import HISTORY_ENV
from waymark.doors.hosts import HOSTS, Host
from waymark.doors.init_configs import (
    FIX,
    Config,
    InitError,
    load_json,
    load_toml,
    member,
    open_config,
    set_json,
)
from waymark.doors.init_entries import (
    add_hooks,
    add_server,
    add_unique,
    drop_ours,
    has_ours,
    hook_command,
    ours,
    waymark_command,
)


def _mcp_json(root: Path) -> Config:
    """The ``waymark`` stdio server in the project's .mcp.json (Claude Code and Copilot CLI)."""
    command = waymark_command()
    config = open_config(root, ".mcp.json")
    mcp = load_json(config)
    add_server(config, mcp, {"type": "stdio", "command": command[0], "args": [*command[1:], "mcp"]})
    set_json(config, mcp)
    return config


def _claude_code(root: Path, host: Host) -> list[Config]:
    mcp_config = _mcp_json(root)
    shared_config = open_config(root, ".claude/settings.json")
    shared = load_json(shared_config)
    local_config = open_config(root, ".claude/settings.local.json")
    local = load_json(local_config)
    # The hooks go to the settings Claude Code keeps out of git, unless a team already
    # committed Waymark's: then they stay there, one set.
    settings_config, settings = (
        (shared_config, shared) if has_ours(shared, "claude-code") else (local_config, local)
    )
    other_config, other = (local_config, local) if settings is shared else (shared_config, shared)
    drop_ours(other_config, other, "claude-code")
    add_hooks(settings_config, settings, "claude-code")
    add_unique(member(settings_config, settings, "enabledMcpjsonServers", []), "waymark")
    permissions = member(settings_config, settings, "permissions", {})
    add_unique(member(settings_config, permissions, "allow", []), "mcp__waymark")
    plan = [mcp_config]
    for config, data in ((shared_config, shared), (local_config, local)):
        if config.old is not None and load_json(config) == data:
            config.new = config.old  # untouched: the user's formatting stays
            plan.append(config)
        elif data:
            set_json(config, data)
            plan.append(config)
    return plan


def _settings_json(root: Path, host: Host) -> list[Config]:
    """A trusted ``mcpServers.waymark`` and the hooks, both in the host's settings file."""
    assert host.setup.settings is not None
    command = waymark_command()
    config = open_config(root, host.setup.settings)
    settings = load_json(config)
    add_server(
        config, settings, {"command": command[0], "args": [*command[1:], "mcp"], "trust": True}
    )
    add_hooks(config, settings, host.name)
    set_json(config, settings)
    return [config]


def _codex(root: Path, host: Host) -> list[Config]:
    """``[mcp_servers.waymark]`` in config.toml, and the hooks in hooks.json."""
    hooks_config = open_config(root, ".codex/hooks.json")
    hooks = load_json(hooks_config)
    add_hooks(hooks_config, hooks, "codex")
    set_json(hooks_config, hooks)
    return [_codex_server(root), hooks_config]


def _codex_server(root: Path) -> Config:
    """Add ``[mcp_servers.waymark]`` through a TOML editor that keeps comments and layout."""
    command = waymark_command()
    config = open_config(root, ".codex/config.toml")
    text = config.text()
    before, doc = load_toml(config)
    servers = member(config, before, "mcp_servers", {})
    if "waymark" in servers:
        member(config, servers, "waymark", {})
        config.new = config.old
        return config
    entry: dict[str, Any] = {
        "command": command[0],
        "args": [*command[1:], "mcp"],
        "required": True,
        "startup_timeout_sec": 30,
        # Codex starts servers with a clean environment, its hooks with the user's: passing
        # on what locates the history keeps one history for both.
        "env_vars": list(HISTORY_ENV),
    }
    existing = doc.get("mcp_servers")
    if isinstance(existing, tomlkit.items.InlineTable):
        # An inline table cannot be extended by a [table] header: it takes a member.
        inline = tomlkit.inline_table()
        inline.update(entry)
        existing["waymark"] = inline
        new = doc.as_string()
    else:
        table = tomlkit.table()
        table.update(entry)
        if existing is None:
            existing = tomlkit.table(is_super_table=True)
            doc["mcp_servers"] = existing
        existing["waymark"] = table
        new = _blank_line_after_ours(doc.as_string())
    if "\r\n" in text and "\n" not in text.replace("\r\n", ""):
        new = re.sub(r"(?<!\r)\n", "\r\n", new)
    if tomllib.loads(new) != {**before, "mcp_servers": {**servers, "waymark": entry}}:
        raise InitError(
            f"{config.shown} could not be extended without changing what it says; add the "
            "[mcp_servers.waymark] table that `waymark init codex --print` shows by hand."
        )
    config.new = new.encode("utf-8")
    return config


def _blank_line_after_ours(text: str) -> str:
    """Separate the table init added from a header right after it, as the user's are."""
    ours = text.find("[mcp_servers.waymark]")
    following = re.compile(r"^[ \t]*\[", re.MULTILINE).search(text, ours + 1)
    if following is None or text[: following.start()].endswith("\n\n"):
        return text
    return text[: following.start()] + "\n" + text[following.start() :]


def _copilot_cli(root: Path, host: Host) -> list[Config]:
    """The server in .mcp.json (shared with Claude Code), the hooks in Copilot's own file."""
    mcp_config = _mcp_json(root)
    hooks_config = open_config(root, ".github/hooks/waymark.json")
    hooks = load_json(hooks_config)
    version = member(hooks_config, hooks, "version", 1)
    if version != 1:
        raise InitError(f'{hooks_config.shown}: "version" is {version}, not 1; {FIX}.')
    add_hooks(hooks_config, hooks, "copilot-cli")
    set_json(hooks_config, hooks)
    return [mcp_config, hooks_config]


def _opencode(root: Path, host: Host) -> list[Config]:
    """``mcp.waymark`` in opencode.json, and the plugin that runs the hooks."""
    command = waymark_command()
    config = open_config(root, "opencode.json")
    data = load_json(config)
    before = json.loads(json.dumps(data))
    entry = {"type": "local", "command": [*command, "mcp"], "enabled": True}
    member(config, member(config, data, "mcp", {}), "waymark", entry)
    if config.old is not None and data == before:
        config.new = config.old  # untouched: the user's formatting stays
    else:
        set_json(config, data)
    plugin = open_config(root, ".opencode/plugin/waymark.js")
    plugin.new = opencode_plugin().encode("utf-8")
    return [config, plugin]


def opencode_plugin() -> str:
    """The plugin's source with this install's hook command, tracked tools and bound."""
    host = HOSTS["opencode"]
    assert host.hook_timeout is not None
    source = (Path(__file__).parent / "hooks" / "opencode_plugin.js").read_text("utf-8")
    values = {
        '"@HOOK@"': json.dumps(hook_command("opencode")),
        '["@TOOLS@"]': json.dumps([*host.shell, *host.editors]),
        'Number("@TIMEOUT_MS@")': str(host.hook_timeout * 1000),
    }
    for placeholder, value in values.items():
        source = source.replace(placeholder, value)
    return source


# Cline's hook files delivering the events Waymark acts on (tool_call, tool_result).
CLINE_HOOK_FILES = ("PreToolUse", "PostToolUse")


def _cline(root: Path, host: Host) -> list[Config]:
    """An executable per hook event in .clinerules/hooks; the MCP server is per user."""
    plan = []
    for name in CLINE_HOOK_FILES:
        config = open_config(root, f".clinerules/hooks/{name}")
        if config.old is not None and not ours(config.text(), "cline"):
            raise InitError(
                f"{config.shown} is a hook of yours; Cline also runs {name}.sh or {name}.py "
                "beside it: rename yours to one of those and run init again."
            )
        script = "#!/bin/sh\n# Waymark's Cline hook, written by `waymark init cline`.\n"
        config.new = (script + hook_command("cline") + "\n").encode("utf-8")
        config.mode = 0o755
        plan.append(config)
    return plan


def cline_mcp_settings() -> Path:
    """The one file Cline reads MCP servers from (it has no project MCP config)."""
    named = os.environ.get("CLINE_MCP_SETTINGS_PATH")
    if named:
        return Path(named)
    return Path.home() / ".cline" / "data" / "settings" / "cline_mcp_settings.json"


def cline_server(root: Path) -> dict[str, Any]:
    command = waymark_command()
    return {
        "type": "stdio",
        "command": command[0],
        "args": [*command[1:], "mcp", "--workspace", str(root)],
        "cwd": str(root),
        # Cline gives a server 3 s to answer initialize by default; Python starts slower.
        "timeout": 30,
        "disabled": False,
    }


def _cline_user(root: Path, host: Host) -> list[Config]:
    """Cline's per-user MCP settings: the ``waymark`` server, serving this project."""
    shown = cline_mcp_settings()
    real = Path(os.path.realpath(shown))
    try:
        old = real.read_bytes() if real.is_file() else None
    except OSError as exc:
        raise InitError(f"{shown} cannot be read ({exc.strerror}); {FIX}.") from exc
    if old is None and real.exists():
        raise InitError(f"{shown} is not a regular file; replace it with the config file.")
    config = Config(shown, real, old)
    data = load_json(config)
    servers = member(config, data, "mcpServers", {})
    entry = cline_server(root)
    if servers.get("waymark") == entry:
        config.new = config.old
    else:
        servers["waymark"] = entry
        set_json(config, data)
    return [config]


# By the name a host's record gives (``Setup.plan``, ``Setup.user_plan``).
PLANS: dict[str, Callable[[Path, Host], list[Config]]] = {
    "claude-code": _claude_code,
    "settings": _settings_json,
    "codex": _codex,
    "copilot-cli": _copilot_cli,
    "opencode": _opencode,
    "cline": _cline,
    # Cline reads MCP servers only from a per-user file: written with ``--user``.
    "cline-user": _cline_user,
}

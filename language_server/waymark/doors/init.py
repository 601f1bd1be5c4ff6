"""``waymark init <host>``: register the MCP server and the hooks in a project's host config.

Existing configs are merged into, never replaced: the user's servers, hooks and settings
stay, and running init again changes nothing. ``--print`` shows the files it would write.

All or nothing: every file's new content is planned and its shape checked before the first
write, and when a write still fails the files already written are put back. A config that
is not a regular file, is not UTF-8, does not parse, has a member of the wrong type, or
leads out of the project through a symlink is refused with one sentence naming it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import tomlkit
import tomlkit.exceptions
import tomlkit.items

from waymark.commands.context import HISTORY_ENV
from waymark.doors.git_exclude import keep_out_of_git
from waymark.doors.hosts import HOSTS, POST_TOOL, POST_TOOL_FAILURE, PRE_TOOL, PROMPT
from waymark.doors.init_configs import (
    FIX,
    Config,
    InitError,
    kind_of,
    load_json,
    load_toml,
    member,
    open_config,
    set_json,
)
from waymark.engine.errors import FileChangedSinceRead, WaymarkError
from waymark.store.files import atomic_write, create_parents, delete_file, digest


def waymark_command() -> list[str]:
    """How the host starts this Waymark: ``waymark`` when the one on PATH runs this install
    (pipx and uv link it from ~/.local/bin into a private venv), else this Python."""
    on_path = shutil.which("waymark")
    # The venv's python is itself a link out of the venv: compare the folders, not the files.
    here = os.path.realpath(Path(sys.executable).absolute().parent)
    if on_path and os.path.dirname(os.path.realpath(on_path)) == here:
        return ["waymark"]
    return [sys.executable, "-m", "waymark"]


def _shell(words: list[str]) -> str:
    return " ".join(shlex.quote(w) for w in words)


def ours(command: object, host: str) -> bool:
    """Whether a hook command is a Waymark hook for ``host``, whichever install it names."""
    pattern = _OURS.format(re.escape(host))
    return isinstance(command, str) and re.search(pattern, command) is not None


# "waymark hook HOST", "/venv/bin/waymark hook HOST", "python -m waymark hook HOST", quoted.
_OURS = r"waymark['\"]?\s+hook\s+{}(?![\w-])"


def _hook_entries(config: Config, settings: dict[str, Any], event: str) -> list[Any]:
    entries: list[Any] = member(config, member(config, settings, "hooks", {}), event, [])
    for entry in entries:
        if not isinstance(entry, dict):
            raise InitError(
                f'{config.shown}: a "{event}" entry is {kind_of(entry)}, not an object; {FIX}.'
            )
        hooks = entry.get("hooks", [])
        if not isinstance(hooks, list):
            raise InitError(f'{config.shown}: "hooks" is {kind_of(hooks)}, not a list; {FIX}.')
        for hook in hooks:
            if not isinstance(hook, dict):
                raise InitError(
                    f'{config.shown}: a "{event}" hook is {kind_of(hook)}, not an object; {FIX}.'
                )
    return entries


def _drop_ours(config: Config, settings: dict[str, Any], host: str) -> None:
    """Remove every Waymark hook for ``host`` (another file of the host now holds them)."""
    if not isinstance(settings.get("hooks"), dict):
        return
    for event in list(settings["hooks"]):
        entries = _hook_entries(config, settings, event)
        for entry in list(entries):
            hooks = entry.get("hooks", [])
            kept = [h for h in hooks if not ours(h.get("command"), host)]
            if len(kept) != len(hooks):
                entry["hooks"] = kept
                if not kept:
                    entries.remove(entry)
        if not entries:
            del settings["hooks"][event]
    if not settings["hooks"]:
        del settings["hooks"]


def _set_hook(
    config: Config,
    settings: dict[str, Any],
    event: str,
    matcher: str | None,
    command: str,
    host: str,
    timeout: int,
) -> None:
    """Make ``event`` hold exactly one Waymark hook for ``host``: this ``command``.

    A Waymark hook another install wrote is taken over in place (so the user's order stays),
    and any second one removed: two would apply a ``sed -i`` twice.
    """
    entries = _hook_entries(config, settings, event)
    ours_hook = {"type": "command", "command": command, "timeout": timeout}
    found = False
    for entry in list(entries):
        hooks = entry.get("hooks", [])
        for hook in list(hooks):
            if not ours(hook.get("command"), host):
                continue
            if found:
                hooks.remove(hook)
                if not hooks:
                    entries.remove(entry)
                continue
            found = True
            hook.update(ours_hook)
            if len(hooks) == 1 and matcher is not None:
                entry["matcher"] = matcher
    if not found:
        added: dict[str, Any] = {"hooks": [ours_hook]}
        entries.append(added if matcher is None else {"matcher": matcher, **added})


def _add_unique(items: list[str], value: str) -> None:
    if value not in items:
        items.append(value)


def _add_server(config: Config, data: dict[str, Any], entry: dict[str, Any]) -> None:
    member(config, member(config, data, "mcpServers", {}), "waymark", entry)


def hook_command(name: str) -> str:
    """The hook's command line: Waymark's hook, or one line of notice where it is missing.

    A config a team commits runs on machines without Waymark: there the hook exits 0 and the
    host goes on untracked instead of failing every tool call.
    """
    words = waymark_command()
    return (
        f"if command -v {shlex.quote(words[0])} >/dev/null 2>&1; "
        f"then {_shell([*words, 'hook', name])}; "
        f"else echo 'waymark: not installed here, so this hook does nothing "
        f"(to track edits, install it as the Install section of the Waymark README "
        f"says)' >&2; fi"
    )


def _hooks(config: Config, settings: dict[str, Any], name: str) -> None:
    host = HOSTS[name]
    assert host.hook_timeout is not None
    command = hook_command(name)
    shell, editors = sorted(host.shell), list(host.editors)
    tools = f"{host.matcher(shell)}|{host.matcher(editors)}" if editors else host.matcher(shell)
    matchers = {
        PROMPT: None,
        PRE_TOOL: tools,
        POST_TOOL: tools,
        # A shell command that fails may have changed files half-way: tracked all the same.
        POST_TOOL_FAILURE: host.matcher(shell),
    }
    for canonical, matcher in matchers.items():
        event = host.event_name(canonical)
        if event is not None:
            _set_hook(config, settings, event, matcher, command, name, host.hook_timeout)


def _has_ours(settings: dict[str, Any], host: str) -> bool:
    hooks = settings.get("hooks")
    return isinstance(hooks, dict) and any(
        ours(hook.get("command"), host)
        for entries in hooks.values()
        if isinstance(entries, list)
        for entry in entries
        if isinstance(entry, dict) and isinstance(entry.get("hooks"), list)
        for hook in entry["hooks"]
        if isinstance(hook, dict)
    )


def _mcp_json(root: Path) -> Config:
    """The ``waymark`` stdio server in the project's .mcp.json (Claude Code and Copilot CLI)."""
    command = waymark_command()
    config = open_config(root, ".mcp.json")
    mcp = load_json(config)
    _add_server(
        config, mcp, {"type": "stdio", "command": command[0], "args": [*command[1:], "mcp"]}
    )
    set_json(config, mcp)
    return config


def _claude_code(root: Path) -> list[Config]:
    mcp_config = _mcp_json(root)
    shared_config = open_config(root, ".claude/settings.json")
    shared = load_json(shared_config)
    local_config = open_config(root, ".claude/settings.local.json")
    local = load_json(local_config)
    # The hooks go to the settings Claude Code keeps out of git, unless a team already
    # committed Waymark's: then they stay there, one set.
    settings_config, settings = (
        (shared_config, shared) if _has_ours(shared, "claude-code") else (local_config, local)
    )
    other_config, other = (local_config, local) if settings is shared else (shared_config, shared)
    _drop_ours(other_config, other, "claude-code")
    _hooks(settings_config, settings, "claude-code")
    _add_unique(member(settings_config, settings, "enabledMcpjsonServers", []), "waymark")
    permissions = member(settings_config, settings, "permissions", {})
    _add_unique(member(settings_config, permissions, "allow", []), "mcp__waymark")
    plan = [mcp_config]
    for config, data in ((shared_config, shared), (local_config, local)):
        if config.old is not None and load_json(config) == data:
            config.new = config.old  # untouched: the user's formatting stays
            plan.append(config)
        elif data:
            set_json(config, data)
            plan.append(config)
    return plan


def _settings_json(root: Path, path: str, host: str) -> list[Config]:
    """A trusted ``mcpServers.waymark`` and the hooks, both in one settings file."""
    command = waymark_command()
    config = open_config(root, path)
    settings = load_json(config)
    _add_server(
        config, settings, {"command": command[0], "args": [*command[1:], "mcp"], "trust": True}
    )
    _hooks(config, settings, host)
    set_json(config, settings)
    return [config]


def _qwen_code(root: Path) -> list[Config]:
    return _settings_json(root, ".qwen/settings.json", "qwen-code")


def _codex(root: Path) -> list[Config]:
    """``[mcp_servers.waymark]`` in config.toml, and the hooks in hooks.json."""
    hooks_config = open_config(root, ".codex/hooks.json")
    hooks = load_json(hooks_config)
    _hooks(hooks_config, hooks, "codex")
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


def _gemini_cli(root: Path) -> list[Config]:
    return _settings_json(root, ".gemini/settings.json", "gemini-cli")


def _copilot_cli(root: Path) -> list[Config]:
    """The server in .mcp.json (shared with Claude Code), the hooks in Copilot's own file."""
    mcp_config = _mcp_json(root)
    hooks_config = open_config(root, ".github/hooks/waymark.json")
    hooks = load_json(hooks_config)
    version = member(hooks_config, hooks, "version", 1)
    if version != 1:
        raise InitError(f'{hooks_config.shown}: "version" is {version}, not 1; {FIX}.')
    _hooks(hooks_config, hooks, "copilot-cli")
    set_json(hooks_config, hooks)
    return [mcp_config, hooks_config]


def _opencode(root: Path) -> list[Config]:
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


def _cline(root: Path) -> list[Config]:
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


def _cline_user(root: Path) -> list[Config]:
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


PLANS: dict[str, Callable[[Path], list[Config]]] = {
    "claude-code": _claude_code,
    "qwen-code": _qwen_code,
    "codex": _codex,
    "gemini-cli": _gemini_cli,
    "copilot-cli": _copilot_cli,
    "opencode": _opencode,
    "cline": _cline,
}

# Hosts reading MCP servers only from a per-user file: written with ``--user``.
USER_PLANS: dict[str, Callable[[Path], list[Config]]] = {"cline": _cline_user}

# The files init writes for one person, which git must not list: the repository's
# info/exclude gets them (doors/git_exclude.py).
PERSONAL = {"claude-code": (".claude/settings.local.json",)}

# What the user must still do in the host; init cannot do it from outside.
NOTES = {
    "claude-code": "Claude Code: the hooks are in .claude/settings.local.json, which stays out "
    "of git (in a repository init lists it in .git/info/exclude; .mcp.json is for the team). "
    "Start claude in {root} once and trust the folder, so it runs the hooks and allows the "
    "mcp__waymark tools; in -p mode pass --allowedTools mcp__waymark.",
    "qwen-code": "Qwen Code runs project hooks only in a trusted folder: trust {root} when qwen "
    "asks (or with /trust).",
    "codex": "Codex reads .codex/config.toml and .codex/hooks.json only from a trusted project: "
    "trust {root} when codex asks at its first start, then review and trust the hooks with "
    "/hooks (codex exec runs untrusted hooks only with --dangerously-bypass-hook-trust). Keep "
    "CODEX_HOME outside the project.",
    "gemini-cli": "Gemini CLI runs a project's hooks and MCP servers only in a trusted folder: "
    "trust {root} when gemini asks (or with /permissions); it then warns at each start that "
    "the project has hooks.",
    "copilot-cli": "GitHub Copilot CLI: trust {root} when copilot asks at its first start (in "
    "-p mode pass --trust-folder); it reads the server from .mcp.json and the hooks from "
    ".github/hooks/waymark.json. It also runs Claude Code's hooks, which step aside under "
    "Copilot.",
    "opencode": "opencode loads the plugin when it starts in {root}. Offline, set "
    "npm_config_offline=true: opencode otherwise tries for about a minute to install its "
    "plugin package before it starts.",
    "cline": "Cline reads MCP servers only from {settings}: run `waymark init cline --user` "
    "to add Waymark's server for {root} there (one per user: it serves the last project "
    "named). The hooks in .clinerules/hooks run in every Cline task in {root}; each task is "
    "one turn, labelled with its task id.",
}


def _missing_dirs(path: Path) -> list[Path]:
    """The directories above ``path`` that writing it creates, outermost first."""
    return [p for p in reversed(path.parents) if not p.exists()]


def _write_all(configs: list[Config]) -> None:
    """Write every changed config; if one fails, put back those already written and raise."""
    written: list[Config] = []
    made: list[Path] = []
    try:
        for config in configs:
            assert config.new is not None
            made += _missing_dirs(config.real)
            create_parents(config.real)
            expected = None if config.old is None else digest(config.old)
            atomic_write(config.real, config.new, expected=expected)
            written.append(config)
            if config.mode is not None:
                os.chmod(config.real, config.mode)
    except (WaymarkError, OSError) as exc:
        if isinstance(exc, FileChangedSinceRead):
            what = f"{exc.details.get('path', 'a config')} changed while init ran"
        else:
            what = _one_line(exc).rstrip(".")
        raise InitError(f"{what}; {_restore(written, made)}") from exc


def _restore(written: list[Config], made: list[Path]) -> str:
    """Undo :func:`_write_all`'s writes so far; say whether everything is as it was."""
    lost: list[str] = []
    for config in reversed(written):
        try:
            if config.old is None:
                delete_file(config.real)
            else:
                atomic_write(config.real, config.old)
        except (WaymarkError, OSError):
            lost.append(str(config.shown))
    for directory in reversed(made):
        # Not empty: something else was put there meanwhile, and it stays.
        with contextlib.suppress(OSError):
            directory.rmdir()
    if lost:
        return f"{', '.join(lost)} could not be put back, check them and run init again."
    return "nothing was changed, run init again."


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def main(host: str, workspace: str | None, show: bool, user: bool = False) -> int:
    root = Path(os.path.realpath(workspace or "."))
    if not root.is_dir():
        print(f"waymark init: {root} is not a directory; pass a project folder.", file=sys.stderr)
        return 2
    if user and host not in USER_PLANS:
        print(
            f"waymark init: {host} reads Waymark's server from the project; run init without "
            "--user.",
            file=sys.stderr,
        )
        return 2
    try:
        plan = PLANS[host](root) + (USER_PLANS[host](root) if user else [])
    except InitError as exc:
        print(f"waymark init: {_one_line(exc)}", file=sys.stderr)
        return 1
    changed = [c for c in plan if c.changes()]
    if show:
        for config in plan:
            unchanged = "" if config in changed else " (unchanged)"
            assert config.new is not None
            print(f"--- {config.shown}{unchanged}\n{config.new.decode('utf-8')}", end="")
    else:
        try:
            _write_all(changed)
        except InitError as exc:
            print(f"waymark init: {_one_line(exc)}", file=sys.stderr)
            return 1
        for config in plan:
            print(f"{'wrote' if config in changed else 'unchanged'} {config.shown}")
        for relative in PERSONAL.get(host, ()):
            if any(config.shown == root / relative for config in plan):
                problem = keep_out_of_git(root, root / relative)
                if problem:
                    print(f"waymark init: {problem}", file=sys.stderr)
    if host in NOTES and not (user and host in USER_PLANS):
        print(NOTES[host].format(root=root, settings=cline_mcp_settings()))
    return 0

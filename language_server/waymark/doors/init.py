"""``waymark init <host>``: register the MCP server and the hooks in a project's host config.

Existing configs are merged into, never replaced: the user's servers, hooks and settings
stay, and running init again changes nothing. ``--print`` shows the files it would write.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from waymark.doors.hosts import HOSTS
from waymark.store.files import atomic_write, create_parents


class InitError(Exception):
    """A config Waymark would have to overwrite to merge into (e.g. invalid JSON)."""


def waymark_command() -> list[str]:
    """How the host starts this Waymark: ``waymark`` when it is on PATH, else this Python."""
    on_path = shutil.which("waymark")
    if on_path and Path(on_path).absolute().parent == Path(sys.executable).absolute().parent:
        return ["waymark"]
    return [sys.executable, "-m", "waymark"]


def _shell(words: list[str]) -> str:
    return " ".join(shlex.quote(w) for w in words)


def _load_json(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except ValueError as exc:
        raise InitError(f"{path} is not valid JSON ({exc}); fix it and run init again.") from exc
    if not isinstance(data, dict):
        raise InitError(f"{path} does not hold a JSON object; fix it and run init again.")
    return data


def _add_hook(
    config: dict[str, Any], event: str, matcher: str | None, command: str, timeout: int
) -> None:
    """Add one command hook to ``event`` unless a hook with that command is already there."""
    entries = config.setdefault("hooks", {}).setdefault(event, [])
    for entry in entries:
        if any(h.get("command") == command for h in entry.get("hooks", [])):
            return
    hooks = [{"type": "command", "command": command, "timeout": timeout}]
    entries.append({"hooks": hooks} if matcher is None else {"matcher": matcher, "hooks": hooks})


def _add_unique(items: list[str], value: str) -> None:
    if value not in items:
        items.append(value)


def _hooks(config: dict[str, Any], name: str) -> None:
    host = HOSTS[name]
    assert host.hook_timeout is not None
    command = _shell([*waymark_command(), "hook", name])
    shell, editors = sorted(host.shell), list(host.editors)
    timeout = host.hook_timeout
    tools = f"{host.matcher(shell)}|{host.matcher(editors)}"
    _add_hook(config, "UserPromptSubmit", None, command, timeout)
    _add_hook(config, "PreToolUse", tools, command, timeout)
    _add_hook(config, "PostToolUse", tools, command, timeout)
    # A shell command that fails may have changed files half-way: tracked all the same.
    _add_hook(config, "PostToolUseFailure", host.matcher(shell), command, timeout)


def _claude_code(root: Path) -> dict[str, str]:
    command = waymark_command()
    mcp_path = root / ".mcp.json"
    mcp = _load_json(mcp_path)
    mcp.setdefault("mcpServers", {}).setdefault(
        "waymark", {"type": "stdio", "command": command[0], "args": [*command[1:], "mcp"]}
    )
    settings_path = root / ".claude" / "settings.json"
    settings = _load_json(settings_path)
    _hooks(settings, "claude-code")
    _add_unique(settings.setdefault("enabledMcpjsonServers", []), "waymark")
    _add_unique(settings.setdefault("permissions", {}).setdefault("allow", []), "mcp__waymark")
    return {str(mcp_path): _json(mcp), str(settings_path): _json(settings)}


def _qwen_code(root: Path) -> dict[str, str]:
    command = waymark_command()
    path = root / ".qwen" / "settings.json"
    settings = _load_json(path)
    settings.setdefault("mcpServers", {}).setdefault(
        "waymark", {"command": command[0], "args": [*command[1:], "mcp"], "trust": True}
    )
    _hooks(settings, "qwen-code")
    return {str(path): _json(settings)}


def _codex(root: Path) -> dict[str, str]:
    command = waymark_command()
    path = root / ".codex" / "config.toml"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    try:
        existing = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InitError(f"{path} is not valid TOML ({exc}); fix it and run init again.") from exc
    if "waymark" in existing.get("mcp_servers", {}):
        return {str(path): text}
    snippet = (
        "[mcp_servers.waymark]\n"
        f"command = {json.dumps(command[0])}\n"
        f"args = {json.dumps([*command[1:], 'mcp'])}\n"
        "required = true\n"
        "startup_timeout_sec = 30\n"
    )
    separator = (
        "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
    )
    return {str(path): text + separator + snippet}


def _json(value: dict[str, Any]) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


PLANS: dict[str, Callable[[Path], dict[str, str]]] = {
    "claude-code": _claude_code,
    "qwen-code": _qwen_code,
    "codex": _codex,
}

NOTES = {
    "codex": "Codex reads config.toml from CODEX_HOME (default ~/.codex): run codex with "
    "CODEX_HOME={root}/.codex, or copy the [mcp_servers.waymark] table into your own "
    "config.toml. Codex has no hooks: sed through its shell is not tracked; use waymark_sed.",
}


def main(host: str, workspace: str | None, show: bool) -> int:
    root = Path(workspace or ".").resolve()
    try:
        plan = PLANS[host](root)
    except InitError as exc:
        print(f"waymark init: {exc}", file=sys.stderr)
        return 1
    for path, content in plan.items():
        target = Path(path)
        unchanged = target.exists() and target.read_text(encoding="utf-8") == content
        if show:
            print(f"--- {path}{' (unchanged)' if unchanged else ''}\n{content}", end="")
            continue
        if not unchanged:
            create_parents(target)
            atomic_write(target, content.encode("utf-8"))
        print(f"{'unchanged' if unchanged else 'wrote'} {path}")
    if host in NOTES:
        print(NOTES[host].format(root=root))
    return 0

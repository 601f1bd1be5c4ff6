"""What ``waymark init`` adds to a host's config: Waymark's MCP server and its hooks.

A hook is recognised as Waymark's by ``waymark … hook <host>`` in its command, whichever
install wrote it, so init from another install takes it over in place: one set per host.
The hook command steps aside with one line on stderr where Waymark is not installed.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

from waymark.doors.hosts import HOSTS, POST_TOOL, POST_TOOL_FAILURE, PRE_TOOL, PROMPT
from waymark.doors.init_configs import FIX, Config, InitError, kind_of, member


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


def drop_ours(config: Config, settings: dict[str, Any], host: str) -> None:
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


def add_unique(items: list[str], value: str) -> None:
    if value not in items:
        items.append(value)


def add_server(config: Config, data: dict[str, Any], entry: dict[str, Any]) -> None:
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


def add_hooks(config: Config, settings: dict[str, Any], name: str) -> None:
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


def has_ours(settings: dict[str, Any], host: str) -> bool:
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

"""The hosts' shell-tool hooks: begin tracking on PreToolUse, record on PostToolUse.

Claude Code and Qwen Code run a command hook around every tool call with a JSON envelope on
stdin (``hook_event_name``, ``tool_name``, ``tool_input.command``, ``tool_use_id``, ``cwd``).
For their shell tool, PreToolUse scans and backs up (:func:`track.begin`), and
PostToolUse / PostToolUseFailure record the changes into the open turn (:func:`track.finish`)
and tell the model what is rewindable and what is out of reach (``additionalContext``).
Tracking never blocks a command: the Pre answer is always "no decision".
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from waymark.commands.context import CommandContext
from waymark.commands.tracking import after_shell, before_shell
from waymark.doors.hooks.answer import answer


def _call_name(event: Mapping[str, Any], command: str) -> str:
    call = event.get("tool_use_id")
    if isinstance(call, str) and call:
        return call
    # Without an id, the session and the command pair a Pre with its Post.
    raw = f"{event.get('session_id')}\0{command}".encode("utf-8", "surrogateescape")
    return "call-" + hashlib.sha256(raw).hexdigest()[:24]


def _command(event: Mapping[str, Any]) -> str:
    tool_input = event.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, Mapping) else None
    return command if isinstance(command, str) else ""


def before(ctx: CommandContext, event: Mapping[str, Any]) -> None:
    """PreToolUse of the shell tool: scan and back up; the command then runs as usual."""
    command = _command(event)
    cwd = event.get("cwd")
    before_shell(
        ctx, _call_name(event, command), command, Path(cwd) if isinstance(cwd, str) else None
    )


def after(ctx: CommandContext, event: Mapping[str, Any]) -> dict[str, Any] | None:
    """PostToolUse(Failure) of the shell tool: record the changes, tell the model (None: no Pre)."""
    report = after_shell(ctx, _call_name(event, _command(event)))
    if report is None:
        return None
    text = " ".join([report.message(), *report.warnings])
    return answer(event.get("hook_event_name"), context=text)

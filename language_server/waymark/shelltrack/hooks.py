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
from typing import Any, Final

from ..history import History
from .track import begin, finish

# The shell tool of each host: Claude Code's ``Bash``, Qwen Code's ``run_shell_command``.
SHELL_TOOLS: Final = frozenset({"Bash", "run_shell_command"})
PRE_EVENTS: Final = frozenset({"PreToolUse"})
POST_EVENTS: Final = frozenset({"PostToolUse", "PostToolUseFailure"})


def is_shell_call(event: Mapping[str, Any]) -> bool:
    """Whether ``event`` is a Pre/Post hook of a host's shell tool."""
    return event.get("tool_name") in SHELL_TOOLS and (
        event.get("hook_event_name") in PRE_EVENTS | POST_EVENTS
    )


def _call_name(event: Mapping[str, Any], command: str) -> str:
    call = event.get("tool_use_id")
    if isinstance(call, str) and call:
        return call
    # Without an id, the session and the command pair a Pre with its Post.
    raw = f"{event.get('session_id')}\0{command}".encode("utf-8", "surrogateescape")
    return "call-" + hashlib.sha256(raw).hexdigest()[:24]


def handle(event: Mapping[str, Any], history: History) -> dict[str, Any] | None:
    """The hook's JSON answer for a shell-tool event (None: not one; nothing to say)."""
    if not is_shell_call(event):
        return None
    tool_input = event.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, Mapping) else None
    command = command if isinstance(command, str) else ""
    cwd = event.get("cwd")
    name = _call_name(event, command)
    kind = event["hook_event_name"]
    if kind in PRE_EVENTS:
        begin(history, name, command=command, cwd=Path(cwd) if isinstance(cwd, str) else None)
        return None
    report = finish(history, name)
    if report is None:
        return None
    text = report.message()
    if report.warnings:
        text += " " + " ".join(report.warnings)
    return {"hookSpecificOutput": {"hookEventName": kind, "additionalContext": text}}

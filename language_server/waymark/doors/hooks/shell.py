"""The hosts' shell-tool hooks: begin tracking before the command, record after it.

For a host's shell tool (``Host.shell``), the pre-tool event scans and backs up
(:func:`track.begin`), and the post-tool events (failure included) record the changes into
the open turn (:func:`track.finish`) and tell the model what is rewindable and what is out
of reach (the host's context answer). Tracking never blocks a command: the pre-tool answer
is always "no decision".
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from waymark.commands.context import CommandContext
from waymark.commands.tracking import after_shell, before_shell
from waymark.doors.hosts import Call, Host, render


def _call_name(call: Call, command: str) -> str:
    if call.call_id:
        return call.call_id
    # Without an id, the session and the command pair a Pre with its Post.
    raw = f"{call.session}\0{command}".encode("utf-8", "surrogateescape")
    return "call-" + hashlib.sha256(raw).hexdigest()[:24]


def command_line(value: object) -> tuple[str, bool]:
    """A shell tool's command input as one line, and whether it is a single command.

    A host may take a list of commands run one after another (Cline's ``run_commands``).
    """
    if isinstance(value, str):
        return value, True
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return "\n".join(value), len(value) == 1
    return "", False


def _command(host: Host, call: Call) -> str:
    return command_line(call.tool_input.get(host.shell.get(call.tool or "", "")))[0]


def before(ctx: CommandContext, call: Call, command: str) -> None:
    """Pre-tool of the shell tool: scan and back up; the command then runs as usual."""
    cwd = Path(call.cwd) if call.cwd else None
    before_shell(ctx, _call_name(call, command), command, cwd)


def after(ctx: CommandContext, host: Host, call: Call) -> dict[str, Any] | None:
    """Post-tool of the shell tool: record the changes, tell the model (None: no pre-tool)."""
    report = after_shell(ctx, _call_name(call, _command(host, call)))
    if report is None or host.answers.context is None:
        return None
    text = " ".join([report.message(), *report.warnings])
    return render(host.answers.context, event=call.event_name, text=text)

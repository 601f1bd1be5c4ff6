"""The hosts' shell-tool hooks: begin tracking before the command, record after it.

For a host's shell tool (``Host.shell``), the pre-tool event scans and backs up
(:func:`track.begin`), and the post-tool events (failure included) record the changes into
the open turn (:func:`track.finish`) and tell the model what is rewindable and what is out
of reach (the host's context answer). A command that would delete or overwrite files
outside the workspace is refused before it runs; one that may destroy files Waymark could
not back up is handed to the user (the host's ask) or stopped once for the model to ask.
"""

from __future__ import annotations

import hashlib
import shlex
from pathlib import Path
from typing import Any

from waymark.commands.context import CommandContext
from waymark.commands.tracking import (
    after_shell,
    before_shell,
    outside_refusal,
    unsaved_notice,
    warned_before,
)
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


def before(ctx: CommandContext, host: Host, call: Call, command: str) -> dict[str, Any] | None:
    """Pre-tool of the shell tool: refuse a command reaching outside the workspace; else
    scan and back up, and name to the host (before it runs) what it may destroy that has no
    backup. None: the command runs as usual."""
    cwd = Path(call.cwd) if call.cwd else None
    refusal = outside_refusal(ctx, command, cwd)
    if refusal is not None:
        return refuse(host, call, refusal)
    at_risk = before_shell(ctx, _call_name(call, command), command, cwd)
    if at_risk is None:
        return None
    if host.answers.ask is not None:
        return render(
            host.answers.ask, event=call.event_name, text=unsaved_notice(at_risk, retry=False)
        )
    if warned_before(ctx, command, cwd):
        return None
    return refuse(host, call, unsaved_notice(at_risk, retry=True))


def refuse(host: Host, call: Call, text: str) -> dict[str, Any]:
    """Keep the call from running, the model reading ``text``, in the host's way."""
    if host.answers.refuse == "rewrite" and host.answers.rewrite is not None:
        return rewritten(host, call, f"printf '%s\\n' {shlex.quote(text)} >&2; exit 1")
    return render(host.answers.deny, event=call.event_name, text=text)


def rewritten(host: Host, call: Call, command: str) -> dict[str, Any]:
    """The host's rewrite answer (it must have one): the shell call runs ``command`` instead."""
    key = host.shell[call.tool or ""]
    # A host taking a list of commands gets a list of the one.
    value = command if isinstance(call.tool_input.get(key), str) else [command]
    new_input = {**call.tool_input, key: value}
    return render(host.answers.rewrite, event=call.event_name, input=new_input)


def after(ctx: CommandContext, host: Host, call: Call) -> dict[str, Any] | None:
    """Post-tool of the shell tool: record the changes, tell the model (None: no pre-tool)."""
    report = after_shell(ctx, _call_name(call, _command(host, call)))
    if report is None or host.answers.context is None:
        return None
    from waymark.commands.shellreport import shell_notice

    text = " ".join([shell_notice(report), *report.warnings])
    return render(host.answers.context, event=call.event_name, text=text)

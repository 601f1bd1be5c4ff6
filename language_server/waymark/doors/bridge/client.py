"""In ``waymark mcp`` and the CLI: send a call to the workspace's editor, else run it here."""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Any

from waymark.commands.context import CommandContext
from waymark.commands.registry import execute
from waymark.doors.bridge import registry, wire
from waymark.engine.errors import IoError
from waymark.store.session import Session

log = logging.getLogger(__name__)

ENV_OFF = "WAYMARK_BRIDGE"  # "off": never route through an editor
CONNECT_TIMEOUT = 2.0


class BridgeUnavailable(Exception):
    """The advertised editor did not answer; the call runs locally."""


def _absolute(ctx: CommandContext, command: str, params: dict[str, Any]) -> dict[str, Any]:
    """Relative paths mean the caller's root, which need not be the editor's first folder."""
    root = ctx.workspace.folders[0]
    params = dict(params)
    for key in ("path", "file_path"):
        value = params.get(key)
        if isinstance(value, str) and not os.path.isabs(value):
            params[key] = str(root / value)
    if command in ("waymark.sed", "waymark.patch") and not params.get("cwd"):
        params["cwd"] = str(root)
    return params


async def _call(entry: registry.Entry, request: dict[str, Any]) -> dict[str, Any]:
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_unix_connection(entry.socket, limit=wire.LINE_LIMIT), CONNECT_TIMEOUT
        )
    except (TimeoutError, OSError) as exc:
        # Nobody answers on that socket: the entry is stale whatever its pid says.
        registry.withdraw(entry)
        raise BridgeUnavailable(str(exc)) from exc
    try:
        writer.write(wire.encode(request))
        await writer.drain()
        # No timeout: the user may take their time to review the change.
        line = await reader.readline()
    except OSError:
        line = b""
    finally:
        writer.close()
    if not line:
        # The call may have landed: running it again here could apply it twice.
        lost = IoError(
            "The editor closed the bridge before answering; the change may or may not have "
            "landed: read the file again before retrying.",
            {"errno": "ECONNRESET"},
        )
        return {"result": lost.to_result(), "records": None}
    return wire.decode(line)


def routable(command: str, params: object) -> bool:
    """Previews stay local: their token must be applied where it was made."""
    return (
        command in wire.ROUTED
        and wire.SUPPORTED
        and os.environ.get(ENV_OFF, "").lower() != "off"
        and not (isinstance(params, dict) and params.get("preview"))
    )


async def execute_via_editor_or_local(
    ctx: CommandContext, command: str, params: object, *, origin: str
) -> dict[str, Any]:
    """Run ``command`` in the editor that has this workspace open, or here when there is none.

    Routed results carry ``via: "editor"`` and, for changes, ``outcome`` (``applied``,
    ``applied_with_user_changes``, ``declined``, ``failed``); local ones ``via: "local"``.
    """
    entry = None
    if routable(command, params) and isinstance(params, dict) and ctx.workspace.folders:
        entry = await asyncio.to_thread(registry.find, ctx.workspace.folders[0])
    note = None
    if entry is not None:
        request = {
            "token": entry.token,
            "command": command,
            "params": _absolute(ctx, command, params),  # type: ignore[arg-type]
            "session": {"id": ctx.session.id, "records": ctx.session.to_json()},
            "origin": origin,
        }
        try:
            reply = await _call(entry, request)
        except BridgeUnavailable as exc:
            log.info("editor bridge of pid %d unavailable: %s", entry.pid, exc)
            note = (
                f"The editor that advertised this workspace (pid {entry.pid}) did not answer; "
                "the call ran here without the editor's review."
            )
        else:
            if isinstance(reply.get("records"), str):
                ctx.session = Session.from_json(ctx.session.id, reply["records"])
            result: dict[str, Any] = reply["result"]
            result["via"] = "editor"
            if command in wire.MUTATING:
                result["outcome"] = wire.outcome(result)
            return result
    result = await execute(ctx, command, params)
    if command in wire.ROUTED:
        result["via"] = "local"
    if note:
        result.setdefault("warnings", []).append(note)
    return result

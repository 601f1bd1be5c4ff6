"""In ``waymark mcp`` and the CLI: send a call to the workspace's editor, else run it here."""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Any

from waymark.commands.context import CommandContext
from waymark.commands.registry import Command, execute
from waymark.doors.bridge import registry, wire
from waymark.engine.errors import IoError
from waymark.store.session import Session

log = logging.getLogger(__name__)

ENV_OFF = "WAYMARK_BRIDGE"  # "off": never route through an editor
ENV_REVIEW_TIMEOUT = "WAYMARK_REVIEW_TIMEOUT"  # seconds a change may wait for the user's review
CONNECT_TIMEOUT = 2.0
# A live editor answers the handshake at once; one that does not is frozen or stuck.
HANDSHAKE_TIMEOUT = 2.0
# A read is the editor's own work, no user in the loop.
READ_TIMEOUT = 5.0
DEFAULT_REVIEW_TIMEOUT = 600.0


class BridgeUnavailable(Exception):
    """Nobody listens on the advertised socket (the call was not sent): it runs locally."""


class EditorSilent(Exception):
    """The editor accepted the connection but did not answer the handshake: the call was not
    sent."""


class NoReply(Exception):
    """The call was sent and the editor did not answer in time: it may still run there."""


def _absolute(ctx: CommandContext, command: Command, params: dict[str, Any]) -> dict[str, Any]:
    """Relative paths mean the caller's root, which need not be the editor's first folder."""
    root = ctx.workspace.folders[0]
    params = dict(params)
    for key in command.path_params:
        value = params.get(key)
        if isinstance(value, str) and not os.path.isabs(value):
            params[key] = str(root / value)
    if command.cwd_param is not None and not params.get(command.cwd_param):
        params[command.cwd_param] = str(root)
    return params


async def _call(entry: registry.Entry, request: dict[str, Any], timeout: float) -> dict[str, Any]:
    """The editor's reply to ``request``, waited for ``timeout`` seconds once it is sent."""
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_unix_connection(entry.socket, limit=wire.LINE_LIMIT), CONNECT_TIMEOUT
        )
    except (TimeoutError, OSError) as exc:
        if isinstance(exc, (ConnectionRefusedError, FileNotFoundError)):
            # Nobody listens on that socket: the entry is stale whatever its pid says. A full
            # backlog or a slow accept is a live editor, which keeps its entry.
            registry.withdraw(entry)
        raise BridgeUnavailable(str(exc)) from exc
    try:
        # The call is sent only once the editor has answered: an editor frozen before that
        # never finds it waiting in its socket when it resumes, so the call can run elsewhere.
        try:
            writer.write(wire.encode({"token": entry.token, "hello": True}))
            await writer.drain()
            ready = await asyncio.wait_for(reader.readline(), HANDSHAKE_TIMEOUT)
        except TimeoutError as exc:
            raise EditorSilent from exc
        except OSError as exc:
            raise BridgeUnavailable(str(exc)) from exc
        try:
            taken = bool(ready) and wire.decode(ready).get("ready") is True
        except ValueError:
            taken = False
        if not taken:
            raise BridgeUnavailable("the editor did not take the handshake")
        try:
            writer.write(wire.encode(request))
            await writer.drain()
            line = await asyncio.wait_for(reader.readline(), timeout)
        except TimeoutError as exc:
            raise NoReply from exc
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


def review_timeout() -> tuple[float, str | None]:
    """Seconds a routed change waits for the user's review, and a warning if the setting is
    bad."""
    raw = os.environ.get(ENV_REVIEW_TIMEOUT, "")
    if not raw:
        return DEFAULT_REVIEW_TIMEOUT, None
    try:
        seconds = float(raw)
    except ValueError:
        seconds = 0.0
    if not 0 < seconds < float("inf"):
        return DEFAULT_REVIEW_TIMEOUT, (
            f"{ENV_REVIEW_TIMEOUT}={raw[:40]!r} is not a number of seconds above 0; "
            f"using {DEFAULT_REVIEW_TIMEOUT:g}."
        )
    return seconds, None


def _silent(pid: int, seconds: float) -> str:
    return (
        f"The editor that has this workspace open (pid {pid}) did not answer within {seconds:g} s"
    )


def routable(command: str, params: object) -> bool:
    """Previews stay local: their token must be applied where it was made."""
    return (
        wire.route(command) is not None
        and wire.SUPPORTED
        and os.environ.get(ENV_OFF, "").lower() != "off"
        and not (isinstance(params, dict) and params.get("preview"))
    )


async def execute_via_editor_or_local(
    ctx: CommandContext, command: str, params: object, *, origin: str
) -> dict[str, Any]:
    """Run ``command`` in the editor that has this workspace open, or here when there is none.

    Routed results carry ``via: "editor"`` and, for changes, ``outcome`` (``applied``,
    ``applied_with_user_changes``, ``declined``, ``failed``, ``no_answer``); local ones
    ``via: "local"``. Every wait on the editor is bounded; a read it does not answer runs
    here, a change never runs in both places.
    """
    entry = None
    routed = wire.route(command)
    if routable(command, params) and isinstance(params, dict) and ctx.workspace.folders:
        entry = await asyncio.to_thread(registry.find, ctx.workspace.folders[0])
    notes: list[str] = []
    if entry is not None and routed is not None:
        mutating = routed.mutating
        timeout, bad_setting = review_timeout() if mutating else (READ_TIMEOUT, None)
        if bad_setting:
            notes.append(bad_setting)
        request = {
            "token": entry.token,
            "command": command,
            "params": _absolute(ctx, routed, params),  # type: ignore[arg-type]
            "session": {"id": ctx.session.id, "records": ctx.session.to_json()},
            "origin": origin,
        }
        reply = None
        try:
            reply = await _call(entry, request, timeout)
        except BridgeUnavailable as exc:
            log.info("editor bridge of pid %d unavailable: %s", entry.pid, exc)
            notes.append(
                f"The editor that advertised this workspace (pid {entry.pid}) did not answer; "
                "the call ran here without the editor's review."
            )
        except EditorSilent:
            if mutating:
                # The user keeps an editor open to review changes: a frozen one is no reason
                # to write without it, and the call never reached it.
                frozen = IoError(
                    f"{_silent(entry.pid, HANDSHAKE_TIMEOUT)} (it may be frozen or busy); "
                    "nothing was written. Retry once it responds, or set WAYMARK_BRIDGE=off to "
                    "write without its review.",
                    {"errno": "ETIMEDOUT"},
                )
                return _routed(frozen.to_result(), notes, "failed")
            notes.append(
                f"{_silent(entry.pid, HANDSHAKE_TIMEOUT)}; the file was read here, from disk "
                "(unsaved changes in the editor are not in it)."
            )
        except NoReply:
            if mutating:
                # Sent: the editor may still show it for review, so it must not also run here.
                late = IoError(
                    f"{_silent(entry.pid, timeout)}; the change may still appear there for "
                    "review. Check the editor, then read the file again before retrying.",
                    {"errno": "ETIMEDOUT"},
                )
                return _routed(late.to_result(), notes, "no_answer")
            notes.append(f"{_silent(entry.pid, timeout)}; the file was read here, from disk.")
        if reply is not None:
            if isinstance(reply.get("records"), str):
                ctx.session = Session.from_json(ctx.session.id, reply["records"])
            result: dict[str, Any] = reply["result"]
            return _routed(result, notes, wire.outcome(result) if mutating else None)
    result = await execute(ctx, command, params)
    if routed is not None:
        result["via"] = "local"
    if notes:
        result.setdefault("warnings", []).extend(notes)
    return result


def _routed(result: dict[str, Any], notes: list[str], outcome: str | None) -> dict[str, Any]:
    result["via"] = "editor"
    if outcome is not None:
        result["outcome"] = outcome
    if notes:
        result.setdefault("warnings", []).extend(notes)
    return result

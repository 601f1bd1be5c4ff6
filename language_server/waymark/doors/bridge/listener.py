"""In ``waymark-ls``: accept bridged calls and run them through ``execute()`` with approval.

A bridged call runs against the server's workspace, open buffers, history and editor, under
the caller's session, with approval ``editor`` whatever the server's own setting: the user
approves a terminal agent's change where they would approve the editor agent's.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import dataclasses
import hmac
import logging
import os
import socket
import struct
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote_to_bytes, urlsplit

from waymark.commands.context import CommandContext
from waymark.commands.descriptions import DECLINED
from waymark.commands.encoding import declared_for
from waymark.commands.registry import execute
from waymark.doors.bridge import registry, wire
from waymark.engine.errors import (
    Declined,
    FileTooLarge,
    InvalidParams,
    UnknownToken,
    WaymarkError,
)
from waymark.engine.text import TextFile
from waymark.store.files import digest, read_state
from waymark.store.session import Session

log = logging.getLogger(__name__)


# macOS's struct xucred (cr_version, cr_uid, cr_ngroups, cr_groups[16]), read at SOL_LOCAL (0).
_XUCRED = struct.Struct("IIh2x16I")


def _peer_uid(writer: asyncio.StreamWriter) -> int | None:
    """The connecting process's uid: SO_PEERCRED on Linux, LOCAL_PEERCRED on macOS; ``None``
    where neither exists (the private directory, the 0600 socket and the token still guard)."""
    sock = writer.get_extra_info("socket")
    if sock is None:
        return None
    if hasattr(socket, "SO_PEERCRED"):
        creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        _pid, uid, _gid = struct.unpack("3i", creds)
        return int(uid)
    local_peercred = getattr(socket, "LOCAL_PEERCRED", None)
    if local_peercred is None:
        return None
    creds = sock.getsockopt(0, local_peercred, _XUCRED.size)
    return int(_XUCRED.unpack_from(creds)[1])


# Asks the editor's own review UI about a preview; answers ``{kind, result?}`` with kind
# ``accepted`` (result: the applyPending result), ``rejected`` or ``failed``.
Review = Callable[[dict[str, Any], str], Awaitable[dict[str, Any]]]


class Listener:
    """The server's bridge socket and its registry entry."""

    def __init__(
        self,
        context: Callable[[], CommandContext | None],
        version: str,
        review: Callable[[], Review | None] = lambda: None,
    ) -> None:
        self.context = context
        self.version = version
        self.review = review
        self.entry: registry.Entry | None = None
        self.server: asyncio.AbstractServer | None = None

    async def start(self, folders: list[Path]) -> None:
        entry = registry.new_entry(folders, self.version)
        registry.withdraw(entry)
        self.server = await asyncio.start_unix_server(
            self._serve, path=entry.socket, limit=wire.LINE_LIMIT
        )
        os.chmod(entry.socket, 0o600)
        self.entry = entry
        registry.publish(entry)
        log.info("editor bridge listening for %s", ", ".join(entry.folders))

    def set_folders(self, folders: list[Path]) -> None:
        if self.entry is not None:
            real = [os.path.realpath(f) for f in folders]
            self.entry = dataclasses.replace(self.entry, folders=real)
            registry.publish(self.entry)

    def stop(self) -> None:
        if self.server is not None:
            self.server.close()
        if self.entry is not None:
            registry.withdraw(self.entry)
            self.entry = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            if _peer_uid(writer) not in (None, os.getuid()):
                return
            while line := await reader.readline():
                reply = await self._handle(wire.decode(line))
                if reply is None:
                    return
                writer.write(wire.encode(reply))
                await writer.drain()
        except (ValueError, ConnectionError, asyncio.LimitOverrunError) as exc:
            log.warning("bridge connection dropped: %s", exc)
        finally:
            writer.close()

    async def _handle(self, request: dict[str, Any]) -> dict[str, Any] | None:
        assert self.entry is not None
        token = request.get("token")
        if not isinstance(token, str) or not hmac.compare_digest(token, self.entry.token):
            log.warning("bridge request with a wrong token refused")
            return None
        if request.get("hello") is True:
            # The caller sends its call only once this is answered (doors/bridge/client.py).
            return {"ready": True}
        server_ctx = self.context()
        command = request.get("command")
        routed = wire.route(command)
        if server_ctx is None or routed is None:
            refused = InvalidParams(
                f"The editor does not take {command!r} over the bridge; run it locally.",
                {"field": "command"},
            )
            return {"result": refused.to_result(), "records": None}
        session_info = request.get("session") or {}
        session = Session.from_json(str(session_info.get("id")), session_info.get("records", "{}"))
        # The server's pending store: the editor's review UI applies the token like its own.
        ctx = dataclasses.replace(
            server_ctx,
            session=session,
            options=dataclasses.replace(server_ctx.options, approval="editor"),
            warnings=[],
        )
        origin = str(request.get("origin") or "a terminal agent")
        log.info("%s from %s", command, origin)
        params = request.get("params")
        review = self.review()
        if review is not None and routed.bridge == "review" and isinstance(params, dict):
            result = await reviewed(ctx, routed.id, params, review, origin)
        else:
            result = await execute(ctx, routed.id, params)
        return {"result": result, "records": session.to_json()}


async def reviewed(
    ctx: CommandContext, command: str, params: dict[str, Any], review: Review, origin: str
) -> dict[str, Any]:
    """Preview, let the user accept (perhaps edited), reject, and report what landed."""
    preview = await execute(ctx, command, {**params, "preview": True})
    if not preview.get("ok") or not preview.get("changed"):
        if preview.get("token"):
            _discard(ctx, preview["token"])
        return preview if not preview.get("ok") else await execute(ctx, command, params)
    decision = await review(preview, origin)
    kind = decision.get("kind")
    result = decision.get("result")
    if kind in ("accepted", "failed") and isinstance(result, dict):
        if kind == "accepted" and result.get("ok"):
            _note_landed(ctx, preview["files"], result)
        return result
    _discard(ctx, preview["token"])
    return Declined(DECLINED, {"paths": [f["path"] for f in preview["files"]]}).to_result()


def _discard(ctx: CommandContext, token: str) -> None:
    with contextlib.suppress(UnknownToken):  # the review UI may have discarded it already
        ctx.pending.take(token)


def _fs_path(uri: str) -> str | None:
    """The local path of a ``file:`` URI our own commands made (``Path.as_uri``, which quotes
    the path's bytes: any file name comes back, UTF-8 or not)."""
    parts = urlsplit(uri)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost"):
        return None
    return os.fsdecode(unquote_to_bytes(parts.path))


def _note_landed(ctx: CommandContext, files: list[dict[str, Any]], result: dict[str, Any]) -> None:
    """The agent's session learns the bytes that landed, the user's version included."""
    final: dict[str, str | None] = {}
    for file in files:
        fs_path = _fs_path(file["uri"])
        if fs_path is None:
            continue
        real = Path(os.path.realpath(fs_path))
        try:
            data = read_state(real, limit=ctx.workspace.max_file_size).data
        except FileTooLarge:
            # Not what was proposed (that fit): the session's next read meets the limit.
            continue
        ctx.session.note_write(real, None if data is None else digest(data), "editor")
        final[file["path"]] = None if data is None else _text(ctx, real, data)
    if result.get("editedByUser"):
        # The agent's next anchors must come from the user's version, not its proposal.
        result["finalContent"] = final


def _text(ctx: CommandContext, real: Path, data: bytes) -> str:
    """The file's text in its own encoding, as the agent's next read decodes it."""
    try:
        declared = declared_for(ctx, ctx.workspace.resolve(str(real)), None)
    except WaymarkError:
        declared = None
    return TextFile.decode(data, declared).text


async def start_bridge(listener: Listener, folders: list[Path]) -> None:
    """Advertise the server to terminal agents; a server without a bridge still works."""
    if not wire.SUPPORTED or os.environ.get("WAYMARK_BRIDGE", "").lower() == "off" or not folders:
        return
    try:
        await listener.start(folders)
    except (OSError, registry.UnsafeRuntimeDir) as exc:
        log.warning("editor bridge not started: %s", exc)
    else:
        atexit.register(listener.stop)

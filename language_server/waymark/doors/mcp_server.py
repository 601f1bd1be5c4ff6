"""``waymark mcp``: the model-facing tools as an MCP server over stdio.

The tools are the ones every other door publishes (same names, descriptions and input
schemas) and run the same ``execute()`` handlers against the workspace's door (see
:mod:`waymark.doors`). What the model reads is :func:`~waymark.commands.model_view.model_text`
(the same text VS Code's language-model tools return), a failure as a tool error. No tool has
an ``outputSchema``: hosts would then hand the model the structured result instead of the
text.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, BinaryIO, cast

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from waymark import __version__
from waymark.commands.model_view import model_text
from waymark.commands.registry import TOOLS, tools
from waymark.doors.bridge.client import execute_via_editor_or_local
from waymark.doors.entry import Door, open_door
from waymark.doors.wire_guard import Refused, read_line, request_id, screen

log = logging.getLogger(__name__)

INSTRUCTIONS = (
    "Waymark edits files in this workspace with per-turn history: read with "
    "waymark_read(hashes=true), edit by anchors with waymark_edit, and rewind a turn with "
    "waymark_rewind."
)


def render(tool: str, result: dict[str, Any]) -> types.CallToolResult:
    """The text the model reads for one result (:mod:`waymark.commands.model_view`)."""
    return types.CallToolResult(
        content=[_text(model_text(tool, result))], is_error=not result.get("ok")
    )


def _text(text: str) -> types.TextContent:
    if not text.isascii():
        # A file name that is not UTF-8 holds surrogate escapes (os.fsdecode), which the SDK
        # cannot send: written as \udcXX they read back, in JSON, as that same name.
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return types.TextContent(type="text", text=text)


class WaymarkMcp:
    """The tools of one workspace door."""

    def __init__(self, door: Door) -> None:
        self.door = door
        self.tools = {t["name"]: t for t in tools()}

    async def list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=t["name"], description=t["description"], input_schema=t["inputSchema"]
                )
                for t in self.tools.values()
            ]
        )

    async def call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        tool = self.tools.get(params.name)
        if tool is None:
            return render(
                params.name,
                {
                    "ok": False,
                    "error": "invalid_params",
                    "message": f"There is no tool named {params.name!r}; "
                    f"use one of {', '.join(self.tools)}.",
                },
            )
        result = await self.execute(tool["command"], params.arguments or {})
        return render(params.name, result)

    async def execute(self, command: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The one place tool calls reach the command handlers."""
        # Another door (a hook, a terminal) may have read or written since our last call.
        self.door.reload()
        # An editor running Waymark on this workspace reviews the call (docs/editor-bridge.md).
        result = await execute_via_editor_or_local(
            self.door.ctx, command, arguments, origin="waymark mcp"
        )
        self.door.save()
        return result

    def server(self) -> Server[Any]:
        return Server(
            "waymark",
            version=__version__,
            instructions=INSTRUCTIONS,
            on_list_tools=self.list_tools,
            on_call_tool=self.call_tool,
        )


class GuardedStdin:
    """The client's lines for the SDK's stdio transport, less those it would drop without an
    answer: a message nested or sized past the limits of :mod:`waymark.doors.wire_guard` (as
    the LSP door refuses them), one that is not JSON, or not a JSON-RPC message, is answered
    here with a JSON-RPC error and one line on stderr, and the next line is read."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self.attached = anyio.Event()
        self.send: Callable[[SessionMessage], Awaitable[None]] | None = None

    def attach(self, send: Callable[[SessionMessage], Awaitable[None]]) -> None:
        """Where answers go: the transport's own writer, so no two writes tear a line."""
        self.send = send
        self.attached.set()

    def __aiter__(self) -> GuardedStdin:
        return self

    async def __anext__(self) -> str:
        while True:
            message = await anyio.to_thread.run_sync(self._next)
            if isinstance(message, str):
                return message
            if message is None:
                raise StopAsyncIteration
            await self._answer(*message)

    def _next(self) -> str | tuple[int, str, object] | None:
        """The next line the SDK can parse, or the error that answers it (None: the end)."""
        while True:
            line = read_line(self.stream)
            if isinstance(line, Refused):
                return types.INVALID_REQUEST, line.reason, line.request_id
            if not line:
                return None
            if line.strip():
                break
        refused = screen(line)
        if refused is not None:
            return types.INVALID_REQUEST, refused.reason, refused.request_id
        text = line.decode("utf-8", "replace")
        try:
            types.jsonrpc_message_adapter.validate_json(text, by_name=False)
        except ValueError:
            try:
                parsed = json.loads(text)
            except ValueError:
                return types.PARSE_ERROR, "the message is not JSON", None
            try:
                json.dumps(parsed, ensure_ascii=False).encode("utf-8")
            except UnicodeEncodeError:
                # Valid JSON to Python, not to the SDK's parser: a \ud800-style escape alone.
                return (
                    types.INVALID_PARAMS,
                    "the message holds a lone surrogate escape (such as \\ud800), which names "
                    "no character; send text and file names as valid Unicode",
                    request_id(line),
                )
            return types.INVALID_REQUEST, "the message is not a JSON-RPC message", request_id(line)
        return text

    async def _answer(self, code: int, reason: str, found_id: object) -> None:
        answer_id = found_id if isinstance(found_id, int | str) else None
        log.warning(
            "waymark mcp refused a message from the client (%s): answered %d to id %s",
            reason,
            code,
            json.dumps(answer_id),
        )
        if code == types.PARSE_ERROR:
            text = (
                f"Waymark could not parse the message: {reason}; send one JSON-RPC message "
                "per line."
            )
        else:
            text = f"Waymark refused the request: {reason}."
        error = types.JSONRPCError(
            jsonrpc="2.0", id=answer_id, error=types.ErrorData(code=code, message=text)
        )
        await self.attached.wait()
        assert self.send is not None
        await self.send(SessionMessage(error))


def _wire_stdin() -> BinaryIO:
    """The client's stdin on a descriptor of its own, and fd 0 on the null device, as the SDK
    does for a stdin it reads itself: nothing else in the process (a git the history runs)
    can take the client's bytes. Not restored: the process ends with the server."""
    wire = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    return os.fdopen(wire, "rb")


async def serve(workspace: Path) -> None:
    """Serve the tools of ``workspace`` on stdin/stdout until the client closes them."""
    # A refusal names its next step as the tool the model calls.
    names = {command.id: name for name, command in TOOLS.items()}
    mcp = WaymarkMcp(open_door(workspace, names=names))
    server = mcp.server()
    stdin = GuardedStdin(_wire_stdin())
    async with stdio_server(stdin=cast("anyio.AsyncFile[str]", stdin)) as (
        read_stream,
        write_stream,
    ):
        stdin.attach(write_stream.send)
        await server.run(read_stream, write_stream, server.create_initialization_options())


def main(workspace: str | None) -> None:
    anyio.run(serve, Path(workspace or "."))

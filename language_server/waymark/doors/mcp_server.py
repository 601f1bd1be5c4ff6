"""``waymark mcp``: the model-facing tools as an MCP server over stdio.

The tools are the ones every other door publishes (same names, descriptions and input
schemas) and run the same ``execute()`` handlers against the workspace's door (see
:mod:`waymark.doors`). What the model reads is decided here: a rendered read for
``waymark_read``, compact JSON for everything else, and for a failure a tool error
``code: message``. No tool has an ``outputSchema``: hosts would then hand the model the
structured result instead of the text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from waymark import __version__
from waymark.commands.registry import tools
from waymark.doors.bridge.client import execute_via_editor_or_local
from waymark.doors.entry import Door, open_door

INSTRUCTIONS = (
    "Waymark edits files in this workspace with per-turn history: read with "
    "waymark_read(hashes=true), edit by anchors with waymark_edit, and rewind a turn with "
    "waymark_rewind."
)


def render(tool: str, result: dict[str, Any]) -> types.CallToolResult:
    """The text the model reads for one result."""
    if not result.get("ok"):
        text = f"{result.get('error')}: {result.get('message')}"
        if result.get("details"):
            text += "\n" + _compact(result["details"])
        return types.CallToolResult(content=[_text(text)], is_error=True)
    if tool == "waymark_read":
        text = result["text"]
        shown = result["lines"]
        if shown and shown[-1]["line"] < result["totalLines"]:
            text += (
                f"(lines {shown[0]['line']}-{shown[-1]['line']} of {result['totalLines']}; "
                f"continue with offset={shown[-1]['line'] + 1})\n"
            )
        elif not shown:
            text = f"({result['path']} has {result['totalLines']} lines; none in this range)\n"
    else:
        text = _compact({k: v for k, v in result.items() if k != "ok"})
    return types.CallToolResult(content=[_text(text)])


def _text(text: str) -> types.TextContent:
    return types.TextContent(type="text", text=text)


def _compact(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class WaymarkMcp:
    """The tools of one workspace door."""

    def __init__(self, door: Door) -> None:
        self.door = door
        self.tools = {t["name"]: t for t in tools()}
        # A refusal names its next step as the tool the model calls.
        door.ctx.names = {t["command"]: t["name"] for t in self.tools.values()}

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


async def serve(workspace: Path) -> None:
    """Serve the tools of ``workspace`` on stdin/stdout until the client closes them."""
    mcp = WaymarkMcp(open_door(workspace))
    server = mcp.server()
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def main(workspace: str | None) -> None:
    anyio.run(serve, Path(workspace or "."))

"""``waymark mcp`` driven by the MCP SDK's own client over stdio, as a host drives it."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


@asynccontextmanager
async def connect(workspace: Path, argv: list[str] | None = None) -> AsyncIterator[ClientSession]:
    """An initialized session with ``argv`` (default: this interpreter's ``waymark mcp``)."""
    argv = argv or [sys.executable, "-m", "waymark", "mcp"]
    server = StdioServerParameters(
        command=argv[0], args=argv[1:], cwd=str(workspace), env=dict(os.environ)
    )
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def call(session: ClientSession, tool: str, **arguments: Any) -> tuple[bool, str]:
    """(is_error, the text the model reads)."""
    result = await session.call_tool(tool, arguments)
    return bool(result.is_error), result.content[0].text  # type: ignore[union-attr]

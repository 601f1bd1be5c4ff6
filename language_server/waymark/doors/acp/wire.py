"""The ACP door's wire: one JSON-RPC message per line, the requests still unanswered, and the
small reads of a message the proxy needs (its params, its id as a key, a prompt's text)."""

from __future__ import annotations

import asyncio
import json
from typing import Any, NamedTuple

PARSE_ERROR = -32700
INTERNAL_ERROR = -32603


class Asked(NamedTuple):
    """A request one side sent that the other has not answered yet."""

    id: Any
    method: str
    params: dict[str, Any]


class Received(NamedTuple):
    """A parsed message and the parts of it the proxy reads first."""

    message: dict[str, Any]
    method: Any
    id: Any
    params: dict[str, Any]


class Side:
    """One peer's byte stream out: whole lines, written in the order they were sent."""

    def __init__(self, writer: asyncio.StreamWriter | None, name: str) -> None:
        self.writer = writer
        self.name = name

    async def send(self, line: bytes) -> None:
        if self.writer is None or self.writer.is_closing():
            return
        self.writer.write(line if line.endswith(b"\n") else line + b"\n")
        try:
            await self.writer.drain()
        except (ConnectionError, BrokenPipeError):
            self.writer = None

    async def message(self, message: dict[str, Any]) -> None:
        await self.send(dump(message))


def dump(message: dict[str, Any]) -> bytes:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode(
        "utf-8", "surrogateescape"
    )


def error(message_id: object, code: int, text: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": message_id, "error": {"code": code, "message": text}}


def session_update(session: str, update: dict[str, Any]) -> dict[str, Any]:
    """The notification that tells the editor ``update`` happened in ``session``."""
    return {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": session, "update": update},
    }


def parse(line: bytes) -> dict[str, Any] | None:
    try:
        message = json.loads(line)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def params_of(message: dict[str, Any]) -> dict[str, Any]:
    params = message.get("params")
    return params if isinstance(params, dict) else {}


def key(message_id: Any) -> Any:
    """Ids as dict keys: 1 and "1" are different requests."""
    return (type(message_id).__name__, message_id if isinstance(message_id, int | str) else None)


def prompt_text(prompt: object) -> str:
    """A prompt's text: its text blocks, for the turn's label."""
    if not isinstance(prompt, list):
        return ""
    return "\n".join(
        str(block.get("text") or "")
        for block in prompt
        if isinstance(block, dict) and block.get("type") == "text"
    )


async def skip_line(reader: asyncio.StreamReader, consumed: int) -> None:
    """Drop the rest of a line over the limit, a chunk at a time."""
    while True:
        try:
            await reader.readuntil(b"\n")
            return
        except asyncio.LimitOverrunError as exc:
            await reader.readexactly(exc.consumed)
        except asyncio.IncompleteReadError:
            return

"""The bridge's wire format: one JSON object per line each way, on a private Unix socket.

Handshake: ``{token, hello: true}``, answered ``{ready: true}``; the caller sends its request
only then, so a call never waits in the socket of an editor that stopped answering.
Request: ``{token, command, params, session: {id, records}, origin}``.
Reply: ``{result, records}`` — the command's result and the session's read records after it,
so the caller's session stays the one source of truth for what its agent has read.
"""

from __future__ import annotations

import json
import os
from typing import Any

from waymark.commands.registry import COMMANDS, Command
from waymark.doors.wire_guard import MAX_DEPTH, too_deep

# Unix sockets and per-user runtime dirs: POSIX only (on Windows every call runs locally).
SUPPORTED = os.name == "posix"

# A write's content travels inside one line: allow large files, not unbounded ones.
LINE_LIMIT = 256 * 1024 * 1024


def route(command: object) -> Command | None:
    """The command a terminal's call sends to the editor (its record's ``bridge`` policy), or
    ``None`` when it runs where it was made."""
    record = COMMANDS.get(command) if isinstance(command, str) else None
    return record if record is not None and record.bridge != "local" else None


def encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, ensure_ascii=False).encode("utf-8") + b"\n"


def decode(line: bytes) -> dict[str, Any]:
    # The parser recurses per level: a line nested 100,000 deep would raise RecursionError.
    if too_deep(line)[0]:
        raise ValueError(f"a bridge message may nest at most {MAX_DEPTH} levels")
    message = json.loads(line)
    if not isinstance(message, dict):
        raise ValueError("a bridge message must be a JSON object")
    return message


def outcome(result: dict[str, Any]) -> str:
    """What happened to a routed mutating call, in the words the agent reads."""
    if result.get("ok"):
        return "applied_with_user_changes" if result.get("editedByUser") else "applied"
    return "declined" if result.get("error") == "declined" else "failed"

"""Refuse JSON-RPC messages nested deeper than any Waymark request needs, with an answer.

Python's JSON parser recurses once per nesting level: a 100,000-deep message raised inside
pygls' reader and the request was never answered. :class:`NestingGuard` wraps the server's
stdin; a body nested deeper than :data:`MAX_DEPTH` is swapped for a request to
:data:`REJECTED_METHOD` with the same id, which the server answers with a JSON-RPC
``InvalidRequest`` error. Cheap on ordinary messages: a body with fewer brackets than the
limit cannot be too deep and is not scanned.
"""

from __future__ import annotations

import json
import re
from typing import BinaryIO

MAX_DEPTH = 64
REJECTED_METHOD = "waymark/rejectedMessage"

_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)
_ID_VALUE = re.compile(rb'\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*")')


def too_deep(body: bytes, limit: int = MAX_DEPTH) -> tuple[bool, object]:
    """Whether ``body`` nests deeper than ``limit``, and its top-level ``id`` (or None)."""
    if body.count(b"[") + body.count(b"{") <= limit:
        return False, None
    depth = 0
    found_id: object = None
    for match in _TOKENS.finditer(body):
        token = match.group()
        if token in (b"[", b"{"):
            depth += 1
            if depth > limit:
                return True, found_id
        elif token in (b"]", b"}"):
            depth -= 1
        elif depth == 1 and token == b'"id"' and found_id is None:
            value = _ID_VALUE.match(body, match.end())
            if value:
                found_id = json.loads(value.group(1))
    return False, None


class NestingGuard:
    """A binary stdin whose JSON-RPC bodies are checked before pygls parses them."""

    def __init__(self, stream: BinaryIO, limit: int = MAX_DEPTH) -> None:
        self.stream = stream
        self.limit = limit

    def readline(self) -> bytes:
        return self.stream.readline()

    def read(self, size: int = -1) -> bytes:
        body = self.stream.read(size)
        deep, request_id = too_deep(body, self.limit)
        if not deep:
            return body
        if request_id is None:
            # A notification (or no readable id): nothing to answer, drop it.
            return json.dumps({"jsonrpc": "2.0", "method": "$/" + REJECTED_METHOD}).encode()
        return json.dumps(
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "method": REJECTED_METHOD,
                "params": {"reason": f"the message nests deeper than {self.limit} levels"},
            }
        ).encode()

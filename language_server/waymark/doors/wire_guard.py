"""Refuse JSON-RPC messages nested deeper or larger than any Waymark request needs, with an
answer.

Python's JSON parser recurses once per nesting level: a 100,000-deep message raised inside
pygls' reader and the request was never answered; the MCP SDK dropped it without a word. A
message of gigabytes would be read whole before anything looked at it. The LSP door reads
through :class:`NestingGuard`, the MCP door through :func:`read_line` and :func:`screen`: a
body nested deeper than :data:`MAX_DEPTH`, or longer than :data:`MAX_MESSAGE_BYTES` (read
and dropped in chunks), is answered with a JSON-RPC ``InvalidRequest`` error carrying its
``id`` when one can be read. Cheap on ordinary messages: a body with fewer brackets than the
limit cannot be too deep and is not scanned.
"""

from __future__ import annotations

import json
import re
from typing import BinaryIO, NamedTuple

MAX_DEPTH = 64
# A write's content travels inside one message: allow large files, not unbounded ones (the
# bridge allows as much per line).
MAX_MESSAGE_BYTES = 256 * 1024 * 1024
REJECTED_METHOD = "waymark/rejectedMessage"

# How much of an oversized message is kept to read its id from, and the size of the reads
# that drop the rest.
_HEAD = 64 * 1024
_CHUNK = 1024 * 1024

# A string cut off by the end of the text runs to its end: then nothing inside it is taken
# for a bracket or a key.
_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*(?:"|\Z)|[\[\]{}]', re.DOTALL)
# A number followed by the end of the text may be only the start of one.
_ID_VALUE = re.compile(rb'\s*:\s*(-?[0-9]+(?=\s*[,}])|"(?:[^"\\]|\\.)*")')


class Refused(NamedTuple):
    """Why a message is answered with ``InvalidRequest`` unread, and its id (None: unknown)."""

    reason: str
    request_id: object


def request_id(body: bytes | bytearray) -> object:
    """The top-level ``id`` of a JSON-RPC message, found without parsing it (it may nest too
    deep, or be only the start of a message); None when there is none to read."""
    depth = 0
    for match in _TOKENS.finditer(body):
        token = match.group()
        if token in (b"[", b"{"):
            depth += 1
        elif token in (b"]", b"}"):
            depth -= 1
        elif depth == 1 and token == b'"id"':
            value = _ID_VALUE.match(body, match.end())
            if value:
                try:
                    return json.loads(value.group(1))
                except ValueError:
                    return None
    return None


def too_deep(body: bytes | bytearray, limit: int = MAX_DEPTH) -> tuple[bool, object]:
    """Whether ``body`` nests deeper than ``limit``, and its top-level ``id`` (or None)."""
    if body.count(b"[") + body.count(b"{") <= limit:
        return False, None
    depth = 0
    for match in _TOKENS.finditer(body):
        token = match.group()
        if token in (b"[", b"{"):
            depth += 1
            if depth > limit:
                return True, request_id(body)
        elif token in (b"]", b"}"):
            depth -= 1
    return False, None


def screen(body: bytes | bytearray, limit: int = MAX_DEPTH) -> Refused | None:
    """The refusal of a whole message no parser should see, or None."""
    deep, found_id = too_deep(body, limit)
    return Refused(f"the message nests deeper than {limit} levels", found_id) if deep else None


def _oversized(head: bytes, max_bytes: int) -> Refused:
    return Refused(f"the message is over {max_bytes} bytes", request_id(head))


def read_line(stream: BinaryIO, max_bytes: int = MAX_MESSAGE_BYTES) -> bytearray | Refused:
    """The next newline-delimited message of ``stream`` (empty at its end). One longer than
    ``max_bytes`` is read to its end in chunks and dropped: it comes back as a refusal."""
    line = bytearray()
    while not line.endswith(b"\n"):
        piece = stream.readline(_CHUNK)
        if not piece:
            break
        line += piece
        if len(line) - line.endswith(b"\n") > max_bytes:
            head = bytes(line[:_HEAD])
            del line  # what was read is not kept while the rest is read
            while piece and not piece.endswith(b"\n"):
                piece = stream.readline(_CHUNK)
            return _oversized(head, max_bytes)
    return line


class NestingGuard:
    """A binary stdin whose JSON-RPC bodies are checked before pygls parses them."""

    def __init__(
        self, stream: BinaryIO, limit: int = MAX_DEPTH, max_bytes: int = MAX_MESSAGE_BYTES
    ) -> None:
        self.stream = stream
        self.limit = limit
        self.max_bytes = max_bytes

    def readline(self) -> bytes:
        return self.stream.readline()

    def read(self, size: int = -1) -> bytes:
        if size > self.max_bytes:
            head = self.stream.read(min(size, _HEAD))
            left = size - len(head)
            while left > 0 and (dropped := self.stream.read(min(left, _CHUNK))):
                left -= len(dropped)
            return self._rejected(_oversized(head, self.max_bytes))
        body = self.stream.read(size)
        refused = screen(body, self.limit)
        return body if refused is None else self._rejected(refused)

    def _rejected(self, refused: Refused) -> bytes:
        """A stand-in the server answers with ``InvalidRequest`` (see the LSP door)."""
        if refused.request_id is None:
            # A notification (or no readable id): nothing to answer, drop it.
            return json.dumps({"jsonrpc": "2.0", "method": "$/" + REJECTED_METHOD}).encode()
        return json.dumps(
            {
                "jsonrpc": "2.0",
                "id": refused.request_id,
                "method": REJECTED_METHOD,
                "params": {"reason": refused.reason},
            }
        ).encode()

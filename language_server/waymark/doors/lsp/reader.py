"""How ``waymark-ls`` reads its stdin: a whole message per trip to a worker thread.

pygls' reader sends every ``readline`` and the body's ``read`` to its thread pool: three
trips for an ordinary message (its ``Content-Length`` line, the blank line, the body), each a
worker's wake-up and then the loop's, about 40 µs apiece on a busy machine, before any
request can start. :class:`MessageReader` reads, in one trip, everything pygls' message loop
(``pygls.io_.run_async``) will ask for next: the header lines up to the blank line that
follows a ``Content-Length``, then the body. It answers the loop's later calls from what it
read, so the loop sees the same lines and the same body in the same order.
"""

from __future__ import annotations

import asyncio
import re
from collections import deque
from collections.abc import Awaitable
from concurrent.futures import Executor
from typing import Protocol


class Stream(Protocol):
    """The two calls pygls' message loop makes of stdin."""

    def readline(self) -> bytes: ...

    def read(self, size: int) -> bytes: ...


# pygls' own test of a header line (pygls.io_.run_async), so both find the same length.
_CONTENT_LENGTH = re.compile(rb"^Content-Length: (\d+)\r\n$")


class MessageReader:
    """pygls' asynchronous reader (``readline``, ``readexactly``) over a blocking stream."""

    def __init__(self, stream: Stream, executor: Executor | None) -> None:
        self._stream = stream
        self._executor = executor
        # What the message loop will ask for next, read ahead on the worker thread. Only one
        # call is ever outstanding (the loop awaits each), so the two threads take turns.
        self._ahead: deque[bytes] = deque()

    def readline(self) -> Awaitable[bytes]:
        if self._ahead:
            return self._ready(self._ahead.popleft())
        return asyncio.get_running_loop().run_in_executor(self._executor, self._message)

    def readexactly(self, size: int) -> Awaitable[bytes]:
        if self._ahead:
            return self._ready(self._ahead.popleft())
        return asyncio.get_running_loop().run_in_executor(self._executor, self._stream.read, size)

    def _message(self) -> bytes:
        """The next line, with the rest of its message queued: the header lines as the loop
        reads them (it reads the body at the first blank line once it has a length), the
        body, or the empty line of the end of the stream."""
        pieces: list[bytes] = []
        length = 0
        while True:
            line = self._stream.readline()
            pieces.append(line)
            if not line:
                break
            if not length and (match := _CONTENT_LENGTH.fullmatch(line)):
                length = int(match.group(1))
            if length and not line.strip():
                pieces.append(self._stream.read(length))
                break
        self._ahead.extend(pieces[1:])
        return pieces[0]

    @staticmethod
    def _ready(value: bytes) -> asyncio.Future[bytes]:
        done = asyncio.get_running_loop().create_future()
        done.set_result(value)
        return done

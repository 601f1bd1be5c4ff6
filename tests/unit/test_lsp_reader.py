"""``waymark-ls`` reads each message of its stdin in one trip to a worker thread, and the
message loop sees exactly what pygls' own reader would have given it."""

from __future__ import annotations

import asyncio
import io
import json
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from pygls.io_ import StdinAsyncReader, run_async

from waymark.doors.lsp.reader import MessageReader
from waymark.doors.lsp.server import create_server


class CountingPool(ThreadPoolExecutor):
    """A thread pool that counts the calls sent to it."""

    def __init__(self) -> None:
        super().__init__(max_workers=2)
        self.calls = 0

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.calls += 1
        return super().submit(fn, *args, **kwargs)


class Answers(io.BytesIO):
    """A server's stdout, kept readable after the server closes it at exit."""

    def __init__(self) -> None:
        super().__init__()
        self.answered = threading.Event()

    def write(self, data: Any) -> int:
        written = super().write(data)
        if b'"id": 2' in data:
            self.answered.set()
        return written

    def close(self) -> None:
        pass

    def answers(self) -> dict[int, Any]:
        out = io.BytesIO(self.getvalue())
        found = {}
        while header := out.readline():
            length = int(header.split(b":")[1])
            while out.readline() != b"\r\n":  # the other headers
                pass
            answer = json.loads(out.read(length))
            if "id" in answer:
                found[answer["id"]] = answer
        return found


def frame(message: dict[str, Any], headers: bytes = b"") -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n%s\r\n%s" % (len(body), headers, body)


class Recorder:
    """The two calls pygls' message loop makes of its protocol."""

    def __init__(self) -> None:
        self.handled: list[Any] = []

    def structure_message(self, data: Any) -> Any:
        return data

    def handle_message(self, message: Any) -> None:
        self.handled.append(message)


def loop_over(reader_for: Any, data: bytes) -> tuple[list[Any], int]:
    """What pygls' message loop hands its protocol from ``data``, and the pool's calls."""
    pool = CountingPool()
    protocol = Recorder()
    try:
        reader = reader_for(io.BufferedReader(io.BytesIO(data)), pool)
        asyncio.run(run_async(threading.Event(), reader, protocol))  # type: ignore[arg-type]
    finally:
        pool.shutdown()
    return protocol.handled, pool.calls


# Each stream, and the trips to the pool that read it: one per message (a body that does not
# parse is still a message read), one more that meets the end of the stream.
STREAMS = {
    "plain": (frame({"id": 1, "method": "a"}) + frame({"method": "b", "params": {"x": "é"}}), 3),
    "another header": (frame({"id": 2}, b"Content-Type: application/vscode-jsonrpc\r\n"), 2),
    "blank lines between messages": (
        b"\r\n\r\n" + frame({"id": 3}) + b"\r\n" + frame({"id": 4}),
        3,
    ),
    "a header cut off by the end": (frame({"id": 5}) + b"Content-Length: 9\r\n", 2),
    "a body cut off by the end": (
        frame({"id": 6}) + b'Content-Length: 90\r\n\r\n{"id": 7',
        3,
    ),
    "a line without a length": (b"Content-Type: x\r\n\r\n" + frame({"id": 8}), 2),
}


@pytest.mark.parametrize(("data", "trips"), STREAMS.values(), ids=STREAMS.keys())
def test_the_message_loop_gets_what_pygls_reader_gives_it_in_one_trip_per_message(
    data: bytes, trips: int
) -> None:
    expected, their_calls = loop_over(StdinAsyncReader, data)
    handled, calls = loop_over(MessageReader, data)
    assert handled == expected
    assert calls == trips
    assert their_calls > calls


def test_the_server_reads_each_message_in_one_trip(tmp_path: Path) -> None:
    root = tmp_path / "workspace"
    root.mkdir()
    initialize = {
        "processId": None,
        "rootUri": root.as_uri(),
        "capabilities": {},
        "initializationOptions": {"historyDir": str(tmp_path / "history")},
    }
    command = {"command": "waymark.discardPending", "arguments": [{"token": "none"}]}
    first = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize},
        {"jsonrpc": "2.0", "id": 2, "method": "workspace/executeCommand", "params": command},
    ]
    last = [{"jsonrpc": "2.0", "id": 3, "method": "shutdown"}, {"jsonrpc": "2.0", "method": "exit"}]
    server = create_server()
    pool = CountingPool()
    server._thread_pool = pool
    stdout = Answers()
    read_end, write_end = os.pipe()
    with open(read_end, "rb") as stdin, open(write_end, "wb", buffering=0) as client:
        running = threading.Thread(target=server.start_io, args=(stdin, stdout), daemon=True)
        running.start()
        client.write(b"".join(map(frame, first)))
        # pygls cancels what is in flight at shutdown: it comes once the command is answered.
        assert stdout.answered.wait(30)
        client.write(b"".join(map(frame, last)))
        running.join(30)
    assert not running.is_alive()
    assert pool.calls == len(first) + len(last)  # pygls' reader: three for each
    answers = stdout.answers()
    assert sorted(answers) == [1, 2, 3]
    assert answers[2]["result"]["error"] == "unknown_token"
    assert answers[3] == {"jsonrpc": "2.0", "id": 3, "result": None}

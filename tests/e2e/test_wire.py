"""What the real ``waymark-ls`` writes on stdout: whole messages, one after another.

A client reads frames (``Content-Length`` then the body); one byte of another message inside
a body and it can read nothing more. The watch logs from its own thread while the loop may be
writing a long response, and with ``PYTHONUNBUFFERED=1`` (set in many containers and IDE
terminals) stdout is a raw file: the two writes used to interleave once the pipe was full.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import IO, Any

from waymark.doors.lsp.watcher import QUIET_S, READY

LINES = 4000  # a read with hashes of these is ~400 kB: many times what a pipe holds
RECORDED = "recorded changes by other programs"


class Frames:
    """The server's messages, read on a thread one at a time as :meth:`until` asks for them
    (so the pipe fills when nobody asks); a frame that does not parse ends the stream."""

    def __init__(self, stdout: IO[bytes]) -> None:
        self.messages: queue.Queue[dict[str, Any] | str] = queue.Queue()
        self.wanted = threading.Event()
        threading.Thread(target=self._read, args=(stdout,), daemon=True).start()

    def _read(self, stdout: IO[bytes]) -> None:
        while True:
            self.wanted.wait()
            self.wanted.clear()
            length = None
            while (line := stdout.readline()) not in (b"\r\n", b""):
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            if line == b"" or length is None:
                self.messages.put("the stream ended" if line == b"" else "a frame lost its header")
                return
            body = stdout.read(length)
            try:
                self.messages.put(json.loads(body))
            except ValueError:
                self.messages.put(f"a frame's body is not JSON: …{body[-120:]!r}")
                return

    def until(self, wanted: Any, timeout: float = 30) -> list[dict[str, Any]]:
        """Messages up to the first for which ``wanted`` holds; fails on a broken frame."""
        seen: list[dict[str, Any]] = []
        deadline = time.monotonic() + timeout
        while True:
            self.wanted.set()
            message = self.messages.get(timeout=max(0.1, deadline - time.monotonic()))
            assert not isinstance(message, str), message
            seen.append(message)
            if wanted(message):
                return seen


def _send(stdin: IO[bytes], message: dict[str, Any]) -> None:
    body = json.dumps(message).encode()
    stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    stdin.flush()


def _logged(text: str) -> Any:
    return lambda m: m.get("method") == "window/logMessage" and text in m["params"]["message"]


def test_a_notification_never_lands_inside_a_long_response(tmp_path: Path) -> None:
    root = tmp_path / "workspace"
    root.mkdir()
    (root / "big.py").write_text("".join(f"value_{i:05d} = {i}\n" for i in range(LINES)))
    server = shutil.which("waymark-ls")
    assert server is not None
    proc = subprocess.Popen(
        [server],
        cwd=root,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        frames = Frames(proc.stdout)
        options = {"sessionId": "wire", "historyDir": str(tmp_path / "history")}
        _send(
            proc.stdin,
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "processId": os.getpid(),
                    "rootUri": root.as_uri(),
                    "capabilities": {},
                    "initializationOptions": options,
                },
            },
        )
        _send(proc.stdin, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
        frames.until(_logged(READY))
        for call in range(1, 3):
            read = {"command": "waymark.read", "arguments": [{"path": "big.py", "hashes": True}]}
            _send(
                proc.stdin,
                {
                    "jsonrpc": "2.0",
                    "id": call,
                    "method": "workspace/executeCommand",
                    "params": read,
                },
            )
            # Unread, the response fills the pipe and its write waits; then another program
            # changes a file and, once the workspace is quiet, the watch logs it from its thread.
            time.sleep(0.5)
            (root / f"other-{call}.txt").write_text("changed by another program\n")
            time.sleep(QUIET_S + 2)
            messages = frames.until(lambda m, call=call: m.get("id") == call)
            assert len(messages[-1]["result"]["lines"]) == LINES
            if not any(_logged(RECORDED)(m) for m in messages):
                frames.until(_logged(RECORDED))
    finally:
        proc.kill()
        proc.wait(10)

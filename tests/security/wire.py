"""A raw JSON-RPC client over a real ``waymark-ls`` process's stdio (hand-made frames)."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


class Wire:
    def __init__(self, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "waymark", "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, **(env or {})},
        )
        self.buffer = b""
        self.next_id = 0

    def send_raw(self, body: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def send(self, method: str, params: Any, *, request: bool = True) -> int | None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            self.next_id += 1
            message["id"] = self.next_id
        self.send_raw(json.dumps(message).encode())
        return self.next_id if request else None

    def response(self, request_id: int, timeout: float = 30) -> dict[str, Any]:
        """The response to ``request_id``; answers the server's own requests with null."""
        deadline = time.monotonic() + timeout
        while True:
            message = self._message(deadline)
            if message.get("id") == request_id and "method" not in message:
                return message
            if "method" in message and "id" in message:
                reply = {"jsonrpc": "2.0", "id": message["id"], "result": None}
                self.send_raw(json.dumps(reply).encode())

    def call(self, method: str, params: Any, timeout: float = 30) -> dict[str, Any]:
        request_id = self.send(method, params)
        assert request_id is not None
        return self.response(request_id, timeout)

    def command(self, command: str, params: dict[str, Any]) -> dict[str, Any]:
        answer = self.call("workspace/executeCommand", {"command": command, "arguments": [params]})
        assert "result" in answer, answer
        result: dict[str, Any] = answer["result"]
        return result

    def initialize(self, root: Path, options: dict[str, Any]) -> dict[str, Any]:
        answer = self.call(
            "initialize",
            {
                "processId": None,
                "rootUri": root.as_uri(),
                "capabilities": {},
                "workspaceFolders": [{"uri": root.as_uri(), "name": "ws"}],
                "initializationOptions": options,
            },
        )
        self.send("initialized", {}, request=False)
        return answer

    def _message(self, deadline: float) -> dict[str, Any]:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while True:
            head, sep, rest = self.buffer.partition(b"\r\n\r\n")
            if sep:
                length = int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0])
                if len(rest) >= length:
                    self.buffer = rest[length:]
                    message: dict[str, Any] = json.loads(rest[:length])
                    return message
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError("waymark-ls did not answer in time")
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise EOFError("waymark-ls exited")
            self.buffer += chunk

    def close(self) -> None:
        try:
            self.call("shutdown", None, timeout=10)
            self.send("exit", None, request=False)
            self.proc.wait(timeout=10)
        except (TimeoutError, EOFError, BrokenPipeError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait(timeout=10)

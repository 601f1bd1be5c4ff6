"""An editor's end of ``waymark acp``: raw lines in and out, read on a thread, every wait
bounded; the proxy stopped by its PID."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

FAKE_AGENT = Path(__file__).with_name("fake_agent.py")
WAIT_S = 30


class Editor:
    def __init__(self, agent: list[str], env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            ["waymark", "acp", "--", *agent],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})},
            start_new_session=True,
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.seen: list[bytes] = []  # every line read, in order
        self.stderr = b""
        threading.Thread(target=self._read, daemon=True).start()
        self._err = threading.Thread(target=self._read_err, daemon=True)
        self._err.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(b"")

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        self.stderr = self.proc.stderr.read()

    def send_raw(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_raw(json.dumps(message).encode())

    def next_line(self) -> bytes:
        line = self.lines.get(timeout=WAIT_S)
        assert line, f"the proxy closed its output; stderr: {self.stderr.decode()}"
        self.seen.append(line)
        return line

    def until(self, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """Read (answering the agent's fs/write_text_file like an editor) until a match."""
        while True:
            line = self.next_line()
            message = json.loads(line)
            if wanted(message):
                return message
            if message.get("method") == "fs/write_text_file":
                params = message["params"]
                Path(params["path"]).write_text(params["content"])
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})

    def answer(self, message_id: Any) -> dict[str, Any]:
        return self.until(lambda m: m.get("id") == message_id and "method" not in m)

    def call(self, message_id: Any, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.send({"jsonrpc": "2.0", "id": message_id, "method": method, "params": params})
        return self.answer(message_id)

    def start(self, *cwds: Path) -> list[str]:
        self.call(0, "initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        return [
            self.call(f"new-{i}", "session/new", {"cwd": str(cwd), "mcpServers": []})["result"][
                "sessionId"
            ]
            for i, cwd in enumerate(cwds)
        ]

    def prompt(self, message_id: Any, session: str, text: str) -> tuple[str, dict[str, Any]]:
        """The text the editor was shown for a prompt, and the prompt's answer."""
        self.send(
            {
                "jsonrpc": "2.0",
                "id": message_id,
                "method": "session/prompt",
                "params": {"sessionId": session, "prompt": [{"type": "text", "text": text}]},
            }
        )
        shown = []
        while True:
            message = self.until(
                lambda m: m.get("id") == message_id or m.get("method") == "session/update"
            )
            if message.get("id") == message_id:
                return "".join(shown), message
            update = message["params"]["update"]
            if update.get("sessionUpdate") == "agent_message_chunk":
                shown.append(update["content"]["text"])

    def close(self) -> int:
        """Close stdin as an editor quitting does; the proxy's exit status."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.wait()

    def wait(self) -> int:
        try:
            return self.proc.wait(timeout=WAIT_S)
        finally:
            self.stop()
            # Its stderr is read to the end before a test looks at it.
            self._err.join(timeout=WAIT_S)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=WAIT_S)


def fake_agent() -> list[str]:
    return [sys.executable, str(FAKE_AGENT)]


def agent_log(path: Path) -> list[str]:
    """What the fake agent received (``<``) and sent (``>``), each line as it was."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]

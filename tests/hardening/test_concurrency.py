"""Several processes at once: a frozen editor on the bridge, several ``waymark mcp`` of one
workspace.

The editor is a real ``waymark serve`` process driven over stdio by a bare LSP client that
never answers ``workspace/applyEdit`` (a user who does not review); freezing it is
``SIGSTOP``. The agents are the real ``waymark`` CLI and ``waymark mcp`` (over the MCP SDK
client), each bounded by a timeout.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest
from bench.concurrency_soak import ROOT, mcp_soak
from mcp import ClientSession, StdioServerParameters, stdio_client

from waymark.doors.bridge.client import review_timeout

pytestmark = pytest.mark.timeout(180)

FROZEN_BOUND_S = 15.0  # the CLI or MCP call's start-up, plus the bridge's short timeouts


class LspEditor:
    """A real ``waymark serve`` on ``root`` whose client never answers the server's requests."""

    def __init__(self, root: Path, env: dict[str, str], log: Path) -> None:
        self.root = root
        self.log = log.open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "waymark", "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            env=env,
        )
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.asked: list[str] = []
        assert self.process.stdout is not None
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()

    @property
    def pid(self) -> int:
        return self.process.pid

    def _read(self, out: IO[bytes]) -> None:
        while True:
            header = b""
            while not header.endswith(b"\r\n\r\n"):
                byte = out.read(1)
                if not byte:
                    return
                header += byte
            length = next(
                int(line.split(b":")[1])
                for line in header.split(b"\r\n")
                if line.lower().startswith(b"content-length")
            )
            message = json.loads(out.read(length))
            if "method" in message and "id" in message:
                self.asked.append(message["method"])
            self.messages.put(message)

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def initialize(self, runtime: Path, history: Path) -> None:
        uri = self.root.as_uri()
        self.send(
            {
                "id": 1,
                "method": "initialize",
                "params": {
                    "processId": os.getpid(),
                    "rootUri": uri,
                    "workspaceFolders": [{"uri": uri, "name": "ws"}],
                    "capabilities": {"workspace": {"applyEdit": True}},
                    "initializationOptions": {"historyDir": str(history), "approval": "editor"},
                },
            }
        )
        deadline = time.monotonic() + 60
        while self.messages.get(timeout=deadline - time.monotonic()).get("id") != 1:
            pass
        self.send({"method": "initialized", "params": {}})
        while time.monotonic() < deadline:
            for entry in runtime.glob("ls-*.json"):
                if json.loads(entry.read_text())["folders"] == [str(self.root)]:
                    return
            time.sleep(0.1)
        pytest.fail(f"the server on {self.root} never advertised its bridge")

    def stop(self) -> None:
        if self.process.poll() is None:
            os.kill(self.pid, signal.SIGCONT)
            os.kill(self.pid, signal.SIGKILL)
        self.process.wait(timeout=30)
        self.log.close()


@pytest.fixture
def bridge(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str], LspEditor]]:
    """A workspace, the environment of its agents, and the editor that has it open."""
    # Unix socket paths are short (108 bytes): the runtime dir lives right under /tmp.
    runtime = Path(tempfile.mkdtemp(prefix="wm-conc-"))
    root = tmp_path / "ws"
    root.mkdir()
    env = {**os.environ, "WAYMARK_RUNTIME_DIR": str(runtime)}
    env.pop("WAYMARK_BRIDGE", None)
    editor = LspEditor(root, env, tmp_path / "server.log")
    try:
        editor.initialize(runtime, tmp_path / "editor-history")
        yield root, env, editor
    finally:
        editor.stop()
        shutil.rmtree(runtime, ignore_errors=True)


def timed_cli(root: Path, env: dict[str, str], *args: str) -> tuple[float, dict[str, Any]]:
    """Seconds taken and the result of ``waymark VERB … --json`` in ``root``."""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "waymark", *args, "--root", str(root), "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return time.monotonic() - started, result


async def timed_tool(session: ClientSession, tool: str, **arguments: Any) -> tuple[float, str]:
    """Seconds taken and the text the model reads, prefixed ``error `` for a tool error."""
    started = time.monotonic()
    result = await session.call_tool(tool, arguments)
    text = result.content[0].text  # type: ignore[union-attr]
    return time.monotonic() - started, ("error " if result.is_error else "") + text


def mcp_server(root: Path, env: dict[str, str]) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "waymark", "mcp"], cwd=str(root), env=env
    )


# 12. A frozen editor.


async def test_a_frozen_editor_answers_reads_here_and_refuses_changes_at_once(
    bridge: tuple[Path, dict[str, str], LspEditor],
) -> None:
    root, env, editor = bridge
    path = root / "f.txt"
    path.write_bytes(b"old\n")
    os.kill(editor.pid, signal.SIGSTOP)

    seconds, read = timed_cli(root, env, "read", "f.txt")
    assert seconds < FROZEN_BOUND_S
    assert (read["ok"], read["via"], [line["text"] for line in read["lines"]]) == (
        True,
        "local",
        ["old"],
    )
    assert any(f"pid {editor.pid}" in w and "did not answer" in w for w in read["warnings"])

    seconds, replace = timed_cli(root, env, "replace", "f.txt", "old", "new")
    assert seconds < FROZEN_BOUND_S
    assert (replace["ok"], replace["error"], replace["details"]["errno"]) == (
        False,
        "io_error",
        "ETIMEDOUT",
    )
    assert replace["message"].startswith(
        f"The editor that has this workspace open (pid {editor.pid})"
    )
    assert "nothing was written" in replace["message"]
    assert path.read_bytes() == b"old\n"

    async with stdio_client(mcp_server(root, env)) as (r, w), ClientSession(r, w) as session:
        await session.initialize()
        seconds, text = await timed_tool(session, "waymark_read", path="f.txt")
        assert (seconds < FROZEN_BOUND_S, text) == (True, "     1\told\n")
        seconds, text = await timed_tool(session, "waymark_write", path="f.txt", content="mcp\n")
        assert seconds < FROZEN_BOUND_S
        assert text.startswith(
            f"error io_error: The editor that has this workspace open (pid {editor.pid})"
        )
    assert path.read_bytes() == b"old\n"

    # Thawed, the editor finds no change to run: the refused calls were never sent to it.
    os.kill(editor.pid, signal.SIGCONT)
    time.sleep(2)
    assert path.read_bytes() == b"old\n"
    assert "workspace/applyEdit" not in editor.asked
    seconds, read = timed_cli(root, env, "read", "f.txt")
    assert (read["via"], read.get("warnings", [])) == ("editor", [])


async def test_a_change_nobody_reviews_times_out_and_is_not_run_again_here(
    bridge: tuple[Path, dict[str, str], LspEditor],
) -> None:
    root, env, editor = bridge
    env = {**env, "WAYMARK_REVIEW_TIMEOUT": "3"}
    path = root / "f.txt"
    path.write_bytes(b"old\n")
    assert timed_cli(root, env, "read", "f.txt")[1]["via"] == "editor"

    seconds, replace = timed_cli(root, env, "replace", "f.txt", "old", "new")
    assert 3 <= seconds < FROZEN_BOUND_S
    assert (replace["ok"], replace["error"], replace["details"]["errno"]) == (
        False,
        "io_error",
        "ETIMEDOUT",
    )
    assert replace["message"] == (
        f"The editor that has this workspace open (pid {editor.pid}) did not answer within 3 s; "
        "the change may still appear there for review. Check the editor, then read the file "
        "again before retrying."
    )
    assert editor.asked.count("workspace/applyEdit") == 1
    assert path.read_bytes() == b"old\n"


def test_a_bad_review_timeout_is_reported_and_the_default_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WAYMARK_REVIEW_TIMEOUT", "soon")
    assert review_timeout() == (
        600.0,
        "WAYMARK_REVIEW_TIMEOUT='soon' is not a number of seconds above 0; using 600.",
    )
    monkeypatch.setenv("WAYMARK_REVIEW_TIMEOUT", "2.5")
    assert review_timeout() == (2.5, None)


# 17. Several `waymark mcp` processes in one workspace.


def test_two_mcp_processes_refuse_no_correct_call_and_lose_no_edit() -> None:
    figures = mcp_soak(ROOT, workers=2, ops=50, seed=17)
    assert (figures["lost"], figures["spurious_by_code"]) == (0, {}), figures


async def test_a_change_by_another_mcp_process_still_needs_a_fresh_read(workspace: Path) -> None:
    env = {**os.environ, "WAYMARK_BRIDGE": "off"}
    path = workspace / "shared.txt"
    path.write_bytes(b"one\ntwo\n")
    async with (
        stdio_client(mcp_server(workspace, env)) as (ra, wa),
        ClientSession(ra, wa) as a,
        stdio_client(mcp_server(workspace, env)) as (rb, wb),
        ClientSession(rb, wb) as b,
    ):
        await a.initialize()
        await b.initialize()
        await timed_tool(a, "waymark_read", path="shared.txt")
        await timed_tool(b, "waymark_read", path="shared.txt")
        _, text = await timed_tool(
            b, "waymark_replace", path="shared.txt", old_string="one", new_string="ONE"
        )
        assert not text.startswith("error"), text
        _, text = await timed_tool(
            a, "waymark_replace", path="shared.txt", old_string="two", new_string="TWO"
        )
        assert text.startswith("error file_changed_since_read: shared.txt changed since"), text
        assert path.read_bytes() == b"ONE\ntwo\n"
        # Its own fresh read is what counts.
        await timed_tool(a, "waymark_read", path="shared.txt")
        _, text = await timed_tool(
            a, "waymark_replace", path="shared.txt", old_string="two", new_string="TWO"
        )
        assert not text.startswith("error"), text
    assert path.read_bytes() == b"ONE\nTWO\n"

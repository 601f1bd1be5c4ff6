"""``waymark mcp`` side by side with a minimal MCP server on the same SDK (mcp 2.3.0).

- start-up: process spawn to the ``initialize`` answer read back (stdio, raw JSON-RPC);
- a read→edit round trip in a live session: ``waymark_read(hashes=true)`` then an anchored
  ``waymark_edit`` on a small file, against two calls of the minimal server's echo tool.

Both servers run the SDK's low-level ``Server`` over stdio, so the ratio is what Waymark adds
(its imports, opening the workspace's history, the edit itself).

    python bench/mcp_bench.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for bench.goals when run as a script
from bench.goals import Goal

MINIMAL = """
import anyio, mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[types.Tool(name="echo", input_schema={"type": "object"})])

async def call_tool(ctx, params):
    text = str(params.arguments)
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

async def main():
    server = Server("minimal", on_list_tools=list_tools, on_call_tool=call_tool)
    async with stdio_server() as (r, w):
        await server.run(r, w, server.create_initialization_options())

anyio.run(main)
"""

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}


class Session:
    """One server process spoken to with newline-delimited JSON-RPC."""

    def __init__(self, command: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            command,
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.next_id = 1

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def answer(self, wanted: int) -> dict[str, Any]:
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("the server closed its output")
            message: dict[str, Any] = json.loads(line)
            if message.get("id") == wanted:
                return message

    def initialize(self) -> float:
        """Seconds from spawn to the initialize answer."""
        self.send(INITIALIZE)
        self.answer(0)
        elapsed = time.perf_counter() - self.started
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return elapsed

    def call(self, tool: str, arguments: dict[str, Any]) -> str:
        self.next_id += 1
        self.send(
            {
                "jsonrpc": "2.0",
                "id": self.next_id,
                "method": "tools/call",
                "params": {"name": tool, "arguments": arguments},
            }
        )
        result = self.answer(self.next_id)["result"]
        if result.get("isError"):
            raise RuntimeError(result["content"][0]["text"])
        text: str = result["content"][0]["text"]
        return text

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _waymark(ws: Path, env: dict[str, str]) -> Session:
    return Session([sys.executable, "-m", "waymark", "mcp"], ws, env)


def _minimal(ws: Path, env: dict[str, str]) -> Session:
    return Session([sys.executable, "-c", MINIMAL], ws, env)


def _read_edit(session: Session, path: str, n: int) -> None:
    text = session.call("waymark_read", {"path": path, "hashes": True})
    anchor = re.search(r"^2#([0-9a-z.]+)~?\|", text, re.M)
    assert anchor, text
    operation = {"op": "replace_line", "hash": anchor.group(1), "content": f"value = {n}"}
    session.call("waymark_edit", {"path": path, "operations": [operation]})


def figures(runs: int = 7) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="mcp-bench-") as tmp:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        env = {**os.environ, "XDG_STATE_HOME": str(Path(tmp) / "state")}
        target = ws / "m.py"
        target.write_text("def f():\n    value = 0\n    return value\n" + "# pad\n" * 200)

        start, start_base = [], []
        for _ in range(runs):
            for make, out in ((_waymark, start), (_minimal, start_base)):
                session = make(ws, env)
                out.append(session.initialize())
                session.close()

        trip, trip_base = [], []
        waymark, minimal = _waymark(ws, env), _minimal(ws, env)
        waymark.initialize()
        minimal.initialize()
        _read_edit(waymark, "m.py", -1)  # warm: the history exists, the file is tracked
        for n in range(runs * 3):
            begin = time.perf_counter()
            _read_edit(waymark, "m.py", n)
            trip.append(time.perf_counter() - begin)
            begin = time.perf_counter()
            minimal.call("echo", {"path": "m.py", "hashes": True})
            minimal.call("echo", {"path": "m.py", "operations": []})
            trip_base.append(time.perf_counter() - begin)
        waymark.close()
        minimal.close()
    return [
        {
            "name": "waymark mcp start-up to initialize answered",
            "runs": start,
            "baseline": "minimal MCP server on the same SDK (low-level Server, one tool)",
            "baseline_runs": start_base,
            "goals": [Goal("ratio", "≤", 1.1, "×")],
        },
        {
            "name": "MCP read→edit round trip (read with hashes + anchored edit, 200 lines)",
            "runs": trip,
            "baseline": "two tools/call of the minimal server's echo tool",
            "baseline_runs": trip_base,
            "goals": [Goal("p50", "≤", 50, "ms")],
        },
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    for fig in figures(parser.parse_args().runs):
        runs, base = sorted(fig["runs"]), sorted(fig["baseline_runs"])
        median, base_median = runs[len(runs) // 2], base[len(base) // 2]
        print(
            f"{fig['name']}: {median * 1e3:.1f} ms vs {base_median * 1e3:.1f} ms "
            f"= {median / base_median:.2f}×"
        )


if __name__ == "__main__":
    main()

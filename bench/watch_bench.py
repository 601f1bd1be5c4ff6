"""The language server's watch on a 10,000-file workspace (issue 39 §3).

For a git work tree and a folder without git, each of ``--files`` small files in 100
directories, against the real ``waymark-ls``: spawn → ``initialize`` answered (start-up,
which must not wait for the watch), spawn → the watch's first scan and copies done (in the
background), the server's idle CPU and RSS over ``--idle`` seconds with the watch on (and,
for comparison, with ``watch: false``), and the slowest ``waymark.turns`` answer while
another process writes 2,000 files.

    python bench/watch_bench.py [--files 10000] [--idle 20]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from waymark.doors.lsp.watcher import FILLED, READY


def make_workspace(root: Path, files: int, git: bool) -> None:
    for i in range(files):
        directory = root / f"d{i % 100:02d}"
        directory.mkdir(parents=True, exist_ok=True)
        (directory / f"f{i}.txt").write_text(f"file {i}\n" * 5)
    if git:
        run = {"cwd": root, "check": True, "capture_output": True}
        subprocess.run(["git", "init", "-q"], **run)  # type: ignore[call-overload]
        subprocess.run(["git", "add", "-A"], **run)  # type: ignore[call-overload]
        subprocess.run(  # type: ignore[call-overload]
            ["git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "x"], **run
        )


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def measure(root: Path, history: Path, idle: float, watch: bool) -> dict[str, Any]:
    client = LanguageClient("watch-bench", "1")
    logs: list[tuple[float, str]] = []

    @client.feature(types.WINDOW_LOG_MESSAGE)
    def logged(params: types.LogMessageParams) -> None:
        logs.append((time.perf_counter(), params.message))

    start = time.perf_counter()
    await client.start_io(sys.executable, "-m", "waymark", "serve")
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
            initialization_options={"historyDir": str(history), "watch": watch},
        )
    )
    out: dict[str, Any] = {"initialize": time.perf_counter() - start}
    client.initialized(types.InitializedParams())
    pid = client._server.pid  # type: ignore[attr-defined]
    if watch:
        while not any(READY in m for _, m in logs):
            await asyncio.sleep(0.05)
        out["ready"] = next(t for t, m in logs if READY in m) - start
        deadline = time.perf_counter() + 60
        while not any(FILLED in m for _, m in logs) and time.perf_counter() < deadline:
            await asyncio.sleep(0.05)
        filled = [t for t, m in logs if FILLED in m]
        if filled:
            out["filled"] = filled[0] - start
    await asyncio.sleep(2)
    cpu0, t0 = cpu_seconds(pid), time.perf_counter()
    await asyncio.sleep(idle)
    out["idle_cpu"] = (cpu_seconds(pid) - cpu0) / (time.perf_counter() - t0)
    out["rss"] = rss_mb(pid)
    if watch:
        writer = subprocess.Popen(
            ["sh", "-c", "mkdir -p gen && for i in $(seq 1 2000); do echo $i > gen/g$i; done"],
            cwd=root,
        )
        slowest = 0.0
        while writer.poll() is None:
            asked = time.perf_counter()
            await client.workspace_execute_command_async(
                types.ExecuteCommandParams(command="waymark.turns", arguments=[{}])
            )
            slowest = max(slowest, time.perf_counter() - asked)
            await asyncio.sleep(0.05)
        out["turns_during_burst"] = slowest
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return out


def figures(files: int = 10_000, idle: float = 5.0) -> list[dict[str, Any]]:
    """For bench/run: `initialize` with the watch on beside the same server with it off, and
    what the watch costs once ready (first scan, copies, idle CPU, RSS) as extras."""
    out = []
    for git in (True, False):
        got = {}
        for watch in (True, False):
            with tempfile.TemporaryDirectory() as tmp:
                root = Path(tmp) / "ws"
                make_workspace(root, files, git)
                got[watch] = asyncio.run(measure(root, Path(tmp) / "history", idle, watch))
        on = got[True]
        out.append(
            {
                "name": f"waymark-ls initialize, watch on, {files} files, "
                + ("git" if git else "no git"),
                "runs": [on["initialize"]],
                "baseline": "the same server with watch: false",
                "baseline_runs": [got[False]["initialize"]],
                "goals": [],
                "extra": {
                    "ready_ms": round(on.get("ready", 0) * 1000),
                    "filled_ms": round(on["filled"] * 1000) if "filled" in on else None,
                    "idle_cpu_percent": round(on["idle_cpu"] * 100, 2),
                    "rss_mb": round(on["rss"]),
                    "slowest_turns_in_burst_ms": round(on.get("turns_during_burst", 0) * 1000),
                },
            }
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--idle", type=float, default=20.0)
    args = parser.parse_args()
    for git in (True, False):
        for watch in (True, False):
            with tempfile.TemporaryDirectory() as tmp:
                root = Path(tmp) / "ws"
                make_workspace(root, args.files, git)
                got = asyncio.run(measure(root, Path(tmp) / "history", args.idle, watch))
            kind = "git" if git else "no git"
            shown = ", ".join(
                f"{k} {v * 1000:.0f} ms"
                if k in ("initialize", "ready", "filled", "turns_during_burst")
                else f"{k} {v:.1%}"
                if k == "idle_cpu"
                else f"{k} {v:.0f} MB"
                for k, v in got.items()
            )
            print(f"{args.files} files, {kind}, watch {'on' if watch else 'off'}: {shown}")


if __name__ == "__main__":
    main()

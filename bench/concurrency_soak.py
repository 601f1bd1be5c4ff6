"""Several processes editing shared files at once: acknowledged edits lost, writes outside.

Each worker process is an agent with its own session (the command layer in-process, as a
server or the CLI runs it) and the workspace's one history. Over and over it reads a shared
file and writes it back with one new line of its own; every write that answered ``ok: true``
is an acknowledged edit, and must be in the final file. A lost update is an acknowledged line
missing at the end. Meanwhile a swapper process keeps replacing the directory ``swap/`` with
a symlink to a directory outside the workspace and back, while workers create files in
``swap/``: every file that appears outside is a write outside the workspace.

The baseline is the same soak against the tree before issue #20's fixes, run side by side
(``--baseline-src DIR``, or ``WAYMARK_BASELINE_SRC``; a worktree of commit 5ed22f4).

``--mcp`` (or ``WAYMARK_SOAK_MCP=1`` under the harness): instead, real ``waymark mcp``
processes of one workspace, as several host sessions start them (the same default session),
each driven over stdio by the MCP SDK client at the same time. Each reads and replaces a
counter in files of its own and appends a line to one shared file. A refusal on a file only
its own process touches is spurious; a lost edit is an acknowledged one missing at the end.

    python bench/concurrency_soak.py [--workers 4] [--edits 1000] [--baseline-src DIR]
    python bench/concurrency_soak.py --mcp [--workers 4] [--edits 200] [--baseline-src DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for bench.goals when run as a script
from bench.goals import Goal

ROOT = Path(__file__).resolve().parents[1]
FILES = ["shared-a.txt", "shared-b.txt", "dir/shared-c.txt"]
SWAP_EVERY = 10  # one create in the swapped directory per this many edits
MCP_SHARED = "shared.txt"
MCP_OWN = 2  # files of its own per MCP process


async def _work(
    src: Path, ws: Path, history: Path, index: int, edits: int, seed: int
) -> dict[str, Any]:
    sys.path.insert(0, str(src / "language_server"))
    from waymark.commands.context import CommandContext, load_options
    from waymark.commands.registry import execute

    options, _ = load_options({"historyDir": str(history), "sessionId": f"worker{index}"})
    ctx = CommandContext.create([ws], options)
    rng = random.Random(seed)
    acked: list[str] = []
    refused: dict[str, int] = {}
    creates = 0
    for i in range(edits):
        if i % SWAP_EVERY == SWAP_EVERY - 1:
            done = await execute(
                ctx, "waymark.write", {"path": f"swap/w{index}-{i}.txt", "content": "x\n"}
            )
            creates += bool(done["ok"])
            continue
        name = rng.choice(FILES)
        read = await execute(ctx, "waymark.read", {"path": name})
        if not read["ok"]:
            refused[read["error"]] = refused.get(read["error"], 0) + 1
            continue
        content = "".join(line["text"] + "\n" for line in read["lines"])
        tag = f"w{index}-{i}"
        done = await execute(ctx, "waymark.write", {"path": name, "content": content + tag + "\n"})
        if done["ok"]:
            acked.append(f"{name}:{tag}")
        else:
            refused[done["error"]] = refused.get(done["error"], 0) + 1
    return {"acked": acked, "refused": refused, "creates": creates}


def _swap(ws: Path, outside: Path, stop: Path) -> None:
    """Swap ``ws/swap`` between a real directory and a symlink to ``outside``, until ``stop``."""
    swap, parked = ws / "swap", ws / "swap.parked"
    while not stop.exists():
        try:
            os.rename(swap, parked)
            os.symlink(outside, swap)
            time.sleep(0.0005)
            os.unlink(swap)
            os.rename(parked, swap)
        except OSError:
            # A worker's create_parents may have made a fresh ``swap`` meanwhile; tidy up.
            if swap.is_symlink():
                os.unlink(swap)
            if parked.exists() and not swap.exists():
                os.rename(parked, swap)
        time.sleep(0.0005)


def soak(src: Path, workers: int, edits: int, seed: int) -> dict[str, Any]:
    """One soak against the tree at ``src``; returns counts."""
    with tempfile.TemporaryDirectory(prefix="waymark-conc-") as tmp:
        base = Path(tmp)
        ws, outside, history = base / "ws", base / "outside", base / "history"
        (ws / "dir").mkdir(parents=True)
        (ws / "swap").mkdir()
        outside.mkdir()
        (outside / "sentinel.txt").write_bytes(b"sentinel\n")
        for name in FILES:
            (ws / name).write_bytes(b"start\n")
        stop = base / "stop"
        me = str(Path(__file__).resolve())
        swapper = subprocess.Popen(
            [sys.executable, me, "--swapper", str(ws), str(outside), str(stop)]
        )
        started = time.monotonic()
        procs = [
            subprocess.Popen(
                [
                    sys.executable,
                    me,
                    "--worker",
                    str(src),
                    str(ws),
                    str(history),
                    str(i),
                    str(edits),
                    str(seed + i),
                    str(base / f"out{i}.json"),
                ]
            )
            for i in range(workers)
        ]
        try:
            for proc in procs:
                if proc.wait(timeout=1800) != 0:
                    raise RuntimeError(f"worker {proc.pid} exited with {proc.returncode}")
        finally:
            stop.touch()
            swapper.wait(timeout=60)
        seconds = time.monotonic() - started
        outs = [json.loads((base / f"out{i}.json").read_text()) for i in range(workers)]
        present = set()
        for name in FILES:
            for line in (ws / name).read_text().splitlines():
                present.add(f"{name}:{line}")
        acked = [tag for out in outs for tag in out["acked"]]
        lost = [tag for tag in acked if tag not in present]
        outside_files = sorted(os.listdir(outside))
        refused: dict[str, int] = {}
        for out in outs:
            for code, count in out["refused"].items():
                refused[code] = refused.get(code, 0) + count
        return {
            "edits_tried": workers * edits,
            "acknowledged": len(acked),
            "lost": len(lost),
            "writes_outside": len(outside_files)
            - 1
            + ((outside / "sentinel.txt").read_bytes() != b"sentinel\n"),
            "creates_in_swapped_dir": sum(out["creates"] for out in outs),
            "refused": refused,
            "seconds": round(seconds, 1),
        }


async def _mcp_agent(src: Path, ws: Path, index: int, ops: int, seed: int) -> dict[str, Any]:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    path = os.pathsep.join(
        filter(None, [str(src / "language_server"), os.environ.get("PYTHONPATH")])
    )
    env = {**os.environ, "PYTHONPATH": path, "WAYMARK_BRIDGE": "off"}
    env.pop("WAYMARK_SESSION", None)
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "waymark", "mcp"], cwd=str(ws), env=env
    )
    rng = random.Random(seed)
    own = {f"own{index}-{k}.txt": 0 for k in range(MCP_OWN)}
    acked: list[str] = []
    spurious: dict[str, int] = {}
    refused: dict[str, int] = {}
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for i in range(ops):
            name = rng.choice([*own, MCP_SHARED])
            if name == MCP_SHARED:
                change = {"old_string": "END", "new_string": f"p{index}-{i}\nEND"}
            else:
                change = {
                    "old_string": f"count {own[name]}",
                    "new_string": f"count {own[name] + 1}",
                }
            for tool, arguments in (
                ("waymark_read", {"path": name}),
                ("waymark_replace", {"path": name, **change}),
            ):
                result = await session.call_tool(tool, arguments)
                if result.is_error:
                    code = result.content[0].text.split(":", 1)[0]  # type: ignore[union-attr]
                    tally = refused if name == MCP_SHARED else spurious
                    tally[code] = tally.get(code, 0) + 1
                    break
            else:
                if name == MCP_SHARED:
                    acked.append(f"p{index}-{i}")
                else:
                    own[name] += 1
    return {"acked": acked, "own": own, "spurious": spurious, "refused": refused}


def mcp_soak(src: Path, workers: int, ops: int, seed: int) -> dict[str, Any]:
    """``workers`` real ``waymark mcp`` processes on one workspace at once; returns counts."""
    with tempfile.TemporaryDirectory(prefix="waymark-conc-mcp-") as tmp:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        (ws / MCP_SHARED).write_bytes(b"END\n")
        for index in range(workers):
            for k in range(MCP_OWN):
                (ws / f"own{index}-{k}.txt").write_bytes(b"count 0\n")

        async def run_all() -> list[dict[str, Any]]:
            return await asyncio.gather(
                *(_mcp_agent(src, ws, i, ops, seed + i) for i in range(workers))
            )

        started = time.monotonic()
        outs = asyncio.run(run_all())
        seconds = time.monotonic() - started
        shared = set((ws / MCP_SHARED).read_text().splitlines())
        lost = [tag for out in outs for tag in out["acked"] if tag not in shared]
        for out in outs:
            for name, count in out["own"].items():
                if (ws / name).read_bytes() != f"count {count}\n".encode():
                    lost.append(name)
        spurious: dict[str, int] = {}
        refused: dict[str, int] = {}
        for out in outs:
            for mine, theirs in ((spurious, out["spurious"]), (refused, out["refused"])):
                for code, count in theirs.items():
                    mine[code] = mine.get(code, 0) + count
        own_ops = sum(sum(out["own"].values()) for out in outs) + sum(spurious.values())
        return {
            "calls_tried": workers * ops,
            "acknowledged": sum(len(out["acked"]) for out in outs)
            + sum(sum(out["own"].values()) for out in outs),
            "lost": len(lost),
            "spurious_refusals": sum(spurious.values()),
            "spurious_by_code": spurious,
            "own_file_ops": own_ops,
            "shared_refusals": refused,
            "seconds": round(seconds, 1),
        }


def mcp_figures(
    workers: int, edits: int, seed: int, baseline_src: str | None
) -> list[dict[str, Any]]:
    new = mcp_soak(ROOT, workers, edits, seed)
    old = mcp_soak(Path(baseline_src), workers, edits, seed) if baseline_src else None
    where = f"{workers} waymark mcp processes × {edits} read+replace, own files and one shared"
    return [
        {
            "name": f"concurrency soak (MCP): {label} ({where})",
            "value": new[key],
            "unit": "",
            "baseline": old[key] if old else "not run (pass --baseline-src)",
            "goals": [Goal("value", "≤", 0)],
            "extra": {"this tree": new, "baseline": old},
        }
        for key, label in (
            ("lost", "acknowledged edits lost"),
            ("spurious_refusals", "refusals on files nobody else touched"),
        )
    ]


def figures(
    workers: int = 4,
    edits: int | None = None,
    seed: int = 20,
    baseline_src: str | None = None,
    mcp: bool | None = None,
) -> list[dict[str, Any]]:
    baseline_src = baseline_src or os.environ.get("WAYMARK_BASELINE_SRC")
    if mcp if mcp is not None else os.environ.get("WAYMARK_SOAK_MCP") == "1":
        return mcp_figures(workers, edits or 200, seed, baseline_src)
    edits = edits or 1000
    new = soak(ROOT, workers, edits, seed)
    old = soak(Path(baseline_src), workers, edits, seed) if baseline_src else None
    where = f"{workers} processes × {edits} edits on {len(FILES)} shared files"
    rows = []
    for key, label in (
        ("lost", "acknowledged edits lost"),
        ("writes_outside", "writes outside the workspace"),
    ):
        rows.append(
            {
                "name": f"concurrency soak: {label} ({where})",
                "value": new[key],
                "unit": "",
                "baseline": old[key] if old else "not run (pass --baseline-src)",
                "goals": [Goal("value", "≤", 0)],
                "extra": {"this tree": new, "baseline (before #20)": old},
            }
        )
    return rows


def main() -> None:
    if sys.argv[1:2] == ["--worker"]:
        src, ws, history, index, edits, seed, out = sys.argv[2:9]
        result = asyncio.run(
            _work(Path(src), Path(ws), Path(history), int(index), int(edits), int(seed))
        )
        Path(out).write_text(json.dumps(result))
        return
    if sys.argv[1:2] == ["--swapper"]:
        _swap(Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--edits", type=int, help="per process (default 1000; --mcp: 200)")
    parser.add_argument("--seed", type=int, default=20)
    parser.add_argument("--baseline-src", help="a checkout of the tree to compare with")
    parser.add_argument("--mcp", action="store_true", help="real waymark mcp processes")
    args = parser.parse_args()
    rows = figures(args.workers, args.edits, args.seed, args.baseline_src, args.mcp)
    for figure in rows:
        print(json.dumps({k: figure[k] for k in ("name", "value", "baseline")}))
        print(json.dumps(figure["extra"], indent=1))


if __name__ == "__main__":
    main()

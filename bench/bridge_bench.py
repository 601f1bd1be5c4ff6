"""The editor bridge's cost: a call routed through a running editor vs the same call run locally.

A real ``waymark-ls`` runs on a workspace with a minimal editor (a pygls client that approves
every ``workspace/applyEdit`` at once and writes it to disk, so the user's thinking time is
not measured). In the same process as the agent would be, measured ``--runs`` times each:

- ``waymark.read`` of a 200-line file, local (bridge off) vs through the bridge;
- ``waymark.replace`` of one line (read record kept), local vs through the bridge, where the
  bridged call includes the editor's approval round trip.

    python bench/bridge_bench.py [--runs R]

``bench/run`` takes :func:`figures`: each bridged call against the same call run locally.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR.parent / "language_server"))
sys.path.insert(0, str(BENCH_DIR.parent))  # for bench.goals when run as a script

from bench.goals import Goal  # noqa: E402
from lsprotocol import types  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402
from pygls.uris import to_fs_path  # noqa: E402

from waymark.commands.context import CommandContext, load_options  # noqa: E402
from waymark.doors.bridge.client import execute_via_editor_or_local  # noqa: E402


def _offset(text: str, position: types.Position) -> int:
    lines = text.split("\n")
    return sum(len(line) + 1 for line in lines[: position.line]) + position.character


def approve_and_write(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
    for change in params.edit.document_changes or []:
        if isinstance(change, types.TextDocumentEdit):
            path = Path(to_fs_path(change.text_document.uri) or "")
            text = path.read_text(encoding="utf-8")
            spans = sorted(
                (
                    (_offset(text, e.range.start), _offset(text, e.range.end), e.new_text)
                    for e in change.edits
                ),
                reverse=True,
            )
            for start, end, new in spans:
                text = text[:start] + new + text[end:]
            path.write_text(text, encoding="utf-8")
    return types.ApplyWorkspaceEditResult(applied=True)


async def timed(runs: int, call: Any) -> list[float]:
    samples = []
    for i in range(runs):
        begin = time.perf_counter()
        result = await call(i)
        samples.append(time.perf_counter() - begin)
        assert result["ok"], result
    return samples


async def measure(runs: int) -> dict[str, Any]:
    base = Path(tempfile.mkdtemp(prefix="wm-bb-"))
    root = base / "ws"
    root.mkdir()
    os.environ["WAYMARK_RUNTIME_DIR"] = str(base / "run")
    lines = [f"value_{i} = {i}" for i in range(200)]
    (root / "f.py").write_text("\n".join(lines) + "\n", encoding="utf-8")

    client = LanguageClient("bridge-bench", "1")
    client.feature(types.WORKSPACE_APPLY_EDIT)(approve_and_write)
    client.feature(types.WINDOW_LOG_MESSAGE)(lambda params: None)
    await client.start_io(sys.executable, "-m", "waymark", "serve")
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
            initialization_options={"historyDir": str(base / "editor-history")},
        )
    )
    client.initialized(types.InitializedParams())
    while not list((base / "run").glob("ls-*.json")):
        await asyncio.sleep(0.05)

    options, _ = load_options({"historyDir": str(base / "agent-history"), "sessionId": "agent"})
    ctx = CommandContext.create([root], options)
    figures: dict[str, Any] = {}
    try:
        for via in ("local", "editor"):
            if via == "local":
                os.environ["WAYMARK_BRIDGE"] = "off"
            else:
                os.environ.pop("WAYMARK_BRIDGE", None)

            async def read(i: int) -> dict[str, Any]:
                return await execute_via_editor_or_local(
                    ctx, "waymark.read", {"path": "f.py"}, origin="bench"
                )

            async def replace(i: int, via: str = via) -> dict[str, Any]:
                line = (i if via == "local" else 100 + i) % 200
                old, new = (f"_{line} = {line}\n", f"_{line} = {via}{i}\n")
                await execute_via_editor_or_local(
                    ctx, "waymark.read", {"path": "f.py"}, origin="bench"
                )
                begin = time.perf_counter()
                result = await execute_via_editor_or_local(
                    ctx,
                    "waymark.replace",
                    {"path": "f.py", "old_string": old, "new_string": new},
                    origin="bench",
                )
                result["_s"] = time.perf_counter() - begin
                return result

            figures[f"read_{via}"] = await timed(runs, read)
            samples = []
            for i in range(runs):
                result = await replace(i)
                assert result["ok"], result
                assert result.get("via") == via, result
                samples.append(result["_s"])
            figures[f"replace_{via}"] = samples
    finally:
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
    return figures


def figures(runs: int = 20) -> list[dict[str, Any]]:
    measured = asyncio.run(measure(runs))
    local = "the same call run locally (WAYMARK_BRIDGE=off)"
    return [
        {
            "name": "waymark.read, 200-line file, through the editor bridge",
            "runs": measured["read_editor"],
            "baseline": local,
            "baseline_runs": measured["read_local"],
            # Far below an agent's model turn: the bridge must not be what an agent waits on.
            "goals": [Goal("p50", "≤", 50, "ms")],
        },
        {
            "name": "waymark.replace one line, through the bridge incl. the editor's approval "
            "round trip",
            "runs": measured["replace_editor"],
            "baseline": local,
            "baseline_runs": measured["replace_local"],
            "goals": [Goal("p50", "≤", 50, "ms")],
        },
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50, help="at most 100")
    args = parser.parse_args()
    figures = asyncio.run(measure(args.runs))
    report = {}
    for name, samples in figures.items():
        report[name] = {
            "median_ms": round(statistics.median(samples) * 1000, 2),
            "min_ms": round(min(samples) * 1000, 2),
            "max_ms": round(max(samples) * 1000, 2),
            "n": len(samples),
        }
    for kind in ("read", "replace"):
        report[f"{kind}_ratio"] = round(
            report[f"{kind}_editor"]["median_ms"] / report[f"{kind}_local"]["median_ms"], 2
        )
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

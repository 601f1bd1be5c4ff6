"""Where the server's share of an LSP round trip goes: ``bench/lsp_bench.py``'s round trip
(edit, no-op, durable write, rotated) against this tree's ``waymark-ls`` with a stamp at each
stage of a request, and the p50 of each stage per command.

Stages, each from the stamp before it: ``read`` (the reader thread has the whole message) →
``dispatch`` (``execute`` starts: the loop's wake-up, JSON, pygls' dispatch) → ``hop`` (the
plan starts on its worker thread) → ``plan`` → ``back`` (the loop resumes) → ``commit``
(``finish``; the no-op has none) → ``lsp`` (``lsp_result``) → ``respond`` (pygls' response
task, up to ``_send_data``) → ``encode`` (``json.dumps``, header, bytes) → ``write`` (the
pipe, the flush and the ``written`` call after it). ``plan_cpu``/``commit_cpu``: the thread
CPU of the plan and the commit (next to their wall time: a thread that waits for the
interpreter's lock shows a gap). Wall clock: compare neighbouring runs only.

Usage: PYTHONPATH=language_server python bench/compare/lsp_stages.py [CALLS] [RUNS]
"""

import atexit
import itertools
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(HERE))
STAGES = ("read", "dispatch", "hop", "plan", "back", "commit", "lsp", "respond", "encode", "write")


def serve(out: str) -> None:
    """Run ``waymark-ls`` with the stamps; write the p50s of each stage to ``out`` at exit."""
    sys.path.insert(0, str(HERE / "language_server"))  # this tree's server, from any cwd
    import pygls.protocol.json_rpc as json_rpc

    import waymark.commands.registry as registry
    import waymark.doors.lsp.reader as reader
    import waymark.doors.lsp.server as server
    import waymark.doors.lsp.wire as wire
    from waymark.doors.lsp import main

    clock, cpu = time.perf_counter, time.thread_time
    now: dict[str, Any] = {}
    last_read = [0.0]
    samples: dict[str, list[float]] = defaultdict(list)

    def wrap(owner: Any, name: str, make: Any) -> None:
        setattr(owner, name, make(getattr(owner, name)))

    def message(original: Any) -> Any:
        def stamped(self: Any) -> Any:
            line = original(self)
            last_read[0] = clock()  # the reply's write may still be clearing the last request's
            return line

        return stamped

    def execute(original: Any) -> Any:
        async def stamped(ctx: Any, command_id: str, raw: object) -> Any:
            now.update(read=last_read[0], command=command_id, dispatch=clock())
            try:
                return await original(ctx, command_id, raw)
            finally:
                now.setdefault("back", clock())
                now["commit"] = clock()

        return stamped

    def plan(original: Any) -> Any:
        def stamped(ctx: Any, command: Any, raw: object) -> Any:
            now["hop"], start = clock(), cpu()
            try:
                return original(ctx, command, raw)
            finally:
                now["plan"] = clock()
                samples[f"{command.id} plan_cpu"].append(cpu() - start)

        return stamped

    def finish(original: Any) -> Any:
        async def stamped(*args: Any, **kwargs: Any) -> Any:
            now["back"], start = clock(), cpu()
            try:
                return await original(*args, **kwargs)
            finally:
                samples[f"{now.get('command')} commit_cpu"].append(cpu() - start)

        return stamped

    def lsp_result(original: Any) -> Any:
        async def stamped(*args: Any) -> Any:
            try:
                return await original(*args)
            finally:
                now["lsp"] = clock()

        return stamped

    def send_data(original: Any) -> Any:
        def stamped(self: Any, data: Any) -> Any:
            now["respond"] = clock()
            return original(self, data)

        return stamped

    def write(original: Any) -> Any:
        def stamped(self: Any, data: bytes) -> int:
            # A notification (the log, the watch) may leave in the middle of a request.
            reply = "lsp" in now
            now["encode"] = clock()
            try:
                return int(original(self, data))
            finally:
                now["write"] = clock()
                if reply and all(stage in now for stage in STAGES):
                    for before, stage in itertools.pairwise(STAGES):
                        samples[f"{now['command']} {stage}"].append(now[stage] - now[before])
                    samples[f"{now['command']} total"].append(now["write"] - now["read"])
                if reply:
                    now.clear()

        return stamped

    wrap(reader.MessageReader, "_message", message)
    wrap(registry, "execute", execute)
    server.execute = registry.execute  # type: ignore[attr-defined]
    wrap(registry, "_plan", plan)
    wrap(registry, "finish", finish)
    wrap(server, "lsp_result", lsp_result)
    wrap(json_rpc.JsonRPCProtocol, "_send_data", send_data)
    wrap(wire.WholeMessages, "write", write)

    @atexit.register
    def dump() -> None:
        p50 = {key: sorted(v)[len(v) // 2] for key, v in samples.items() if v}
        Path(out).write_text(json.dumps(p50))

    main([])


def measure(calls: int, runs: int) -> None:
    from bench.lsp_bench import percentile, round_trips

    for run in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "stages.json")
            trips = round_trips(
                calls, [sys.executable, str(Path(__file__).resolve()), "--serve", out]
            )
            deadline = time.monotonic() + 10
            while not os.path.exists(out) and time.monotonic() < deadline:
                time.sleep(0.05)  # the server writes it at exit
            p50 = json.loads(Path(out).read_text())
        edit, noop = percentile(trips["edit"], 50), percentile(trips["noop"], 50)
        print(f"run {run + 1}: client edit {edit * 1e6:.0f} µs, no-op {noop * 1e6:.0f} µs")
        names = (*STAGES[1:], "plan_cpu", "commit_cpu", "total")
        print(f"  {'µs':6}" + "".join(f"{name:>11}" for name in names))
        for label, command in (("edit", "waymark.edit"), ("no-op", "waymark.discardPending")):
            row = [p50.get(f"{command} {name}") for name in names]
            cells = "".join(f"{'-' if v is None else round(v * 1e6, 1):>11}" for v in row)
            print(f"  {label:6}{cells}")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--serve":
        serve(sys.argv[2])
    else:
        measure(
            int(sys.argv[1]) if len(sys.argv) > 1 else 1000,
            int(sys.argv[2]) if len(sys.argv) > 2 else 1,
        )

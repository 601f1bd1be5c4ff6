"""Where an LSP edit's time goes inside the process: the bench's edit (``bench/lsp_bench.py``'s
``replace_line`` flipping line 500 of a 1,000-line file) run through ``registry.execute``
in-process, with named functions wrapped to add up their inclusive time per edit.

The worker-thread hop is made synchronous, so a function's figure is its own work. Such a
tight loop runs each call 1.2-1.4x faster than the real server, whose caches are cold after
the wait between requests: ``--pause`` sleeps that long after each edit. bench/results.md's
sections of issue 43 cite it (until 2026-11-28 as a private ``fine.py``/``inproc.py``).

Usage: PYTHONPATH=language_server python bench/compare/func_times.py EDITS \
    [--cpu] [--pause SECONDS] [--profile] module:function module:Class.method ...
``--cpu`` times the thread's CPU instead of the wall clock; ``--profile`` prints cProfile's
top 35 functions by own time instead.
"""

import argparse
import asyncio
import cProfile
import functools
import importlib
import pstats
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.compare.bench_edit import BenchEdit


def wrap(spec: str, clock: Callable[[], int], spent: dict[str, list[int]]) -> None:
    """Replace ``module:attr`` (or ``module:Class.method``) by a timed wrapper."""
    module, _, attr = spec.partition(":")
    *path, name = attr.split(".")
    owner: Any = importlib.import_module(module)
    for part in path:
        owner = getattr(owner, part)
    original = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)
    tally = spent[attr]

    if asyncio.iscoroutinefunction(original):

        @functools.wraps(original)
        async def timed_async(*args: Any, **kwargs: Any) -> Any:
            started = clock()
            try:
                return await original(*args, **kwargs)
            finally:
                tally[0] += clock() - started
                tally[1] += 1

        setattr(owner, name, timed_async)
    else:

        @functools.wraps(original)
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = clock()
            try:
                return original(*args, **kwargs)
            finally:
                tally[0] += clock() - started
                tally[1] += 1

        setattr(owner, name, timed)


async def run(edits: int, pause: float, profile: bool, spent: dict[str, list[int]]) -> None:
    bench = BenchEdit()
    from waymark.store import spare

    await bench.learn_anchors()
    edit = bench.edit
    for i in range(2, 51):  # warm; the file is in its first state after an even count
        await edit(i)
    for tally in spent.values():
        tally[:] = [0, 0]
    profiler = cProfile.Profile() if profile else None
    if profiler is not None:
        profiler.enable()
    spent_editing = 0.0
    for i in range(51, 51 + edits):
        started = time.perf_counter()
        await edit(i)
        spent_editing += time.perf_counter() - started
        spare.wake()
        if pause:
            time.sleep(pause)
    per_edit = spent_editing / edits
    if profiler is not None:
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(35)
    print(f"per edit {per_edit * 1e6:.1f} us (wall)")
    for name, (total, calls) in sorted(spent.items(), key=lambda item: -item[1][0]):
        print(f"{name:44s} {total / edits / 1000:8.1f} us  x{calls / edits:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("edits", type=int)
    parser.add_argument("functions", nargs="*")
    parser.add_argument("--cpu", action="store_true")
    parser.add_argument("--pause", type=float, default=0.0)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_intermixed_args()
    clock = time.thread_time_ns if args.cpu else time.perf_counter_ns
    spent: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for spec in args.functions:
        wrap(spec, clock, spent)
    asyncio.run(run(args.edits, args.pause, args.profile, spent))


if __name__ == "__main__":
    main()

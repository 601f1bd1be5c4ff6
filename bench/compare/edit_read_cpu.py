"""A read or an edit right after an edit, in-process: the LSP bench's edit (an anchored
``replace_line`` flipping line 500 of a 1,000-line file, the worker hop made synchronous)
followed by a full read with hashes (``read``), a page of 40 lines with hashes (``page``), a
page with hashes covering the whole file (``whole``: offset 1, limit 100,000, as agents send
it), the same two without hashes (``plain``, ``plainwhole``) or the next edit (``edit``),
each call timed in the thread's CPU time; a base tree and this one alternating, several
rounds.

Usage: python bench/compare/edit_read_cpu.py BASE_TREE [ROUNDS] [CALLS] [SCENARIOS]
(SCENARIOS comma-separated, of ``read``, ``page``, ``whole``, ``plain``, ``plainwhole``,
``edit``, and ``readN``: a full read after every N edits; ``read``, ``page`` and ``edit`` by
default.) Printed per round, scenario and tree: the median µs of the edit and of what follows
it; then, per scenario, the medians over the rounds and the median of the rounds'
differences (this − base).
"""

import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(HERE))
from bench.compare.children import last_json  # noqa: E402

CHILD = """
import asyncio, json, statistics, sys, time

sys.path.insert(0, sys.argv[3])  # this tree's bench/, the measured tree's waymark
from bench.compare.bench_edit import FULL, TARGET, BenchEdit
from waymark.store import spare

scenario, calls = sys.argv[1], int(sys.argv[2])
every = int(scenario[4:] or 1) if scenario.startswith("read") else 0
PAGE = {"path": "big.py", "hashes": True, "offset": TARGET - 20, "limit": 40}
WHOLE = {"path": "big.py", "hashes": True, "offset": 1, "limit": 100_000}
AFTER = {"page": PAGE, "whole": WHOLE, "plain": {"path": "big.py"}}
AFTER["plainwhole"] = WHOLE | {"hashes": False}
bench = BenchEdit()


async def read(params):
    t = time.thread_time_ns()
    res = await bench.execute(bench.ctx, "waymark.read", params)
    took = time.thread_time_ns() - t
    assert res["ok"], res
    return took


async def main():
    await bench.learn_anchors()
    edits, after = [], []
    for i in range(calls + 50):
        t = time.thread_time_ns()
        await bench.edit(i)
        took = time.thread_time_ns() - t
        spare.wake()
        then = None
        if scenario == "read" or (scenario[4:] and scenario[:4] == "read" and i % every == 0):
            then = await read(FULL)
        elif scenario in AFTER:
            then = await read(AFTER[scenario])
        if i >= 50:
            edits.append(took)
            if then is not None:
                after.append(then)
    then = statistics.median(after) / 1e3 if after else 0
    print(json.dumps([statistics.median(edits) / 1e3, then]))


asyncio.run(main())
"""


def run(tree: str, scenario: str, calls: int) -> list[float]:
    return last_json(CHILD, [scenario, str(calls), str(HERE)], tree)


def main() -> None:
    base = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    calls = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    scenarios = sys.argv[4].split(",") if len(sys.argv) > 4 else ["read", "page", "edit"]
    trees = {"base": base, "this": str(HERE)}
    got: dict[tuple[str, str], list[list[float]]] = {}
    for n in range(rounds):
        for scenario in scenarios:
            order = list(trees.items()) if n % 2 == 0 else list(trees.items())[::-1]
            for side, tree in order:
                edit, then = run(tree, scenario, calls)
                got.setdefault((scenario, side), []).append([edit, then])
                shown = f"edit {edit:6.1f} µs, then {then:6.1f} µs"
                print(f"round {n + 1} {scenario:4} {side}: {shown}")
    for scenario in scenarios:
        b, t = got[scenario, "base"], got[scenario, "this"]
        for k, what in enumerate(("edit", "then")):
            if scenario == "edit" and what == "then":
                continue
            mb = statistics.median(r[k] for r in b)
            mt = statistics.median(r[k] for r in t)
            diff = statistics.median(y[k] - x[k] for x, y in zip(b, t, strict=True))
            shown = f"base {mb:6.1f}, this {mt:6.1f}, paired difference {diff:+.1f} µs"
            print(f"{scenario:4} {what}: {shown}")


main()

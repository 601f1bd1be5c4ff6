"""What a compiled plan of the bench's edit could save at most: the LSP bench's edit (an
anchored ``replace_line`` flipping line 500 of a 1,000-line file) in-process, the worker hop
made synchronous, with parts of its plan answered from a cache of the two states' earlier
answers (free), everything else run as it is. The difference to the plain run is the bound
on what compiling those parts can save in the loop; a compiled core still pays its own work.

Parts (MODE letters): ``p`` the kept index's plan (``commands.edit.plan_edit``), ``e`` the new
bytes, ``t`` the decode of the bytes the last edit wrote, ``d`` the unified diff; ``f`` adds
back the Python objects a compiled plan must still make (the new index's columns copied, the
diff's rows, the details, the joined bytes, the compare with the written bytes). ``b`` plans
every edit from the bytes (no kept index) and answers ``plan_from_bytes`` and its unified diff
from the cache; ``B`` plans from the bytes with nothing cached.

Usage: PYTHONPATH=language_server python bench/compare/plan_oracle.py ROUNDS [EDITS] [MODES]
(MODES comma-separated, e.g. ``,p,petd,petdf``; the empty mode is the plain run). Each round
runs every mode in a fresh process, one after the other; printed: process CPU µs per edit and
the median over the rounds of each mode's difference to the plain run of its round.
"""

import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.compare.bench_edit import CONTENTS, TARGET, BenchEdit

# The bytes of line TARGET, where the two states differ: the key of the cache.
_AT = len("".join(f"value_{i:04d} = {i}\n" for i in range(1, TARGET)))
_KEY = slice(_AT, _AT + len(CONTENTS[0]) + 1)


def child(mode: str, edits: int) -> None:
    from waymark.commands import changes, edit, line_indexes
    from waymark.store import spare

    cached = "b" in mode or any(c in mode for c in "petd")
    on = False
    floor = "f" in mode
    cache: dict[Any, Any] = {}
    state: list[Any] = [None]
    real_plan, real_encoded = edit.plan_edit, edit.encoded_input
    real_as_written, real_diff = changes.Loaded.text_file_as_written, changes.diff_file
    real_from_bytes = edit.plan_from_bytes

    def plan_edit(tf: Any, ops: Any, **kw: Any) -> Any:
        state[0] = tf.lines[TARGET - 1]
        if not (on and "p" in mode):
            cache["p", state[0]] = real_plan(tf, ops, **kw)
            return cache["p", state[0]]
        plan = cache["p", state[0]]
        if floor:
            old = kw["index"]
            lines = list(tf.lines)
            lines[TARGET - 1] = plan.text_file.lines[TARGET - 1]
            list(old.hashes), list(old.p6), dict(old.p6_count)
            [dict(row) for hunk in plan.diff for row in hunk["lines"]]
            dict(plan.details)
        return plan

    def encoded_input(encode: Any, encoding: str, field: str) -> bytes:
        if not (on and "e" in mode):
            cache["e", state[0]] = real_encoded(encode, encoding, field)
            return cache["e", state[0]]
        new: bytes = cache["e", state[0]]
        if floor:
            b"".join((new[: _KEY.start], new[_KEY], new[_KEY.stop :]))
        return new

    def as_written(self: Any, written: Any) -> Any:
        key = "t", self.data[_KEY]
        if not (on and "t" in mode):
            cache[key] = real_as_written(self, written)
            return cache[key]
        if floor:
            written is not None and written[0] == self.data  # the compare a compiled plan makes
        self.__dict__["decoded"] = cache[key]
        return cache[key]

    def diff_file(display: str, before: Any, after: Any, **kw: Any) -> Any:
        key = "d", after.lines[TARGET - 1]
        if not (on and "d" in mode):
            cache[key] = real_diff(display, before, after, **kw)
            return cache[key]
        if floor:
            "".join(f"{line}\n" for line in after.lines[TARGET - 4 : TARGET + 3])
        return cache[key]

    def from_bytes(data: bytes, declared: Any, ops: Any, **kw: Any) -> Any:
        key = "b", data[_KEY]
        if not (on and "b" in mode):
            quick = real_from_bytes(data, declared, ops, **kw)
            unified = quick.unified("big.py")
            object.__setattr__(quick, "unified", lambda display: unified)
            cache[key] = quick
        return cache[key]

    if cached:
        edit.plan_edit, edit.encoded_input = plan_edit, encoded_input
        changes.Loaded.text_file_as_written = as_written  # type: ignore[method-assign]
        changes.diff_file = diff_file
    if "b" in mode.lower():
        line_indexes.lend = lambda real, digest: None
    if "b" in mode:
        edit.plan_from_bytes = from_bytes

    bench = BenchEdit()

    async def main() -> float:
        nonlocal on
        await bench.learn_anchors()
        seen = {}
        for i in range(2, 51):
            seen[i % 2] = await bench.edit(i)
        on = True
        start = time.process_time()
        for i in range(51, 51 + edits):
            result = await bench.edit(i)
            spare.wake()
            if i < 60:  # the cached answers are the same answers
                assert result == seen[i % 2], (result, seen[i % 2])
        return (time.process_time() - start) / edits * 1e6

    print(asyncio.run(main()))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]))
        sys.exit()
    rounds = int(sys.argv[1])
    edits = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    modes = (sys.argv[3] if len(sys.argv) > 3 else ",p,petd,petdf").split(",")
    if "" not in modes:
        modes.insert(0, "")
    diffs: dict[str, list[float]] = {m: [] for m in modes if m}
    plain: list[float] = []
    for n in range(rounds):
        got = {}
        for mode in modes:
            out = subprocess.run(
                [sys.executable, __file__, "--child", mode, str(edits)],
                env=os.environ,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            got[mode] = float(out.split()[-1])
        plain.append(got[""])
        for mode in diffs:
            diffs[mode].append(got[mode] - got[""])
        print(f"round {n + 1}: " + ", ".join(f"{m or 'plain'} {v:.1f}" for m, v in got.items()))
    print(f"plain: median {statistics.median(plain):.1f} µs CPU per edit")
    for mode, values in diffs.items():
        print(f"{mode}: median difference {statistics.median(values):+.1f} µs per edit")

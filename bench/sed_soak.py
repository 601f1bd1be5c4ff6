"""Soak: many fuzzed s-commands against GNU sed; prints cases / mismatches / declined.

Usage: PYTHONPATH=language_server python bench/sed_soak.py [CASES] [SEED]
Every case runs one GNU ``sed -i`` process over several input files; a mismatch is any
simulated output that differs from GNU's bytes, or a script GNU rejects that we simulated.
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "sed"))

from sed_fuzzgen import RandomChooser, generate
from sed_oracle import gnu_sed_in_place

from waymark.sed import SedDecline, apply_script, parse_command_line

INPUTS_PER_CASE = 4


def _empty_tally() -> dict[str, Any]:
    return {"cases": 0, "inputs": 0, "simulated": 0, "declined": 0, "mismatches": []}


def _run_chunk(seed: int, count: int) -> dict[str, Any]:
    chooser = RandomChooser(seed)
    tally = _empty_tally()
    for _ in range(count):
        case = generate(chooser, INPUTS_PER_CASE)
        tally["cases"] += 1
        tally["inputs"] += len(case.inputs)
        try:
            script = parse_command_line(case.line).script
        except SedDecline:
            tally["declined"] += len(case.inputs)
            continue
        expected = gnu_sed_in_place(case.gnu_args, case.inputs)
        for number, data in enumerate(case.inputs):
            try:
                ours = apply_script(script, data)
            except SedDecline:
                tally["declined"] += 1
                continue
            tally["simulated"] += 1
            theirs = None if expected is None else expected[number]
            if ours != theirs:
                tally["mismatches"].append((case.line, data, ours, theirs))
    return tally


def soak(cases: int, seed: int = 1, workers: int = 2) -> dict[str, Any]:
    chunk = 500
    chunks = (cases + chunk - 1) // chunk
    seeds = [(seed * 1_000_003 + n, min(chunk, cases - n * chunk)) for n in range(chunks)]
    total = _empty_tally()
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for part in pool.map(_run_chunk, *zip(*seeds, strict=True)):
            for key in ("cases", "inputs", "simulated", "declined"):
                total[key] += part[key]
            total["mismatches"].extend(part["mismatches"])
    total["seconds"] = time.perf_counter() - started
    return total


def figures(cases: int = 100_000) -> list[dict[str, Any]]:
    """The soak as one bench entry; the goal is zero mismatches."""
    result = soak(cases)
    return [
        {
            "name": "sed soak vs GNU sed 4.9",
            "runs": [result["seconds"]],
            "baseline": "",
            "baseline_runs": [],
            "goal": "0 mismatches",
            "extra": {
                "cases": result["cases"],
                "inputs": result["inputs"],
                "simulated_inputs": result["simulated"],
                "declined_inputs": result["declined"],
                "mismatches": len(result["mismatches"]),
            },
        }
    ]


def main() -> None:
    cases = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    result = soak(cases, seed)
    print(
        f"{'cases':>12} {'inputs':>9} {'simulated':>10} {'declined':>9} {'mismatches':>11} "
        f"{'seconds':>8}"
    )
    print(
        f"{result['cases']:>12} {result['inputs']:>9} {result['simulated']:>10} "
        f"{result['declined']:>9} {len(result['mismatches']):>11} {result['seconds']:>8.1f}"
    )
    for line, data, ours, theirs in result["mismatches"][:20]:
        print(f"MISMATCH {line}\n  input {data!r}\n  ours  {ours!r}\n  gnu   {theirs!r}")


if __name__ == "__main__":
    main()

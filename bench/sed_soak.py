"""Soak: fuzzed sed lines against GNU sed; prints cases / mismatches / declined.

Usage: PYTHONPATH=language_server python bench/sed_soak.py [CASES] [SEED] [s|programs] [PIECE]
Every case runs one GNU ``sed -i`` process over several input files; a mismatch is any
simulated output that differs from GNU's bytes, or a script GNU rejects that we simulated.
``s`` cases are one to three s commands applied to each file alone; ``programs`` cases are
whole programs (addresses, ranges, blocks, hold space, text commands, branches, -n, q/Q)
applied to several files in one run, as one ``sed -i f0 f1 f2`` line. PIECE sets
``waymark.sed.pieces.PIECE_SIZE`` (large files run in pieces of whole lines; a few bytes put
a piece boundary at nearly every line of the small fuzzed inputs).
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench.goals
from bench.goals import Goal

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "sed"))

from sed_fuzzgen import RandomChooser, generate, generate_program
from sed_oracle import gnu_sed_in_place

from waymark.engine.sed import SedDecline, apply_files, apply_script, parse_command_line, pieces

INPUTS_PER_CASE = 4
PROGRAM_FILES = 3


def _empty_tally() -> dict[str, Any]:
    return {"cases": 0, "inputs": 0, "simulated": 0, "declined": 0, "mismatches": []}


def _check_s(case: Any, tally: dict[str, Any]) -> None:
    try:
        script = parse_command_line(case.line).script
    except SedDecline:
        tally["declined"] += len(case.inputs)
        return
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


def _check_program(case: Any, tally: dict[str, Any]) -> None:
    try:
        ours = apply_files(parse_command_line(case.line).script, case.inputs)
    except SedDecline:
        tally["declined"] += len(case.inputs)
        return
    tally["simulated"] += len(case.inputs)
    theirs = gnu_sed_in_place(case.gnu_args, case.inputs)
    mine = [old if new is None else new for old, new in zip(case.inputs, ours, strict=True)]
    if mine != theirs:
        tally["mismatches"].append((case.line, case.inputs, mine, theirs))


def _run_chunk(seed: int, count: int, kind: str, piece: int | None) -> dict[str, Any]:
    if piece is not None:
        pieces.PIECE_SIZE = piece
    chooser = RandomChooser(seed)
    tally = _empty_tally()
    make, check = (generate, _check_s) if kind == "s" else (generate_program, _check_program)
    inputs = INPUTS_PER_CASE if kind == "s" else PROGRAM_FILES
    for _ in range(count):
        case = make(chooser, inputs)
        tally["cases"] += 1
        tally["inputs"] += len(case.inputs)
        check(case, tally)
    return tally


def soak(
    cases: int, seed: int = 1, workers: int = 2, kind: str = "s", piece: int | None = None
) -> dict[str, Any]:
    chunk = 500
    chunks = (cases + chunk - 1) // chunk
    seeds = [(seed * 1_000_003 + n, min(chunk, cases - n * chunk)) for n in range(chunks)]
    total = _empty_tally()
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=workers) as pool:
        kinds = [kind] * len(seeds)
        piece_sizes = [piece] * len(seeds)
        for part in pool.map(_run_chunk, *zip(*seeds, strict=True), kinds, piece_sizes):
            for key in ("cases", "inputs", "simulated", "declined"):
                total[key] += part[key]
            total["mismatches"].extend(part["mismatches"])
    total["seconds"] = time.perf_counter() - started
    return total


def figures(cases: int = 100_000) -> list[dict[str, Any]]:
    """Both soaks as bench entries; the goal is zero mismatches."""
    entries = []
    for kind, name in (
        ("s", "sed soak vs GNU sed 4.9"),
        ("programs", "sed program soak vs GNU sed 4.9 (3 files per case)"),
    ):
        result = soak(cases, kind=kind)
        entries.append(
            {
                "name": name,
                "runs": [result["seconds"]],
                "baseline": "",
                "baseline_runs": [],
                "goals": [Goal("mismatches", "≤", 0)],
                "extra": {
                    "cases": result["cases"],
                    "inputs": result["inputs"],
                    "simulated_inputs": result["simulated"],
                    "declined_inputs": result["declined"],
                    "mismatches": len(result["mismatches"]),
                    "seconds": round(result["seconds"], 1),
                },
            }
        )
    return entries


def main() -> None:
    cases = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    kind = sys.argv[3] if len(sys.argv) > 3 else "s"
    piece = int(sys.argv[4]) if len(sys.argv) > 4 else None
    result = soak(cases, seed, kind=kind, piece=piece)
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

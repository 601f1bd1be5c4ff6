"""Soak: stale anchors. An agent reads a file, someone else changes it, then the edit arrives.

Each case builds a random file rich in duplicate and blank lines, takes the anchors an agent
would see (``annotate``), applies 1-4 random external mutations (insert, delete, replace,
copy of the target line, move of a block), then plans one anchored operation written against
the old anchors on the mutated file. The outcome is either *rejected* (any Waymark error),
*applied* to a line (or range ends) holding exactly the content the agent addressed, or a
*silent mis-edit* — anything else. The goal is 0 silent mis-edits.

Usage: PYTHONPATH=language_server python bench/anchors_soak.py [CASES] [SEED]
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for bench.goals when run as a script
from bench.goals import Goal

from waymark.commands.edit import plan_edit
from waymark.commands.edit_ops import parse_operations
from waymark.engine.anchors import annotate
from waymark.engine.edits.from_bytes import plan_from_bytes
from waymark.engine.errors import WaymarkError
from waymark.engine.text import TextFile

CASES = 10_000
_POOL = ["", "", "", "}", "pass", "return None", "x = 1", "item.update(value, key)", "end"]
_OPS = ("replace_line", "insert_after", "delete_line", "replace_range", "delete_range")
NEW = ["new_0 = 0", "new_0b = 0"]


def _line(rng: random.Random) -> str:
    if rng.random() < 0.6:
        return rng.choice(_POOL)
    return f"{rng.choice('abcdefgh')}{rng.randint(0, 30)} = {rng.randint(0, 3)}"


def _mutate(rng: random.Random, lines: list[str], target: int) -> list[str]:
    out = list(lines)
    for _ in range(rng.randint(1, 4)):
        kind = rng.choice(["insert", "delete", "replace", "copy_target", "move"])
        i = rng.randint(0, len(out))
        if kind == "insert":
            out.insert(i, _line(rng))
        elif kind == "copy_target":
            out.insert(i, lines[target])
        elif out and i < len(out):
            if kind == "delete":
                del out[i]
            elif kind == "replace":
                out[i] = _line(rng)
            else:
                block = out[i : i + rng.randint(1, 4)]
                del out[i : i + len(block)]
                at = rng.randint(0, len(out))
                out[at:at] = block
    return out


def _text(lines: list[str]) -> str:
    return "".join(f"{line}\n" for line in lines)


def _correct(op: str, lines: list[str], first: int, last: int, m: list[str], a: list[str]) -> bool:
    """Did the edit land on lines holding exactly the addressed content?"""
    if op in ("delete_line", "delete_range"):
        width = len(m) - len(a)
        return any(
            m[j] == lines[first] and m[j + width - 1] == lines[last] and m[:j] + m[j + width :] == a
            for j in range(len(m) - width + 1)
        )
    if NEW[0] not in a:
        return False
    j = a.index(NEW[0])
    if op == "insert_after":
        return j > 0 and m[j - 1] == lines[first] and a == [*m[:j], *NEW, *m[j:]]
    k = j + len(m) - len(a) + 1  # last replaced line of m
    return (
        0 <= j <= k < len(m)
        and m[j] == lines[first]
        and m[k] == lines[last]
        and a == [*m[:j], *NEW, *m[k + 1 :]]
    )


def run_case(rng: random.Random, swap: bool) -> str:
    lines = [_line(rng) for _ in range(rng.randint(2, 60))]
    anchored = annotate(TextFile.from_text(_text(lines)))
    op = rng.choice(_OPS)
    first = rng.randrange(len(lines))
    last = first
    raw: dict[str, Any] = {"op": op}
    if op.endswith("range"):
        if len(lines) < 2:
            return "skipped"
        last = rng.randrange(len(lines))
        first, last = min(first, last), max(first, last)
        if first == last:
            last = first + 1 if first + 1 < len(lines) else first - 1
            first, last = min(first, last), max(first, last)
        raw["start_hash"], raw["end_hash"] = anchored[first].hash, anchored[last].hash
    else:
        raw["hash"] = anchored[first].hash
        if rng.random() < 0.5:
            raw["line"] = first + 1
    if not op.startswith("delete"):
        raw["content"] = "\n".join(NEW)
    mutated = _mutate(rng, lines, first)
    tf = TextFile.from_text(_text(mutated))
    # As the command plans it: from the bytes when that answers, else on the decoded file.
    quick = plan_from_bytes(tf.encode(), None, parse_operations([raw]), swap_reversed_ranges=swap)
    if quick is not None:
        after, reported = list(TextFile.decode(quick.after).lines), bool(quick.swapped)
    else:
        try:
            edit = plan_edit(tf, parse_operations([raw]), swap_reversed_ranges=swap)
        except WaymarkError:
            return "rejected"
        after, reported = list(edit.text_file.lines), bool(edit.details["auto_corrections"])
    outcome = "applied" if _correct(op, lines, first, last, mutated, after) else None
    # A moved block can reverse a range; the swap is reported in auto_corrections, so the
    # agent is told, but the swapped range covers other lines than it addressed.
    if outcome is None:
        swapped = reported and _correct(op, lines, last, first, mutated, after)
        outcome = "swapped" if swapped else "wrong"
    return outcome if quick is None else f"{outcome} from bytes"


def soak(cases: int = CASES, seed: int = 1, swap: bool = True) -> dict[str, Any]:
    """``swap``: plan as on a fresh read (reversed ranges swapped) or as the command layer
    should once it knows the file changed since the read (reversed ranges refused)."""
    rng = random.Random(seed)
    tally = {"applied": 0, "rejected": 0, "wrong": 0, "swapped": 0, "skipped": 0, "bytes": 0}
    started = time.perf_counter()
    done = 0
    while done < cases:
        outcome = run_case(rng, swap)
        tally["bytes"] += outcome.endswith(" from bytes")
        tally[outcome.removesuffix(" from bytes")] += 1
        done += outcome != "skipped"
    return {"cases": done, **tally, "seconds": time.perf_counter() - started}


def figures(cases: int = CASES, seed: int = 1) -> list[dict[str, Any]]:
    out = []
    for swap in (True, False):
        r = soak(cases, seed, swap)
        mode = "swap on" if swap else "swap off (file changed since read)"
        out.append(
            {
                "name": f"stale anchors, {mode}: silent mis-edits",
                "runs": [r["seconds"]],
                "value": r["wrong"],
                "unit": "mis-edits",
                "baseline": "0",
                "baseline_runs": [],
                "goals": [Goal("value", "≤", 0)],
                "met": r["wrong"] == 0,
                "extra": {
                    "cases": r["cases"],
                    "failures": r["wrong"],
                    "rejected": r["rejected"],
                    "applied": r["applied"],
                    "swapped_and_reported": r["swapped"],
                    "planned_from_bytes": r["bytes"],
                },
            }
        )
    return out


def main() -> None:
    cases = int(sys.argv[1]) if len(sys.argv) > 1 else CASES
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    print(
        f"{'mode':10s} {'cases':>7s} {'silent mis-edits':>17s} {'swapped+reported':>17s} "
        f"{'rejected':>9s} {'applied':>8s} {'from bytes':>10s} {'seconds':>8s}"
    )
    wrong = 0
    for swap in (True, False):
        r = soak(cases, seed, swap)
        wrong += r["wrong"]
        print(
            f"{'swap on' if swap else 'swap off':10s} {r['cases']:7d} {r['wrong']:17d} "
            f"{r['swapped']:17d} {r['rejected']:9d} {r['applied']:8d} {r['bytes']:10d} "
            f"{r['seconds']:8.1f}"
        )
    if wrong:
        sys.exit(1)


if __name__ == "__main__":
    main()

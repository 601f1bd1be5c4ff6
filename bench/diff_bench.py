"""The diff every edit answers with, on a large scattered change, next to ``git diff``.

A 200,000-line file (a third blank lines, a third ``}``, a third unique) gets 9,524 lines
replaced through the command layer's diff (``waymark.diff.diff_file``), and a second case
mixes inserts, deletes and replacements over lines that nearly all repeat. The baseline is
``git diff --no-index`` of the same two files (Myers, in C).

    python bench/diff_bench.py [--runs R]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR.parent / "language_server"))

from waymark.engine.diff import diff_file  # noqa: E402
from waymark.engine.text import TextFile  # noqa: E402


def _scattered() -> tuple[list[str], list[str]]:
    before = [
        "" if i % 3 == 0 else "}" if i % 3 == 1 else f"    value_{i} = {i}" for i in range(200_000)
    ]
    after = list(before)
    for i in range(2, 200_000, 21):
        after[i] = f"edited {i}"
    return before, after


def _repeated() -> tuple[list[str], list[str]]:
    rng = random.Random(1)
    choices = ["", "    pass", "}"]
    before = [rng.choice(choices) if i % 4 else f"x{rng.randint(0, 1000)}" for i in range(200_000)]
    after = list(before)
    for i in sorted(rng.sample(range(200_000), 10_000), reverse=True):
        roll = rng.random()
        if roll < 0.33:
            after.insert(i, "new line")
        elif roll < 0.66:
            del after[i]
        else:
            after[i] += " # changed"
    return before, after


def _figure(name: str, before: list[str], after: list[str], runs: int) -> dict[str, Any]:
    old, new = ("\n".join(before) + "\n"), ("\n".join(after) + "\n")
    with tempfile.TemporaryDirectory() as tmp:
        a, b = Path(tmp) / "a.txt", Path(tmp) / "b.txt"
        a.write_text(old)
        b.write_text(new)
        ours: list[float] = []
        git: list[float] = []
        changed = 0
        for _ in range(runs):
            start = time.perf_counter()
            result = diff_file("f.txt", TextFile.from_text(old), TextFile.from_text(new))
            ours.append(time.perf_counter() - start)
            changed = result.stats.insertions + result.stats.deletions
            start = time.perf_counter()
            subprocess.run(
                ["git", "diff", "--no-index", "--no-color", str(a), str(b)],
                stdout=subprocess.DEVNULL,
                check=False,
            )
            git.append(time.perf_counter() - start)
    return {
        "name": name,
        "runs": ours,
        "baseline": "git diff --no-index of the same two files",
        "baseline_runs": git,
        "extra": {"lines": len(before), "insertions_plus_deletions": changed},
    }


def figures(runs: int = 5) -> list[dict[str, Any]]:
    return [
        _figure("diff of 9,524 scattered replacements, 200k lines", *_scattered(), runs),
        _figure("diff of 10,000 mixed changes, 200k mostly repeated lines", *_repeated(), runs),
    ]


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    print(json.dumps(figures(parser.parse_args().runs), indent=2))

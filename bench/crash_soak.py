"""Crash soak: SIGKILL a process writing a 3 MB file through ``files.atomic_write`` ≥ 5,000 times.

Each trial forks a writer that alternates two distinct contents and kills it after a random
delay in [0, 30 ms]; then the target's digest must be one of the two contents, and after
``sweep_temp_files`` no temp file may remain. The baseline is the same rig with a naive
in-place writer (``open(path, "wb").write``), which tears the file on most kills.

    python bench/crash_soak.py [--trials 5000] [--baseline-trials 200] [--seed N]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for bench.goals when run as a script
from bench.goals import Goal

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "unit"))

from helpers_crash import CrashRig, Tally

SIZE = 3 * 1024 * 1024


def _run(mode: str, trials: int, seed: int) -> tuple[Tally, float]:
    with tempfile.TemporaryDirectory(prefix=f"waymark-soak-{mode}-") as tmp:
        rig = CrashRig(Path(tmp), size=SIZE, mode=mode)
        start = time.monotonic()
        try:
            tally = rig.run(trials, seed=seed)
        finally:
            rig.close()
        return tally, time.monotonic() - start


def figures(
    trials: int = 5000, baseline_trials: int = 200, seed: int | None = None
) -> list[dict[str, Any]]:
    seed = random.randrange(2**32) if seed is None else seed
    atomic, atomic_s = _run("atomic", trials, seed)
    naive, naive_s = _run("naive", baseline_trials, seed)
    return [
        {
            "name": "crash soak: torn files after SIGKILL (3 MB atomic_write)",
            "runs": atomic.trials,
            "value": atomic.torn,
            "baseline": naive.torn,
            "baseline_runs": naive.trials,
            "goals": [Goal("value", "≤", 0)],
            "unit": "torn files",
            "met": atomic.torn == 0 and atomic.leftover_after_sweep == 0 and not atomic.failures,
            "extra": {
                "seed": seed,
                "trials": atomic.trials,
                "torn": atomic.torn,
                "old": atomic.old,
                "new": atomic.new,
                "kills_with_temp_present": atomic.temps_seen,
                "leftover_temps_after_sweep": atomic.leftover_after_sweep,
                "seconds": round(atomic_s, 1),
                "baseline_writer": "open(path, 'wb').write",
                "baseline_torn": naive.torn,
                "baseline_seconds": round(naive_s, 1),
                "failures": atomic.failures[:10],
            },
        }
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=5000)
    parser.add_argument("--baseline-trials", type=int, default=200)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--json", action="store_true", help="print figures() as JSON")
    args = parser.parse_args()
    result = figures(args.trials, args.baseline_trials, args.seed)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        extra = result[0]["extra"]
        print(f"trials: {extra['trials']} (seed {extra['seed']}, {extra['seconds']} s)")
        print(f"torn files: {extra['torn']}  (old {extra['old']}, new {extra['new']})")
        print(f"kills that landed while a temp file existed: {extra['kills_with_temp_present']}")
        print(f"leftover temp files after sweep: {extra['leftover_temps_after_sweep']}")
        print(
            f"baseline (naive in-place write): {extra['baseline_torn']} torn "
            f"of {result[0]['baseline_runs']}"
        )
    extra = result[0]["extra"]
    return 1 if extra["torn"] or extra["leftover_temps_after_sweep"] or extra["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())

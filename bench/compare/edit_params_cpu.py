"""CPU µs to structure ``waymark.edit``'s params as the language server receives them (the
bench's one ``replace_line``): the path, the operations checked item by item and each op's
class built. Base tree and this tree interleaved, a fresh process per sample.

Usage: python bench/compare/edit_params_cpu.py BASE_TREE [RUNS] [CALLS]
"""

from __future__ import annotations

import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
CODE = r"""
import sys, time
from waymark.commands import registry  # noqa: F401 -- every command's hooks, as the server has them
from waymark.commands.edit import EditParams
from waymark.commands.params import structure

calls = int(sys.argv[1])
raw = {
    "path": "big.py",
    "operations": [{"op": "replace_line", "hash": "ce36de", "content": "value_0500 = 501"}],
}
for _ in range(1000):
    structure(raw, EditParams)
started = time.process_time()
for _ in range(calls):
    structure(raw, EditParams)
print((time.process_time() - started) / calls)
"""


def main() -> None:
    base, runs = Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 7
    calls = sys.argv[3] if len(sys.argv) > 3 else "50000"
    trees = {"base": base, "this": HERE}
    samples: dict[str, list[float]] = {name: [] for name in trees}
    for _ in range(runs):
        for name, tree in trees.items():
            done = subprocess.run(
                [sys.executable, "-c", CODE, calls],
                env={"PYTHONPATH": str(tree / "language_server"), "PATH": "/usr/bin:/bin"},
                capture_output=True,
                text=True,
                check=True,
            )
            samples[name].append(float(done.stdout.splitlines()[-1]))
    for name, values in samples.items():
        shown = " / ".join(f"{v * 1e6:.2f}" for v in values)
        print(f"{name:4} {statistics.median(values) * 1e6:6.2f} µs per call (median; {shown})")
    ratio = statistics.median(samples["this"]) / statistics.median(samples["base"])
    print(f"this / base {ratio:.2f}×")


if __name__ == "__main__":
    main()

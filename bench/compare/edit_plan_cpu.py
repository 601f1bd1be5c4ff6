"""An anchored one-line edit of the 200k-line file, the base tree's and this tree's
alternating, at its first line and at line 100,001: the plan alone (``plan_from_bytes``) in a
fresh process each time, its CPU and minor faults (a fresh process touches every table for
the first time, as the CLI does); and the CLI edit, a ``read`` first, the child's CPU, with
the paired difference (this tree's minus the base's, each pair run back to back).

Usage: python bench/compare/edit_plan_cpu.py BASE_TREE [RUNS]
"""

import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(HERE))
from bench.anchors_speed import make_file  # noqa: E402
from bench.compare.children import announce, cpu, env_of, one_line_ops  # noqa: E402

runs = int(sys.argv[2]) if len(sys.argv) > 2 else 9
trees = {"base": f"{sys.argv[1]}/language_server", "mine": str(HERE / "language_server")}
root = Path(tempfile.mkdtemp())
big = root / "big.py"
data = make_file()
PLAN = """
import json, resource, sys, time
from waymark.commands.edit_ops import parse_operations
from waymark.engine.edits.from_bytes import plan_from_bytes
data = open(sys.argv[1], "rb").read()
ops = parse_operations(json.loads(sys.argv[2]))
faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
started = time.process_time()
assert plan_from_bytes(data, None, ops) is not None
took = (time.process_time() - started) * 1000
print(took, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults)
"""


def ops_at(tree: str, line: int) -> str:
    big.write_bytes(data)
    return one_line_ops(root, "big.py", line, env_of(tree, False))


announce(trees)
for line in (0, 100_000):
    plans: dict[str, list[tuple[float, int]]] = {}
    edits: dict[str, list[float]] = {}
    for _ in range(runs):
        for side, tree in trees.items():
            ops = ops_at(tree, line)
            out = subprocess.run(
                [sys.executable, "-c", PLAN, str(big), ops],
                env=env_of(tree, False),
                check=True,
                capture_output=True,
                text=True,
            ).stdout.split()
            plans.setdefault(side, []).append((float(out[0]), int(out[1])))
            command = [sys.executable, "-m", "waymark", "edit", "big.py", "--ops", ops]
            edits.setdefault(side, []).append(
                cpu([*command, "--root", str(root)], env_of(tree, False))
            )
    for side in trees:
        took = statistics.median(t for t, _ in plans[side])
        faults = statistics.median(f for _, f in plans[side])
        edit = statistics.median(edits[side])
        print(f"line {line + 1:6d} {side}: plan {took:5.1f} ms, {faults:5.0f} faults;", end=" ")
        print(f"CLI edit {edit:5.1f} ms")
    paired = [b - a for a, b in zip(edits["base"], edits["mine"], strict=True)]
    print(f"line {line + 1:6d} CLI edit, mine - base, paired median:", end=" ")
    print(f"{statistics.median(paired):+.1f} ms")

"""The LSP round trip of ``bench/lsp_bench.py`` (edit, no-op and a client-side durable write,
rotated), run on a base tree and on this one, one after the other, several rounds: the p50s
and the ratio of each run. Wall clock, as the bench's row: on a loaded machine the no-op's
p50 moves run to run, and a pair of neighbouring runs is the only fair comparison.

Usage: python bench/compare/lsp_trips.py BASE_TREE [ROUNDS] [CALLS]
(BASE_TREE with its compiled core built, as bench/compare/README.md says.)
"""

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(HERE))
from bench.compare.children import env_of  # noqa: E402

rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
calls = int(sys.argv[3]) if len(sys.argv) > 3 else 500
trees = {"base": f"{sys.argv[1]}/language_server", "mine": str(HERE / "language_server")}
# The child runs this tree's bench harness against the server of the tree on its PYTHONPATH.
CHILD = f"""
import json, sys
sys.path.insert(0, {str(HERE)!r})
from bench.lsp_bench import percentile, round_trips
server = [sys.executable, "-c", "from waymark.doors.lsp import main; main()"]
samples = round_trips({calls}, server)
print(json.dumps({{name: percentile(s, 50) for name, s in samples.items()}}))
"""

for n in range(rounds):
    for side, tree in trees.items():
        out = subprocess.run(
            [sys.executable, "-c", CHILD],
            env=env_of(tree, False),
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        p50 = json.loads(out)
        print(
            f"round {n + 1} {side}: edit {p50['edit'] * 1e6:.0f} µs, no-op "
            f"{p50['noop'] * 1e6:.0f} µs, ratio {p50['edit'] / p50['noop']:.2f}×"
        )

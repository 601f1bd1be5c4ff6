"""CPU ms (user + sys of the child) of ``waymark edit`` through the CLI, as
``bench/anchors_speed.py``'s one-line edit row runs it (a ``read --limit 20`` first, the file
put back each time, history on, the compiled core), the base tree's and this tree's back to
back in alternating order, on the 200k-line file and its 100-line one: the median of the
paired differences, which the machine's load moves less than either median, and each tree's
ratio as the bench takes it (the big file over the small one plus ``xxhsum`` of the big).
The base tree must have its compiled core built in place (see bench/compare/README.md).

Usage: python bench/compare/edit_paired_cpu.py BASE_TREE [ROUNDS]
"""

import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(HERE))
from bench.anchors_speed import cli_files  # noqa: E402
from bench.compare.children import announce, cli_edit, cpu, env_of  # noqa: E402

rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 15
trees = {"base": f"{sys.argv[1]}/language_server", "mine": str(HERE / "language_server")}
root = Path(tempfile.mkdtemp())
files = cli_files()


def edit(tree: str, name: str) -> float:
    return cli_edit(root, name, files[name], 0, env_of(tree, False))


xxhsum = announce(trees)
times: dict[tuple[str, str], list[float]] = {(side, name): [] for side in trees for name in files}
floor: list[float] = []
for turn in range(rounds):
    for name in files:
        for side in list(trees) if turn % 2 == 0 else list(reversed(trees)):
            times[(side, name)].append(edit(trees[side], name))
    (root / "big.py").write_bytes(files["big.py"])
    floor.append(cpu([xxhsum, str(root / "big.py")], dict(os.environ)))
median = statistics.median
for name in files:
    base, mine = times[("base", name)], times[("mine", name)]
    paired = median(m - b for m, b in zip(mine, base, strict=True))
    sides = f"base {median(base):6.1f} ms, mine {median(mine):6.1f} ms"
    print(f"{name:9s} {sides}, paired {paired:+.1f} ms")
for side in trees:
    big, small = median(times[(side, "big.py")]), median(times[(side, "small.py")])
    print(f"{side}: ratio {big / (small + median(floor)):.3f}x (xxhsum {median(floor):.1f} ms)")
shutil.rmtree(root)

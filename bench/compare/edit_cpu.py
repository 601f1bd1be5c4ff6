"""CPU ms (user + sys of the child) of ``waymark edit`` through the CLI, as
``bench/anchors_speed.py``'s one-line edit row runs it (a ``read --limit 20`` first, the file
put back each round, history on), the base tree's and this tree's interleaved: on the
200k-line file and on its 100-line one, the edit's line near the top (the bench's) and in the
middle of the file; each on the compiled core and the pure-Python path. The ratio is the big
file's median over the small file's plus ``xxhsum`` of the big file, as the bench takes it.
The base tree must have its compiled core built in place (see bench/compare/README.md).

Usage: python bench/compare/edit_cpu.py BASE_TREE [RUNS]
"""

import os
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(HERE))
from bench.anchors_speed import cli_files  # noqa: E402
from bench.compare.children import announce, cli_edit, cpu, env_of, report  # noqa: E402

runs = int(sys.argv[2]) if len(sys.argv) > 2 else 7
trees = {"base": f"{sys.argv[1]}/language_server", "mine": str(HERE / "language_server")}
root = Path(tempfile.mkdtemp())
files = cli_files()
# Where the edited line is: the bench's (the first lines), and the middle of the file.
WHERE = {"top": 0, "middle": 100_000}


def edit(tree: str, pure: bool, name: str, where: str) -> float:
    offset = min(WHERE[where], 50) if name == "small.py" else WHERE[where]
    return cli_edit(root, name, files[name], offset, env_of(tree, pure))


xxhsum = announce(trees)
times: dict[tuple[str, bool, str, str], list[float]] = {}
floor: list[float] = []
for _ in range(runs):
    for side, tree in trees.items():
        for pure in (False, True):
            for where in WHERE:
                for name in files:
                    took = edit(tree, pure, name, where)
                    times.setdefault((side, pure, where, name), []).append(took)
    (root / "big.py").write_bytes(files["big.py"])
    floor.append(cpu([xxhsum, str(root / "big.py")], dict(os.environ)))
report(times, floor, WHERE, trees)
shutil.rmtree(root)

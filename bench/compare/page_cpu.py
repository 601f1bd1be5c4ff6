"""CPU ms (user + sys of the child) of ``waymark read`` through the CLI on the 200k-line file
of ``bench/anchors_speed.py`` and on its 100-line one, the base tree's and this tree's,
interleaved: a page with anchors (the first 100 lines), the full read with anchors, and a
plain page (100 lines at line 100,000); each on the compiled core and the pure-Python path.
The ratio is the big file's median over the small file's plus ``xxhsum`` of the big file, as
the bench's CLI rows take it. The base tree must have its compiled core built in place
(``python setup.py build_ext --inplace`` in it; a line says which core each side runs).

Usage: python bench/compare/page_cpu.py BASE_TREE [RUNS]
"""

import os
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(HERE))
from bench.anchors_speed import cli_files  # noqa: E402
from bench.compare.children import announce, cpu, env_of, report  # noqa: E402

READS = {
    "page": ["--hashes", "--limit", "100"],
    "full": ["--hashes"],
    "plain": ["--limit", "100", "--offset", "100000"],
}
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 7
trees = {"base": f"{sys.argv[1]}/language_server", "mine": str(HERE / "language_server")}
root = Path(tempfile.mkdtemp())
for name, data in cli_files().items():
    (root / name).write_bytes(data)
xxhsum = announce(trees)
times: dict[tuple[str, bool, str, str], list[float]] = {}
floor: list[float] = []
for _ in range(runs):
    for side, tree in trees.items():
        for pure in (False, True):
            for read, flags in READS.items():
                for name in ("big.py", "small.py"):
                    command = [sys.executable, "-m", "waymark", "read", name, *flags]
                    took = cpu([*command, "--root", str(root)], env_of(tree, pure))
                    times.setdefault((side, pure, read, name), []).append(took)
    floor.append(cpu([xxhsum, str(root / "big.py")], dict(os.environ)))
report(times, floor, READS, trees)
shutil.rmtree(root)

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
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(HERE))
from bench.anchors_speed import make_file  # noqa: E402
from bench.compare.children import cpu, env_of  # noqa: E402

READS = {
    "page": ["--hashes", "--limit", "100"],
    "full": ["--hashes"],
    "plain": ["--limit", "100", "--offset", "100000"],
}
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 7
trees = {"base": f"{sys.argv[1]}/language_server", "mine": str(HERE / "language_server")}
root = Path(tempfile.mkdtemp())
(root / "big.py").write_bytes(make_file())
(root / "small.py").write_bytes(make_file(100, seed=8))


for side, tree in trees.items():
    which = "from waymark.engine import core; print(core.BUILT is not None)"
    built = subprocess.run(
        [sys.executable, "-c", which],
        env=env_of(tree, False),
        text=True,
        capture_output=True,
        check=True,
    ).stdout.strip()
    print(f"{side}: {tree}, compiled core built: {built}")
xxhsum = shutil.which("xxhsum") or sys.exit("xxhsum is missing: apt-get install -y xxhash")
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
print(f"xxhsum of the big file: {statistics.median(floor):.1f} ms")
for pure in (False, True):
    for read in READS:
        for side in trees:
            big = statistics.median(times[(side, pure, read, "big.py")])
            small = statistics.median(times[(side, pure, read, "small.py")])
            ratio = big / (small + statistics.median(floor))
            path = "pure" if pure else "core"
            print(
                f"{read:5s} {path} {side:4s} big {big:6.1f} ms, small {small:6.1f} ms: {ratio:.2f}x"
            )
shutil.rmtree(root)

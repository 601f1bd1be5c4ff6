"""An anchored one-line edit planned from the file's bytes (``plan_from_bytes``: an edit with
no kept index, as a file's first edit in a server or any CLI edit), on files of 100, 1,000 and
10,000 lines, the base tree's and this tree's alternating, each in its own process: CPU µs per
plan (``time.process_time``, best of five batches, the process warm).

Usage: python bench/compare/from_bytes_sizes_cpu.py BASE_TREE [ROUNDS]
"""

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(HERE))
from bench.compare.children import env_of  # noqa: E402

rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
trees = {"base": f"{sys.argv[1]}/language_server", "mine": str(HERE / "language_server")}
CHILD = """
import time
from waymark.commands.edit_ops import parse_operations
from waymark.engine.anchors import LineIndex
from waymark.engine.edits.from_bytes import plan_from_bytes
from waymark.engine.text import TextFile
out = []
for lines in (100, 1000, 10000):
    data = "".join(f"value_{i:05d} = {i}\\n" for i in range(1, lines + 1)).encode()
    t = lines // 2
    token = LineIndex(TextFile.decode(data).lines).display(t - 1)
    op = {"op": "replace_line", "hash": token, "content": f"value_{t:05d} = {t + 1}"}
    ops = parse_operations([op])
    assert plan_from_bytes(data, None, ops) is not None
    calls, best = max(20, 200_000 // lines), float("inf")
    for _ in range(5):
        start = time.process_time()
        for _ in range(calls):
            plan_from_bytes(data, None, ops)
        best = min(best, (time.process_time() - start) / calls)
    out.append(f"{lines} lines {best * 1e6:.1f} µs")
print(", ".join(out))
"""

for n in range(rounds):
    for side, tree in trees.items():
        out = subprocess.run(
            [sys.executable, "-c", CHILD],
            env=env_of(tree, False),
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        print(f"round {n + 1} {side}: {out}")

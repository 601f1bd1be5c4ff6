"""CPU ms (``time.process_time`` in the child, median of 7 calls) of ``TextFile.decode`` of a
2.2 MB UTF-16 LE file, with its BOM and declared without one, in the base tree's and this
tree's code, interleaved, on the pure-Python path (the base tree needs no compiled core).
Bytes not valid in UTF-16/32 are refused by a strict decode: the declared case no longer
round-trips the bytes before decoding them.

Usage: python bench/compare/utf16_decode_cpu.py BASE_TREE [ROUNDS]
"""

import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
CHILD = """
import codecs, time
from waymark.engine.text import TextFile
text = "".join(f"    value_{i} = compute({i}, 'ünïcode')  # line {i}\\n" for i in range(20000))
body = text.encode("utf-16-le")
for data, declared in ((codecs.BOM_UTF16_LE + body, None), (body, "utf-16le")):
    times = []
    for _ in range(7):
        start = time.process_time()
        TextFile.decode(data, declared)
        times.append(time.process_time() - start)
    print(sorted(times)[3] * 1000)
"""
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
trees = {"base": f"{sys.argv[1]}/language_server", "mine": str(HERE / "language_server")}
found: dict[str, list[list[float]]] = {side: [[], []] for side in trees}
for _ in range(rounds):
    for side, path in trees.items():
        env = {**os.environ, "PYTHONPATH": path, "WAYMARK_PURE_PYTHON": "1"}
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        out = subprocess.run(
            [sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=120
        ).stdout.split()
        for i, value in enumerate(out):
            found[side][i].append(float(value))
for i, name in enumerate(("BOM", "declared")):
    base, mine = (statistics.median(found[side][i]) for side in trees)
    print(f"{name}: base {base:.2f} ms, mine {mine:.2f} ms, mine/base {mine / base:.2f}")

"""Read, 3-op edit (plan + bytes), 100-line page and the edit's bytes alone (``write``) on
the 200k-line file of ``bench/anchors_speed.py``: CPU ms per call, a fresh process per
sample, base tree and this tree interleaved.

Usage: python bench/compare/anchors_cpu.py BASE_TREE [RUNS]
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
CODE = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from bench.anchors_speed import make_file
from waymark.commands.edit_ops import parse_operations
from waymark.engine import anchors
from waymark.engine.edits.anchored import plan_anchored_edit
from waymark.engine.text import TextFile

data = make_file()
tf = TextFile.decode(data)
picks = [a for a in anchors.annotate(tf) if a.quality == "high"]
ops = parse_operations([
    {"op": "replace_line", "hash": picks[10].hash, "content": "changed = 1"},
    {"op": "insert_after", "hash": picks[len(picks) // 2].hash, "content": "inserted = 2"},
    {"op": "delete_line", "hash": picks[-10].hash},
])
page_of = getattr(anchors, "annotate_range", None)

def page():
    decoded = TextFile.decode(data)
    shown = page_of(decoded, 0, 100) if page_of else anchors.annotate(decoded)[:100]
    return anchors.render(shown)

def written(plan):
    # The bytes a command writes: spliced where the tree can, else the whole file encoded.
    return plan.encode(data) if hasattr(plan, "changes") else plan.text_file.encode()

def edit():
    return written(plan_anchored_edit(tf, ops))

planned = plan_anchored_edit(tf, ops)

steps = {
    "read": lambda: anchors.render(anchors.annotate(TextFile.decode(data))),
    "edit": edit,
    "page": page,
    "write": lambda: written(planned),
}
for step in steps.values():
    step()
out = {}
for name, step in steps.items():
    started = time.process_time()
    step()
    out[name] = time.process_time() - started
print(json.dumps(out))
"""


def main() -> None:
    base, runs = Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 7
    trees = {"base": base, "this": HERE}
    samples: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    for _ in range(runs):
        for name, tree in trees.items():
            done = subprocess.run(
                [sys.executable, "-c", CODE, str(HERE)],
                env={"PYTHONPATH": str(tree / "language_server"), "PATH": "/usr/bin:/bin"},
                capture_output=True,
                text=True,
                check=True,
            )
            samples[name].append(json.loads(done.stdout.splitlines()[-1]))
    for step in ("read", "edit", "page", "write"):
        before = statistics.median(s[step] for s in samples["base"])
        after = statistics.median(s[step] for s in samples["this"])
        ratio = after / before
        print(f"{step:5} base {before * 1e3:7.1f} ms  this {after * 1e3:7.1f} ms  {ratio:.2f}×")


if __name__ == "__main__":
    main()

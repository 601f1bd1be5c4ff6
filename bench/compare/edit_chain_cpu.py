"""CPU µs per anchored edit as the language server chains them, without its I/O: each edit
planned on the index and lines the last one kept, its bytes spliced, the new file read back
the way the edit handler reads it and decoded as the next load decodes those very bytes, and
its unified diff. The bench's 1,000-line file with line 500 flipped between two texts (as
``bench/lsp_bench.py`` edits it), or any file and line. Base tree and this tree interleaved,
a fresh process per sample.

Usage: python bench/compare/edit_chain_cpu.py BASE_TREE [RUNS] [EDITS] [FILE LINE]
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(HERE))
from bench.compare.children import interleaved, medians  # noqa: E402

CODE = r"""
import sys, time
from waymark.engine.anchors import LineIndex
from waymark.engine.diff import diff_file
from waymark.engine.edits.anchored import plan_anchored_edit
from waymark.engine.edits.operations import Anchor, Operation, split_content
from waymark.engine.text import TextFile

edits, path, at = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
if path:
    data = open(path, "rb").read()
    line = data.split(b"\n")[at - 1].decode()
    texts = (line, line + "  # edited")
else:
    data = ("\n".join(f"value_{i:04d} = {i}" for i in range(1, 1001)) + "\n").encode()
    texts = (f"value_{at:04d} = {at}", f"value_{at:04d} = {at + 1}")
tf = TextFile.decode(data)
index = LineIndex(tf.lines)


def step(tf, index, data, i):
    token = index.display(at - 1)
    op = Operation(0, "replace_line", Anchor(token), content=split_content(texts[(i + 1) % 2]))
    plan = plan_anchored_edit(tf, [op], index=index)
    after = plan.encode(data)
    plan.index.release()
    if getattr(plan, "reads_back", False):
        written = tf.read_back(plan.text_file)
    else:
        written = tf.decode_like(after, None, plan.text_file)
    diff_file("f.py", tf, written, known=plan.untouched)
    return TextFile.decode(after, known=written), plan.index, after


for i in range(50):
    tf, index, data = step(tf, index, data, i)
started = time.process_time()
for i in range(50, 50 + edits):
    tf, index, data = step(tf, index, data, i)
print((time.process_time() - started) / edits)
"""


def main() -> None:
    base, runs = Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 5
    edits = sys.argv[3] if len(sys.argv) > 3 else "3000"
    path, at = (sys.argv[4], sys.argv[5]) if len(sys.argv) > 5 else ("", "500")
    trees = {"base": base, "this": HERE}
    medians(interleaved(CODE, [edits, path, at], trees, runs), "edit", 1)


if __name__ == "__main__":
    main()

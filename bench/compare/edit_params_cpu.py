"""CPU µs to structure ``waymark.edit``'s params as the language server receives them (the
bench's one ``replace_line``): the path, the operations checked item by item and each op's
class built. Base tree and this tree interleaved, a fresh process per sample.

Usage: python bench/compare/edit_params_cpu.py BASE_TREE [RUNS] [CALLS]
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(HERE))
from bench.compare.children import interleaved, medians  # noqa: E402

CODE = r"""
import sys, time
from waymark.commands import registry  # noqa: F401 -- every command's hooks, as the server has them
from waymark.commands.edit import EditParams
from waymark.commands.params import structure

calls = int(sys.argv[1])
raw = {
    "path": "big.py",
    "operations": [{"op": "replace_line", "hash": "ce36de", "content": "value_0500 = 501"}],
}
for _ in range(1000):
    structure(raw, EditParams)
started = time.process_time()
for _ in range(calls):
    structure(raw, EditParams)
print((time.process_time() - started) / calls)
"""


def main() -> None:
    base, runs = Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 7
    calls = sys.argv[3] if len(sys.argv) > 3 else "50000"
    trees = {"base": base, "this": HERE}
    medians(interleaved(CODE, [calls], trees, runs), "call", 2)


if __name__ == "__main__":
    main()

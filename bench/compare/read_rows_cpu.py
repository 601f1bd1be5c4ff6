"""A full read's engine work on a base tree and this one, in-process CPU time: the bench's
``read with hashes, 200k lines`` row (bench/anchors_speed.py's own ``make_file``, decode,
annotate, render), the same file's line dicts (``as_json``) on top, and a 1,000-line file's
tokens and dicts alone (``Annotated.hashes``, ``as_json`` of a kept annotation); the trees
alternating, several rounds.

Usage: python bench/compare/read_rows_cpu.py BASE_TREE [ROUNDS]
Printed per round and tree: the median ms (200k) or µs (1,000 lines) of each; then the
medians over the rounds and the median of the rounds' differences (this − base).
"""

import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(HERE))
from bench.compare.children import last_json  # noqa: E402

CHILD = """
import json, statistics, sys, time
sys.path.insert(0, sys.argv[1])
from anchors_speed import make_file
from waymark.engine.anchors import LineIndex, annotate, as_json, render
from waymark.engine.text import TextFile


def cpu(fn, runs):
    out = []
    for _ in range(runs):
        t = time.thread_time_ns()
        fn()
        out.append(time.thread_time_ns() - t)
    return statistics.median(out)


big = make_file()
small = make_file(1000)
tf = TextFile.decode(small)
shown = annotate(tf, LineIndex(tf.lines))
print(json.dumps({
    "200k read (ms)": cpu(lambda: render(annotate(TextFile.decode(big))), 5) / 1e6,
    "200k read + dicts (ms)": cpu(
        lambda: (lambda a: (render(a), as_json(a)))(annotate(TextFile.decode(big))), 5
    ) / 1e6,
    "1k tokens (µs)": cpu(shown.hashes, 2000) / 1e3,
    "1k dicts (µs)": cpu(shown.as_json, 2000) / 1e3,
    "1k read + dicts (µs)": cpu(
        lambda: (lambda a: (render(a), as_json(a)))(annotate(TextFile.decode(small))), 2000
    ) / 1e3,
}))
"""


def run(tree: str) -> dict[str, float]:
    return last_json(CHILD, [f"{tree}/bench"], tree)


def main() -> None:
    base = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    trees = {"base": base, "this": str(HERE)}
    got: dict[str, list[dict[str, float]]] = {"base": [], "this": []}
    for n in range(rounds):
        order = list(trees.items()) if n % 2 == 0 else list(trees.items())[::-1]
        for side, tree in order:
            figures = run(tree)
            got[side].append(figures)
            print(f"round {n + 1} {side}: " + ", ".join(f"{k} {v:.1f}" for k, v in figures.items()))
    for name in got["base"][0]:
        b = [r[name] for r in got["base"]]
        t = [r[name] for r in got["this"]]
        paired = statistics.median(y - x for x, y in zip(b, t, strict=True))
        print(
            f"{name}: base {statistics.median(b):.1f}, this {statistics.median(t):.1f}, "
            f"paired difference {paired:+.1f}"
        )


if __name__ == "__main__":
    main()

"""Where a full read and a 3-op edit of ``bench/anchors_speed.py``'s 200k-line file spend their
CPU, stage by stage (best of RUNS, ms, the collector paused as the engine pauses it), beside
the CPU of ``xxhsum`` on the same file.

Usage: PYTHONPATH=language_server python bench/compare/anchors_stages.py [RUNS]
"""

from __future__ import annotations

import gc
import resource
import subprocess
import sys
import tempfile
import time
from itertools import pairwise
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.anchors_speed import make_file

from waymark.commands.edit_ops import parse_operations
from waymark.engine import anchors
from waymark.engine.displays import displays
from waymark.engine.edits import anchored
from waymark.engine.edits.reindex import IndexAfterEdit
from waymark.engine.edits.resolve import Resolver
from waymark.engine.edits.safety import check_safety
from waymark.engine.edits.splice import apply_splices, merged_changes
from waymark.engine.edits.spliced_bytes import encode_spliced
from waymark.engine.line_index import LineIndex, low_by_text
from waymark.engine.text import TextFile


def _stages(data: bytes, ops: list) -> dict[str, float]:  # type: ignore[type-arg]
    marks: list[tuple[str, float]] = [("", time.process_time())]

    def mark(name: str) -> None:
        marks.append((name, time.process_time()))

    tf = TextFile.decode(data)
    mark("read: decode + split")
    index = LineIndex(tf.lines)
    mark("read: line hashes, prefix counts, shared lines")
    index.ctx  # noqa: B018
    mark("read: context hashes of repeated lines")
    displays(index, index.shared)
    mark("read: display tokens of the shared lines")
    low_by_text(tf.lines)
    mark("read: low-quality test of every line")
    shown = anchors.annotate(tf)
    mark("read: annotate (all of the above but decode)")
    anchors.render(shown)
    mark("read: render")
    resolver = Resolver(tf, True)
    placed = resolver.place(ops)
    mark("edit: old index + resolve")
    splices = [p.splice for p in placed]
    after, hashes = apply_splices(tf, resolver.index.hashes, splices)
    changes = merged_changes(splices)
    mark("edit: apply splices")
    check_safety(tf, after, changes)
    mark("edit: safety checks")
    new = IndexAfterEdit(resolver.index, after.lines, hashes, changes)
    anchored._valid_through(resolver.index, new, changes[0].old_start)
    mark("edit: new index + anchors_valid_through (context hashes)")
    anchored._diff(tf, new, changes)
    mark("edit: diff")
    after.encode()
    mark("edit: encode the whole new file (before)")
    encode_spliced(tf, data, after, changes)
    mark("edit: encode the changed lines, spliced into the bytes")
    return {name: b - a for (_, a), (name, b) in pairwise(marks)}


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    data = make_file()
    tf = TextFile.decode(data)
    picks = [a for a in anchors.annotate(tf) if a.quality == "high"]
    ops = parse_operations(
        [
            {"op": "replace_line", "hash": picks[10].hash, "content": "changed = 1"},
            {"op": "insert_after", "hash": picks[len(picks) // 2].hash, "content": "i = 2\nj = 3"},
            {"op": "delete_line", "hash": picks[-10].hash},
        ]
    )
    best: dict[str, float] = {}
    xxhsum: list[float] = []
    with tempfile.NamedTemporaryFile(suffix=".py") as f:
        f.write(data)
        f.flush()
        for _ in range(runs):
            gc.disable()
            for name, took in _stages(data, ops).items():
                best[name] = min(best.get(name, took), took)
            gc.enable()
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run(["xxhsum", f.name], check=True, capture_output=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            xxhsum.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    for name, took in best.items():
        print(f"{name:58s} {took * 1e3:7.1f} ms")
    print(f"{'xxhsum of the file (CPU of the child, best)':58s} {min(xxhsum) * 1e3:7.1f} ms")


if __name__ == "__main__":
    main()

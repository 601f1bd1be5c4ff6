"""What keeping the file an edit planned from the bytes wrote (commands/line_indexes.py
``keep_spliced``) costs the edits themselves, in one process: the LSP bench's edit (an
anchored ``replace_line`` flipping line 500 of a 1,000-line file, the worker hop made
synchronous) in blocks of BLOCK edits, each block after a full read with hashes, the blocks
alternating between keeping and not keeping (``keep_spliced`` a no-op, as main before
h52keep); thread CPU time per edit, the first SKIP edits of each block left out.

Usage: PYTHONPATH=language_server python bench/compare/spliced_ab.py EDITS [BLOCK] [SKIP]
(BLOCK 1, SKIP 0: the edit right after a read; BLOCK 5, SKIP 1: the four after it; BLOCK 100,
SKIP 10: edits far past the fold's bound.) Printed: the median µs per edit of each mode.
"""

import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.compare.bench_edit import FULL, BenchEdit

EDITS = int(sys.argv[1])
BLOCK = int(sys.argv[2]) if len(sys.argv) > 2 else 100
SKIP = int(sys.argv[3]) if len(sys.argv) > 3 else 10


async def main() -> None:
    bench = BenchEdit()
    from waymark.commands import line_indexes
    from waymark.store import spare

    keep = line_indexes.keep_spliced
    await bench.learn_anchors()
    got: dict[str, list[int]] = {"keep": [], "none": []}
    for i in range(EDITS):
        mode = "keep" if (i // BLOCK) % 2 == 0 else "none"
        line_indexes.keep_spliced = keep if mode == "keep" else (lambda *a: None)
        if i % BLOCK == 0:
            await bench.execute(bench.ctx, "waymark.read", FULL)
        start = time.thread_time_ns()
        await bench.edit(i)
        took = time.thread_time_ns() - start
        spare.wake()
        if i % BLOCK >= SKIP:
            got[mode].append(took)
    kept, none = (statistics.median(got[m]) / 1e3 for m in ("keep", "none"))
    print(f"keeping {kept:.1f} µs, not keeping {none:.1f} µs per edit: {kept - none:+.1f}")


asyncio.run(main())

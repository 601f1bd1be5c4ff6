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
import tempfile
import time
from pathlib import Path
from typing import Any


async def _now(f: Any, *a: Any, **k: Any) -> Any:
    return f(*a, **k)


asyncio.to_thread = _now  # type: ignore[assignment]
from waymark.commands import line_indexes, registry  # noqa: E402
from waymark.commands.context import load_options  # noqa: E402
from waymark.doors.entry import open_context  # noqa: E402
from waymark.store import spare  # noqa: E402

EDITS = int(sys.argv[1])
BLOCK = int(sys.argv[2]) if len(sys.argv) > 2 else 100
SKIP = int(sys.argv[3]) if len(sys.argv) > 3 else 10
LINES, TARGET = 1000, 500
CONTENTS = (f"value_{TARGET:04d} = {TARGET}", f"value_{TARGET:04d} = {TARGET + 1}")
FULL = {"path": "big.py", "hashes": True}


async def main() -> None:
    d = Path(tempfile.mkdtemp())
    root = d / "ws"
    root.mkdir()
    (root / "big.py").write_text("".join(f"value_{i:04d} = {i}\n" for i in range(1, LINES + 1)))
    options, _ = load_options({"sessionId": "b", "historyDir": str(d / "h")})
    ctx = open_context([root], options)
    spare.enable()
    keep = line_indexes.keep_spliced
    anchors = {}
    for i in range(2):
        read = await registry.execute(ctx, "waymark.read", FULL)
        anchors[i % 2] = read["lines"][TARGET - 1]["hash"]
        op = {"op": "replace_line", "hash": anchors[i % 2], "content": CONTENTS[(i + 1) % 2]}
        await registry.execute(ctx, "waymark.edit", {"path": "big.py", "operations": [op]})
    got: dict[str, list[int]] = {"keep": [], "none": []}
    for i in range(EDITS):
        mode = "keep" if (i // BLOCK) % 2 == 0 else "none"
        line_indexes.keep_spliced = keep if mode == "keep" else (lambda *a: None)
        if i % BLOCK == 0:
            await registry.execute(ctx, "waymark.read", FULL)
        op = {"op": "replace_line", "hash": anchors[i % 2], "content": CONTENTS[(i + 1) % 2]}
        start = time.thread_time_ns()
        done = await registry.execute(ctx, "waymark.edit", {"path": "big.py", "operations": [op]})
        took = time.thread_time_ns() - start
        assert done["ok"], done
        spare.wake()
        if i % BLOCK >= SKIP:
            got[mode].append(took)
    kept, none = (statistics.median(got[m]) / 1e3 for m in ("keep", "none"))
    print(f"keeping {kept:.1f} µs, not keeping {none:.1f} µs per edit: {kept - none:+.1f}")


asyncio.run(main())

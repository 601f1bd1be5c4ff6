"""The LSP bench's edit in-process, as the bench/compare scripts time it: bench/lsp_bench.py's
1,000-line ``big.py`` and its anchored ``replace_line`` flipping line ``TARGET`` between its
two ``CONTENTS``, run through ``registry.execute`` with the worker-thread hop made synchronous
(a function's figure is then its own work, not a thread's wake-up).

waymark is imported when a :class:`BenchEdit` is made, after the caller patched what it
measures; a child running another tree's source (its ``PYTHONPATH``) times that tree's.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.lsp_bench import CONTENTS, LINES, TARGET, workspace

__all__ = ["CONTENTS", "FULL", "LINES", "TARGET", "BenchEdit"]

# A full read with hashes, as an agent reads before it edits.
FULL = {"path": "big.py", "hashes": True}


async def _now(function: Any, *args: Any, **kwargs: Any) -> Any:
    return function(*args, **kwargs)


class BenchEdit:
    """A fresh workspace holding the bench's file, its context (spare temp files on), and the
    bench's edit on it."""

    def __init__(self) -> None:
        asyncio.to_thread = _now  # type: ignore[assignment]
        from waymark.commands import registry
        from waymark.commands.context import load_options
        from waymark.doors.entry import open_context
        from waymark.store import spare

        root, history = workspace(Path(tempfile.mkdtemp()))
        options, _ = load_options({"sessionId": "bench", "historyDir": str(history)})
        self.ctx = open_context([root], options)
        spare.enable()
        self.execute = registry.execute
        self.anchors: list[str] = []

    async def learn_anchors(self) -> None:
        """Line ``TARGET``'s anchor in each of its two states, from the server's own reads; the
        file is left as it began."""
        for i in range(2):
            read = await self.execute(self.ctx, "waymark.read", FULL)
            self.anchors.append(read["lines"][TARGET - 1]["hash"])
            await self.edit(i)

    async def edit(self, i: int) -> dict[str, Any]:
        """The ``i``-th flip of line ``TARGET``: from ``CONTENTS[i % 2]`` to the other."""
        op = {"op": "replace_line", "hash": self.anchors[i % 2], "content": CONTENTS[(i + 1) % 2]}
        done = await self.execute(self.ctx, "waymark.edit", {"path": "big.py", "operations": [op]})
        assert done["ok"], done
        return done

"""Characters a model reads per tool result, through the real ``waymark mcp`` stdio door.

The scenarios of issue 33: a 48 KB new file written, a one-line change in a 3,000-line file,
a sed over every line of it, a patch and a notebook cell of 48 KB, the rewind preview of a
one-line change plus a new 48 KB file, and the turn list after 200 turns. Each figure is the
length of the text the tool call returned; its goal is the budget of
``waymark.commands.model_view.BUDGETS`` (docs/protocol.md, "What a model reads").

    python bench/result_size.py
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for bench.* when run as a script
from bench.goals import Goal
from bench.mcp_bench import Session

BIG = "".join(f"row {i:05d} = {'x' * 35}\n" for i in range(1000))  # 48,000 characters
LONG = "".join(f"line {i} = value_{i}\n" for i in range(3000))
NOTEBOOK = {
    "cells": [
        {
            "cell_type": "code",
            "id": "c1",
            "metadata": {},
            "outputs": [],
            "execution_count": None,
            "source": ["print(1)\n"],
        }
    ],
    "metadata": {},
    "nbformat": 4,
    "nbformat_minor": 5,
}
# The same scenarios on main at 363ef30, before the model view existed (this bench's
# _scenarios with PYTHONPATH on that checkout), for the table.
MEASURED_BEFORE = {
    "read": 1_803,
    "edit": 1_230,
    "replace": 520,
    "write": 50_180,
    "sed": 133_774,
    "patch": 50_239,
    "notebook_edit": 62_377,
    "rewind preview": 120_644,
    "turns": 218_911,
}


def _budget(tool: str) -> int | None:
    from waymark.commands.model_view import BUDGETS

    return BUDGETS[tool]


def _scenarios(session: Session, ws: Path) -> list[tuple[str, str, str, str]]:
    """(figure, tool, setup in words, text returned) for each scenario, in one session."""
    (ws / "long.py").write_text(LONG)
    (ws / "sed.txt").write_text(LONG)
    (ws / "n.ipynb").write_text(json.dumps(NOTEBOOK, indent=1) + "\n")
    out = []
    session.call("waymark_snapshot", {"promptId": "t-bench"})
    read = session.call(
        "waymark_read", {"path": "long.py", "hashes": True, "offset": 1500, "limit": 50}
    )
    out.append(("read", "waymark_read", "50 lines with anchors of a 3,000-line file", read))
    anchor = re.search(r"^1501#([0-9a-z.]+)~?\|", read, re.M)
    assert anchor, read
    op = {"op": "replace_line", "hash": anchor.group(1), "content": "line 1500 = edited"}
    edit = session.call("waymark_edit", {"path": "long.py", "operations": [op]})
    out.append(("edit", "waymark_edit", "one line of a 3,000-line file", edit))
    replace = session.call(
        "waymark_replace",
        {"path": "long.py", "old_string": "line 10 = value_10\n", "new_string": "line 10 = ten\n"},
    )
    out.append(("replace", "waymark_replace", "one line of a 3,000-line file", replace))
    write = session.call("waymark_write", {"path": "big.txt", "content": BIG})
    out.append(("write", "waymark_write", "a new 48 KB file", write))
    sed = session.call("waymark_sed", {"command": "sed -i 's/value/V/' sed.txt"})
    out.append(("sed", "waymark_sed", "every line of a 3,000-line file", sed))
    patch = "--- /dev/null\n+++ b/p.txt\n@@ -0,0 +1,1000 @@\n" + "".join(
        f"+{line}\n" for line in BIG.splitlines()
    )
    out.append(
        (
            "patch",
            "waymark_patch",
            "a new 48 KB file",
            session.call("waymark_patch", {"patch": patch}),
        )
    )
    session.call("waymark_read", {"path": "n.ipynb", "limit": 1})
    cell = {"op": "replace_cell", "cell": "c1", "source": BIG}
    notebook = session.call("waymark_notebook_edit", {"path": "n.ipynb", "operations": [cell]})
    out.append(("notebook_edit", "waymark_notebook_edit", "one cell set to 48 KB", notebook))

    # The rewind preview: a one-line change in the 3,000-line file and a new file.
    (ws / "r.py").write_text(LONG)
    session.call("waymark_snapshot", {"promptId": "t-rewind"})
    session.call("waymark_read", {"path": "r.py", "offset": 1500, "limit": 1})
    session.call(
        "waymark_replace",
        {"path": "r.py", "old_string": "line 1500 = value_1500\n", "new_string": "line 1500 = x\n"},
    )
    session.call("waymark_write", {"path": "new48.txt", "content": BIG})
    preview = session.call("waymark_rewind", {"promptId": "t-rewind", "preview": True})
    out.append(
        (
            "rewind preview",
            "waymark_rewind",
            "one-line change in 3,000 lines + a new 48 KB file",
            preview,
        )
    )
    for n in range(200):
        session.call("waymark_snapshot", {"promptId": f"t{n:03d}"})
        session.call("waymark_write", {"path": f"turn{n}.txt", "content": f"{n}\n"})
    turns = session.call("waymark_turns", {})
    out.append(("turns", "waymark_turns", "after 200 turns that each wrote a file", turns))
    return out


def figures() -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="result-size-") as tmp:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        env = {**os.environ, "XDG_STATE_HOME": str(Path(tmp) / "state")}
        session = Session([sys.executable, "-m", "waymark", "mcp"], ws, env)
        session.initialize()
        try:
            measured = _scenarios(session, ws)
        finally:
            session.close()
    figs = []
    for name, tool, setup, text in measured:
        budget = _budget(tool)
        extra: dict[str, Any] = {"tool": tool, "setup": setup}
        if name in MEASURED_BEFORE:
            extra["before (main 363ef30)"] = MEASURED_BEFORE[name]
        goals = [Goal("value", "≤", budget, "chars")] if budget is not None else []
        if name == "read":
            hint = re.search(r"\(lines [^\n]*\)\n$", text)
            extra["hint_chars"] = len(hint.group(0)) if hint else 0
            goals = [Goal("hint_chars", "≤", 80, "chars", label="paging hint")]
        figs.append(
            {
                "name": f"characters a model reads: {name} ({setup})",
                "value": len(text),
                "unit": "chars",
                "goals": goals,
                "extra": extra,
            }
        )
    return figs


def main() -> None:
    for fig in figures():
        print(f"{fig['name']}: {fig['value']:,} chars")


if __name__ == "__main__":
    main()

"""The result a commit answers (commands/commit.py:_result), byte for byte as before its
counts were summed in one pass: same keys, same order, same values, for none, one and
several files."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from waymark.commands import commit
from waymark.engine.diff import DiffStats, FileDiff


def _before(proposal: Any, warnings: list[str], changes: list[Any]) -> dict[str, Any]:
    """The result as the commit built it until now (two sums over the diffs)."""
    result = dict(proposal.result, diff="".join(d.text for d in proposal.diffs))
    result.update(
        ok=True,
        changed=bool(changes),
        insertions=sum(d.stats.insertions for d in proposal.diffs),
        deletions=sum(d.stats.deletions for d in proposal.diffs),
        writer_type=proposal.writer,
    )
    if len(proposal.changes) == 1:
        result.setdefault("path", proposal.changes[0].source.resolved.display)
    else:
        result.setdefault("paths", [c.source.resolved.display for c in changes])
    if warnings:
        result["warnings"] = warnings
    else:
        result.pop("warnings", None)
    return result


def _change(display: str) -> Any:
    return SimpleNamespace(source=SimpleNamespace(resolved=SimpleNamespace(display=display)))


@pytest.mark.parametrize("files", [0, 1, 2, 3])
@pytest.mark.parametrize("warnings", [[], ["a backup failed"]])
@pytest.mark.parametrize(
    "planned", [{}, {"warnings": ["planned"], "anchors": ["x"]}, {"diff": "old", "ok": False}]
)
def test_the_result_is_the_one_answered_before(
    files: int, warnings: list[str], planned: dict[str, Any]
) -> None:
    changes = [_change(f"dir/f{i}.txt") for i in range(files)]
    diffs = [
        FileDiff(f"--- a/f{i}\n+++ b/f{i}\n@@ -1 +1 @@\n-{i}\n+{i + 1}\n", DiffStats(i + 1, 2 * i))
        for i in range(files)
    ]
    proposal = SimpleNamespace(result=planned, diffs=diffs, writer="edit", changes=changes)
    ours = commit._result(proposal, list(warnings), changes)  # type: ignore[arg-type]
    theirs = _before(proposal, list(warnings), changes)
    assert json.dumps(ours) == json.dumps(theirs)

"""``waymark.edit``'s answer through the CLI and the MCP door, byte for byte: what main gave
before the edit's diff, decode and re-read were made cheaper (issue 43)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_mcp_protocol import call, connect

from helpers_commands import cli

pytestmark = pytest.mark.timeout(300)

BIG = "".join(f"value_{i:04d} = {i}\n" for i in range(1, 1001)).encode()
FLIPPED = BIG.replace(b"value_0500 = 500\n", b"value_0500 = 501\n")

# What main answered (92a25c4).
CLI = {
    "anchoredDiff": [
        {
            "lines": [
                {
                    "hash": "c6c2e6",
                    "kind": "context",
                    "line": 498,
                    "quality": "high",
                    "text": "value_0498 = 498",
                },
                {
                    "hash": "60588e",
                    "kind": "context",
                    "line": 499,
                    "quality": "high",
                    "text": "value_0499 = 499",
                },
                {"kind": "removed", "old_line": 500, "text": "value_0500 = 500"},
                {
                    "hash": "4545eb",
                    "kind": "added",
                    "line": 500,
                    "quality": "high",
                    "text": "value_0500 = 501",
                },
                {
                    "hash": "e622cf",
                    "kind": "context",
                    "line": 501,
                    "quality": "high",
                    "text": "value_0501 = 501",
                },
                {
                    "hash": "61c54c",
                    "kind": "context",
                    "line": 502,
                    "quality": "high",
                    "text": "value_0502 = 502",
                },
            ],
            "new_lines": 5,
            "new_start": 498,
            "old_lines": 5,
            "old_start": 498,
        }
    ],
    "changed": True,
    "deletions": 1,
    "details": {
        "anchors_valid_through": 499,
        "auto_corrections": [],
        "baseline_continuity": "clean",
        "lines_after": 1000,
        "lines_before": 1000,
        "must_refresh_from_line": 500,
        "net_change": 0,
        "operations_applied": 1,
        "safety_status": "ok",
        "writer_type": "edit",
    },
    "diff": "--- a/big.py\n"
    "+++ b/big.py\n"
    "@@ -497,7 +497,7 @@\n"
    " value_0497 = 497\n"
    " value_0498 = 498\n"
    " value_0499 = 499\n"
    "-value_0500 = 500\n"
    "+value_0500 = 501\n"
    " value_0501 = 501\n"
    " value_0502 = 502\n"
    " value_0503 = 503\n",
    "insertions": 1,
    "ok": True,
    "path": "big.py",
    "via": "local",
    "writer_type": "edit",
}

MCP = (
    '{"details":{"operations_applied":1,"lines_before":1000,"lines_after":1000,'
    '"net_change":0,"anchors_valid_through":499,"must_refresh_from_line":500,'
    '"auto_corrections":[],"safety_status":"ok","baseline_continuity":"clean",'
    '"writer_type":"edit"},"changed":true,"insertions":1,"deletions":1,"writer_type":"edit",'
    '"path":"big.py","via":"local","diff":"--- a/big.py\\n+++ b/big.py\\n@@ -497,'
    "7 +497,7 @@\\n value_0497 = 497\\n value_0498 = 498\\n value_0499 = 499\\n"
    "-value_0500 = 500\\n+value_0500 = 501\\n value_0501 = 501\\n value_0502 = 502\\n"
    ' value_0503 = 503\\n",'
    '"anchors":["498#c6c2e6|value_0498 = 498","499#60588e|value_0499 = 499",'
    '"500#4545eb|value_0500 = 501","501#e622cf|value_0501 = 501","502#61c54c|value_0502 = 502"]}'
)


def _hash(workspace: Path) -> str:
    read = cli(workspace, "read", "big.py", "--hashes")
    return str(read["lines"][499]["hash"])


def test_a_line_flipped_in_a_large_file_through_the_cli(workspace: Path) -> None:
    (workspace / "big.py").write_bytes(BIG)
    ops = [{"op": "replace_line", "hash": _hash(workspace), "content": "value_0500 = 501"}]
    result = cli(workspace, "edit", "big.py", "--ops", json.dumps(ops))
    assert result == CLI
    assert (workspace / "big.py").read_bytes() == FLIPPED


async def test_a_line_flipped_in_a_large_file_through_mcp(workspace: Path) -> None:
    (workspace / "big.py").write_bytes(BIG)
    anchor = _hash(workspace)
    async with connect(workspace) as session:
        err, text = await call(
            session,
            "waymark_edit",
            path="big.py",
            operations=[{"op": "replace_line", "hash": anchor, "content": "value_0500 = 501"}],
        )
    assert (err, text) == (False, MCP)
    assert (workspace / "big.py").read_bytes() == FLIPPED

"""``waymark.edit``'s answer through the CLI and the MCP door, byte for byte: what main gave
before the edit's diff, decode and re-read were made cheaper (issue 43)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_mcp_protocol import call, connect

from edit_answers import FLIPPED_ANSWER
from helpers_commands import cli

pytestmark = pytest.mark.timeout(300)

BIG = "".join(f"value_{i:04d} = {i}\n" for i in range(1, 1001)).encode()
FLIPPED = BIG.replace(b"value_0500 = 500\n", b"value_0500 = 501\n")

# What main answered (92a25c4).
CLI = {**FLIPPED_ANSWER, "via": "local"}

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

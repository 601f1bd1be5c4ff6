"""The whole answer to ``waymark.edit`` through the real ``waymark-ls``, byte for byte: the
answers main gave before the edit's diff, decode and re-read were made cheaper (issue 43)."""

from __future__ import annotations

from typing import Any

import pytest

from edit_answers import FLIPPED_ANSWER

from .conftest import Session

pytestmark = pytest.mark.asyncio(loop_scope="module")

BIG = "".join(f"value_{i:04d} = {i}\n" for i in range(1, 1001)).encode()
MIXED = b"a\nb\r\nc\rd\n\n\nlast"

# What main answered (92a25c4), through this same server.
FLIPPED = FLIPPED_ANSWER

APPENDED = {
    "anchoredDiff": [
        {
            "lines": [
                {"hash": "20cdfa.2", "kind": "context", "line": 6, "quality": "low", "text": ""},
                {"hash": "d00a16", "kind": "context", "line": 7, "quality": "high", "text": "last"},
                {"hash": "53809c", "kind": "added", "line": 8, "quality": "high", "text": "more"},
                {"hash": "f66d8c", "kind": "added", "line": 9, "quality": "high", "text": "end"},
            ],
            "new_lines": 4,
            "new_start": 6,
            "old_lines": 2,
            "old_start": 6,
        }
    ],
    "changed": True,
    "deletions": 1,
    "details": {
        "anchors_valid_through": 7,
        "auto_corrections": [],
        "baseline_continuity": "clean",
        "lines_after": 9,
        "lines_before": 7,
        "must_refresh_from_line": 8,
        "net_change": 2,
        "operations_applied": 1,
        "safety_status": "ok",
        "writer_type": "edit",
    },
    "diff": "--- a/mixed.txt\n"
    "+++ b/mixed.txt\n"
    "@@ -4,4 +4,6 @@\n"
    " d\n"
    " \n"
    " \n"
    "-last\n"
    "\\ No newline at end of file\n"
    "+last\n"
    "+more\n"
    "+end\n"
    "\\ No newline at end of file\n",
    "insertions": 3,
    "ok": True,
    "path": "mixed.txt",
    "writer_type": "edit",
}

RANGED = {
    "anchoredDiff": [
        {
            "lines": [
                {"hash": "e6c632", "kind": "context", "line": 1, "quality": "high", "text": "a"},
                {"kind": "removed", "old_line": 2, "text": "b"},
                {"kind": "removed", "old_line": 3, "text": "c"},
                {"kind": "removed", "old_line": 4, "text": "d"},
                {"hash": "74d376", "kind": "added", "line": 2, "quality": "high", "text": "B"},
                {"hash": "616e98", "kind": "added", "line": 3, "quality": "high", "text": "C"},
                {"hash": "c68cbd.1", "kind": "context", "line": 4, "quality": "low", "text": ""},
                {"hash": "c68cbd.2", "kind": "context", "line": 5, "quality": "low", "text": ""},
            ],
            "new_lines": 5,
            "new_start": 1,
            "old_lines": 6,
            "old_start": 1,
        }
    ],
    "changed": True,
    "deletions": 3,
    "details": {
        "anchors_valid_through": 1,
        "auto_corrections": [],
        "baseline_continuity": "clean",
        "lines_after": 6,
        "lines_before": 7,
        "must_refresh_from_line": 2,
        "net_change": -1,
        "operations_applied": 1,
        "safety_status": "ok",
        "writer_type": "edit",
    },
    "diff": "--- a/range.txt\n"
    "+++ b/range.txt\n"
    "@@ -1,7 +1,6 @@\n"
    " a\n"
    "-b\r\n"
    "-c\r\n"
    "\\ No newline at end of file\n"
    "-d\n"
    "+B\r\n"
    "+C\n"
    " \n"
    " \n"
    " last\n"
    "\\ No newline at end of file\n",
    "insertions": 2,
    "ok": True,
    "path": "range.txt",
    "writer_type": "edit",
}


async def _hash(session: Session, path: str, line: int) -> str:
    read = await session("read", path=path, hashes=True)
    return str(read["lines"][line - 1]["hash"])


async def _edit(session: Session, path: str, *operations: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = await session("edit", path=path, operations=list(operations))
    return result


async def test_a_line_flipped_in_a_large_file(auto: Session) -> None:
    path = auto.put("big.py", BIG)
    anchor = await _hash(auto, "big.py", 500)
    op = {"op": "replace_line", "hash": anchor, "content": "value_0500 = 501"}
    assert await _edit(auto, "big.py", op) == FLIPPED
    assert path.read_bytes() == BIG.replace(b"value_0500 = 500\n", b"value_0500 = 501\n")


async def test_lines_added_after_a_last_line_without_its_end(auto: Session) -> None:
    path = auto.put("mixed.txt", MIXED)
    anchor = await _hash(auto, "mixed.txt", 7)
    op = {"op": "insert_after", "hash": anchor, "content": "more\nend"}
    assert await _edit(auto, "mixed.txt", op) == APPENDED
    assert path.read_bytes() == b"a\nb\r\nc\rd\n\n\nlast\nmore\nend"


async def test_a_range_replaced_in_a_file_of_mixed_ends(auto: Session) -> None:
    path = auto.put("range.txt", MIXED)
    start, end = await _hash(auto, "range.txt", 2), await _hash(auto, "range.txt", 4)
    op = {"op": "replace_range", "start_hash": start, "end_hash": end, "content": "B\nC"}
    assert await _edit(auto, "range.txt", op) == RANGED
    assert path.read_bytes() == b"a\nB\r\nC\n\n\nlast"


async def test_edits_in_a_row_land_whole_and_leave_only_the_file(auto: Session) -> None:
    # From the second edit into a folder on, the server writes into a temp file it made
    # ahead (store/spare.py): the same bytes, the file's mode, no other name left behind.
    (auto.root / "row").mkdir()
    path = auto.put("row/big.py", BIG)
    path.chmod(0o640)
    lines = [b"value_0500 = 500\n", b"value_0500 = 501\n"]
    for i in range(6):
        anchor = await _hash(auto, "row/big.py", 500)
        content = lines[(i + 1) % 2].decode().rstrip("\n")
        result = await _edit(
            auto, "row/big.py", {"op": "replace_line", "hash": anchor, "content": content}
        )
        assert result["ok"] is True
        assert path.read_bytes() == BIG.replace(lines[0], lines[(i + 1) % 2])
        assert path.stat().st_mode & 0o7777 == 0o640
        assert sorted(p.name for p in path.parent.iterdir()) == ["big.py"]

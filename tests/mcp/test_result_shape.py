"""What a model reads from ``waymark mcp``: results within their budgets, no echoed content.

Every figure here is what the issue measured on the real stdio door: a 48 KB write echoed
back whole, a rewind preview of whole files, an unbounded turn list.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

# The bench's fixtures: the budgets are asserted on what bench/result_size.py measures.
from bench.result_size import BIG, LONG, NOTEBOOK
from test_mcp_protocol import call, connect, tree

from helpers_commands import cli

pytestmark = pytest.mark.timeout(300)


def _anchor_line(anchors: list[str], text: str) -> str:
    found = [a for a in anchors if a.split("|", 1)[-1] == text]
    assert len(found) == 1, anchors
    match = re.match(r"^\d+#([0-9a-z.]+)~?\|", found[0])
    assert match, found
    return match.group(1)


async def test_a_48kb_new_file_is_not_echoed_back(workspace: Path) -> None:
    assert len(BIG) == 48_000
    async with connect(workspace) as session:
        err, text = await call(session, "waymark_write", path="big.txt", content=BIG)
    assert not err, text
    assert (workspace / "big.txt").read_bytes() == BIG.encode()
    assert len(text) <= 2000
    assert "x" * 35 not in text
    result = json.loads(text)
    assert (result["path"], result["action"], result["changed"]) == ("big.txt", "created", True)
    assert (result["insertions"], result["deletions"]) == (1000, 0)
    assert result["notShown"] == ["big.txt +1000 −0"]
    assert "waymark_read" in result["more"]


async def test_rewind_preview_of_a_one_line_change_and_a_new_file_is_bounded(
    workspace: Path,
) -> None:
    (workspace / "long.py").write_text(LONG)
    async with connect(workspace) as session:
        assert not (await call(session, "waymark_snapshot", promptId="t1"))[0]
        await call(session, "waymark_read", path="long.py", offset=1500, limit=2)
        err, text = await call(
            session,
            "waymark_replace",
            path="long.py",
            old_string="line 1500 = value_1500\n",
            new_string="line 1500 = changed\n",
        )
        assert not err, text
        assert not (await call(session, "waymark_write", path="big.txt", content=BIG))[0]
        before = tree(workspace)
        err, text = await call(session, "waymark_rewind", promptId="t1", preview=True)
    assert not err, text
    assert tree(workspace) == before
    assert len(text) <= 4000
    result = json.loads(text)
    assert result["preview"] is True
    assert result["plan"] == ["big.txt: delete", "long.py: restore"]
    # The one-line change fits and is shown; the new file's 1,000 lines do not.
    assert "-line 1500 = changed\n+line 1500 = value_1500\n" in result["diff"]
    assert "big.txt" not in result["diff"]
    assert result["notShown"] == ["big.txt +0 −1000"]
    assert result["more"] == (
        'one file\'s diff: waymark_rewind {"promptId":"t1","preview":true,"paths":["big.txt"]} '
        "(paths: any of notShown)"
    )


async def test_edits_answer_with_the_anchors_of_the_changed_lines(workspace: Path) -> None:
    (workspace / "a.py").write_text(LONG)
    async with connect(workspace) as session:
        await call(session, "waymark_read", path="a.py", offset=10, limit=1)
        err, text = await call(
            session,
            "waymark_replace",
            path="a.py",
            old_string="line 10 = value_10\n",
            new_string="line 10 = ten\nline 10b = ten_b\n",
        )
        assert not err, text
        replaced = json.loads(text)
        assert len(text) <= 2000
        assert "snippet" not in replaced
        anchor = _anchor_line(replaced["anchors"], "line 10b = ten_b")
        # The anchor from the result is good for the next edit without a re-read.
        op = {"op": "replace_line", "hash": anchor, "content": "line 10b = B"}
        err, text = await call(session, "waymark_edit", path="a.py", operations=[op])
        assert not err, text
        edited = json.loads(text)
        assert "anchoredDiff" not in edited
        anchor = _anchor_line(edited["anchors"], "line 10b = B")
        err, text = await call(
            session,
            "waymark_write",
            path="small.txt",
            content="one\ntwo\n",
        )
        assert not err, text
        written = json.loads(text)
        op = {"op": "insert_after", "hash": _anchor_line(written["anchors"], "two"), "content": "3"}
        err, text = await call(session, "waymark_edit", path="small.txt", operations=[op])
        assert not err, text
    lines = (workspace / "a.py").read_text().splitlines()
    assert lines[10:12] == ["line 10 = ten", "line 10b = B"]
    assert (workspace / "small.txt").read_bytes() == b"one\ntwo\n3\n"


async def test_large_changes_of_every_editing_tool_stay_within_budget(workspace: Path) -> None:
    (workspace / "a.txt").write_text(LONG)
    (workspace / "b.txt").write_text(LONG)
    patch = "--- /dev/null\n+++ b/p.txt\n@@ -0,0 +1,1000 @@\n" + "".join(
        "+" + line + "\n" for line in BIG.splitlines()
    )
    (workspace / "n.ipynb").write_text(json.dumps(NOTEBOOK, indent=1) + "\n")
    async with connect(workspace) as session:
        for path in ("a.txt", "b.txt", "n.ipynb"):
            await call(session, "waymark_read", path=path, limit=1)
        calls = [
            ("waymark_sed", {"command": "sed -i 's/value/V/' a.txt"}),
            (
                "waymark_replace",
                {
                    "path": "b.txt",
                    "old_string": "value",
                    "new_string": "W",
                    "expected_replacements": 3000,
                },
            ),
            ("waymark_patch", {"patch": patch}),
            (
                "waymark_multi_replace",
                {
                    "path": "a.txt",
                    "edits": [
                        {"old_string": "V", "new_string": "v", "expected_replacements": 3000}
                    ],
                },
            ),
            (
                "waymark_notebook_edit",
                {
                    "path": "n.ipynb",
                    "operations": [{"op": "replace_cell", "cell": "c1", "source": BIG}],
                },
            ),
        ]
        for tool, arguments in calls:
            err, text = await call(session, tool, **arguments)
            assert not err, (tool, text)
            assert len(text) <= 2000, (tool, len(text))
            result = json.loads(text)
            assert result["notShown"], (tool, result)
            assert "row 00500" not in text
            for line in result["notShown"]:
                assert re.fullmatch(r".+ \+\d+ −\d+", line), line
    assert (workspace / "a.txt").read_text() == LONG.replace("value_", "v_")
    assert (workspace / "p.txt").read_text() == BIG


async def test_two_hundred_turns_are_paged(workspace: Path) -> None:
    async with connect(workspace) as session:
        for n in range(200):
            assert not (await call(session, "waymark_snapshot", promptId=f"t{n:03d}"))[0]
            assert not (await call(session, "waymark_write", path=f"f{n}.txt", content=f"{n}\n"))[0]
        err, text = await call(session, "waymark_turns")
        assert not err, text
        assert len(text) <= 4000
        first = json.loads(text)
        shown = [t["promptId"] for t in first["turns"]]
        live = [t["promptId"] for t in cli(workspace, "turns")["turns"]]
        assert shown == live[-len(shown) :] and shown[-1] == "t199"
        assert first["older"] == len(live) - len(shown) > 0
        assert f'"before":"{shown[0]}"' in first["more"]
        err, text = await call(session, "waymark_turns", before=shown[0], limit=5)
        assert not err, text
        page = json.loads(text)
        oldest = int(shown[0][1:])
        assert [t["promptId"] for t in page["turns"]] == [
            f"t{n:03d}" for n in range(oldest - 5, oldest)
        ]
        assert page["older"] == live.index(shown[0]) - 5

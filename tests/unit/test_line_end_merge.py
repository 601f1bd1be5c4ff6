"""A lone CR and an empty LF line after it read back as one CRLF line: an edit must never
write that meeting (the file would not re-read as the lines the edit reports)."""

from __future__ import annotations

import json
import operator
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from helpers_commands import Agent, put
from helpers_mcp import call, connect
from waymark.commands.edit import plan_edit
from waymark.commands.edit_ops import parse_operations
from waymark.engine.anchors import line_hash
from waymark.engine.errors import LineEndingsWouldMerge, WaymarkError
from waymark.engine.text import TextFile

REPRO = b"alpha one\rbeta two\ngamma three\ndelta four\n"
# Deleting line 2 would put the lone-CR line 1 right before the (untouched) empty LF line 3.
DELETION = b"alpha one\rbeta two\n\ngamma three\n"
REFUSAL = (
    "Line 1 ends in a lone CR and the empty line after it in LF, so after this edit the two "
    "would read back as one line; include that empty line in the edit, or change one of "
    "their line endings first."
)


def h(text: str) -> str:
    return line_hash(text)[:6]


def edited(data: bytes, ops: list[dict[str, Any]]) -> tuple[bytes, int]:
    """The bytes an edit writes, and the line count it reports."""
    tf = TextFile.decode(data)
    plan = plan_edit(tf, parse_operations(ops))
    return plan.encode(data), plan.details["lines_after"]


@pytest.mark.parametrize(
    ("data", "ops", "want"),
    [
        # The new empty line takes the lone CR of the line above.
        (REPRO, [{"op": "insert_after", "hash": h("alpha one"), "content": ""}],
         b"alpha one\r\rbeta two\ngamma three\ndelta four\n"),
        (b"a\rb\nc\n", [{"op": "replace_line", "hash": h("b"), "content": ""}], b"a\r\rc\n"),
        (b"a\rb\nc\n", [{"op": "insert_before", "hash": h("b"), "content": "\n\nx"}],
         b"a\r\r\rx\nb\nc\n"),
        (b"x\ny\nz\r", [{"op": "insert_after", "hash": h("z"), "content": ""}], b"x\ny\nz\r\r"),
        # A new lone-CR line before an untouched empty LF line ends in CRLF instead.
        (b"a\rb\n\nc\r", [{"op": "insert_after", "hash": h("b"), "content": "x"}],
         b"a\rb\nx\r\n\nc\r"),
        # An empty last line cannot lack a terminator: it would be no line at all.
        (b"a", [{"op": "insert_after", "hash": h("a"), "content": ""}], b"a\n\n"),
        (b"a\n\nb", [{"op": "delete_line", "hash": h("b")}], b"a\n\n"),
    ],
)  # fmt: skip
def test_written_bytes_re_read_as_the_reported_lines(
    data: bytes, ops: list[dict[str, Any]], want: bytes
) -> None:
    written, lines_after = edited(data, ops)
    assert written == want
    assert len(TextFile.decode(written).lines) == lines_after


def test_a_deletion_that_brings_the_two_together_is_refused() -> None:
    with pytest.raises(LineEndingsWouldMerge) as info:
        edited(DELETION, [{"op": "delete_line", "hash": h("beta two")}])
    assert info.value.code == "line_endings_would_merge"
    assert info.value.message == REFUSAL
    assert info.value.details == {"line": 1}


def test_the_cli_refuses_and_writes_nothing(workspace: Path) -> None:
    put(workspace, "a.txt", DELETION)
    op = json.dumps([{"op": "delete_line", "hash": h("beta two")}])
    done = subprocess.run(
        [sys.executable, "-m", "waymark", "edit", "a.txt", "--ops", op, "--json"],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    answer = json.loads(done.stdout or done.stderr)
    assert (answer["error"], answer["message"]) == ("line_endings_would_merge", REFUSAL)
    assert (workspace / "a.txt").read_bytes() == DELETION


async def test_mcp_writes_the_inserted_empty_line_and_refuses_the_merge(workspace: Path) -> None:
    put(workspace, "a.txt", REPRO)
    put(workspace, "b.txt", DELETION)
    async with connect(workspace) as session:
        for name in ("a.txt", "b.txt"):
            err, text = await call(session, "waymark_read", path=name)
            assert not err, text
        op = {"op": "insert_after", "hash": h("alpha one"), "content": ""}
        err, text = await call(session, "waymark_edit", path="a.txt", operations=[op])
        assert not err, text
        op = {"op": "delete_line", "hash": h("beta two")}
        err, text = await call(session, "waymark_edit", path="b.txt", operations=[op])
    assert err
    assert REFUSAL in text and "line_endings_would_merge" in text
    assert (workspace / "a.txt").read_bytes() == b"alpha one\r\rbeta two\ngamma three\ndelta four\n"
    assert (workspace / "b.txt").read_bytes() == DELETION


async def test_a_patch_gets_the_same_terminators_and_the_same_refusal(
    workspace: Path, tmp_path: Path
) -> None:
    agent = Agent(workspace, tmp_path / "history")
    put(workspace, "a.txt", b"a\rb\nc\n")
    done = await agent("patch", patch="--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+\n c\n")
    assert done["ok"], done
    assert (workspace / "a.txt").read_bytes() == b"a\r\rc\n"
    put(workspace, "b.txt", DELETION)
    patch = "--- a/b.txt\n+++ b/b.txt\n@@ -1,3 +1,2 @@\n alpha one\n-beta two\n \n"
    refused = await agent("patch", patch=patch)
    assert refused["error"] == "line_endings_would_merge"
    assert refused["message"] == REFUSAL.replace("Line 1", "Line 1 of b.txt")
    assert (workspace / "b.txt").read_bytes() == DELETION


_NAMES = [f"line number {i} text" for i in range(8)]
_CONTENT = st.sampled_from(["", "x", "\n", "\nx", "x\n\n", "\n\n\n", "y\r\rz"])
_OPS = st.sampled_from(
    ["insert_after", "insert_before", "replace_line", "delete_line", "replace_range",
     "delete_range"]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.booleans(), min_size=1, max_size=8),
    st.lists(st.sampled_from(["\n", "\r", "\r\n"]), min_size=16, max_size=16),
    st.data(),
)
def test_random_edits_of_mixed_endings_re_read_as_planned(
    named: list[bool], ends: list[str], data: st.DataObject
) -> None:
    # Named lines are unique anchors; empty lines between them are what endings can swallow.
    lines = [_NAMES[i] if keep else "" for i, keep in enumerate(named)]
    text = "".join(map(operator.add, lines, ends))
    if not data.draw(st.booleans()):
        text = text[: -len(ends[len(lines) - 1])]
    raw = text.encode()
    tf = TextFile.decode(raw)
    named_at = [i for i, line in enumerate(tf.lines) if line]
    assume(named_at)
    specs, touched = [], []
    for _ in range(data.draw(st.integers(1, 2))):
        op = data.draw(_OPS)
        first = data.draw(st.sampled_from(named_at))
        last = data.draw(st.sampled_from([i for i in named_at if i >= first]))
        spec: dict[str, Any] = {"op": op}
        if op.endswith("range"):
            assume(last > first)
            spec["start_hash"], spec["end_hash"] = h(tf.lines[first]), h(tf.lines[last])
        else:
            spec["hash"], last = h(tf.lines[first]), first
        if not op.startswith("delete"):
            spec["content"] = data.draw(_CONTENT)
        specs.append(spec)
        touched += [first, last]
    try:
        plan = plan_edit(tf, parse_operations(specs))
    except WaymarkError as exc:
        # Only a refusal of the batch as a whole, never a half-written file (the doors
        # write nothing on an error: test_the_cli_refuses_and_writes_nothing).
        assert exc.code in ("line_endings_would_merge", "safety_check_failed", "no_op",
                            "operations_overlap"), exc  # fmt: skip
        return
    written = plan.encode(raw)
    reread = TextFile.decode(written)
    assert (reread.lines, reread.eols) == (plan.text_file.lines, plan.text_file.eols)
    assert len(reread.lines) == plan.details["lines_after"]
    # Lines away from the edit keep their bytes, terminators included.
    first, last = min(touched), max(touched)
    head, tail = tf.lines_with_ends()[: max(first - 1, 0)], tf.lines_with_ends()[last + 2 :]
    assert written.startswith("".join(head).encode())
    assert written.endswith("".join(tail).encode())

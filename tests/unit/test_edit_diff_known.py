"""An anchored edit's diff skips the lines its planner left alone, and its new file is read
back from the plan's lines: the same bytes and lines as comparing every line and splitting
the new text again (the planner's ``untouched`` is checked against the files)."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from waymark.commands.edit import plan_edit
from waymark.commands.edit_ops import parse_operations
from waymark.engine.anchors import annotate
from waymark.engine.diff import diff_file
from waymark.engine.errors import WaymarkError
from waymark.engine.text import TextFile

# Few distinct lines (anchors collide, diffs find equal runs across the change) and every
# kind of line end, a missing final one included: the endings a splice may change.
# A lone surrogate is a byte that is not UTF-8 (the file is then decided otherwise).
LINES = ["a", "b", "", "{", "é", "x = 1", "\udcff"]
ENDS = ["\n", "\n", "\r\n", "\r"]
OPS = ["replace_line", "insert_after", "insert_before", "delete_line"]
RANGES = ["replace_range", "delete_range"]
# Surrogates that encode to the bytes of "é": they read back as another text.
CONTENTS = ["", "a", "b\n", "x = 1\n{", "\n\n", "z\r\nb", "a\rb", "\udcc3\udca9", "é"]


@st.composite
def edits(draw: st.DrawFn) -> tuple[bytes, list[dict[str, object]]]:
    line = st.one_of(st.sampled_from(LINES), st.from_regex(r"[a-c]{1,2} = [0-9]", fullmatch=True))
    pairs = draw(st.lists(st.tuples(line, st.sampled_from(ENDS)), min_size=1, max_size=40))
    last = draw(st.sampled_from(["", "\n"]))
    text = "".join(line + end for line, end in pairs[:-1]) + pairs[-1][0] + last
    data = text.encode("utf-8", "surrogateescape")
    anchored = annotate(TextFile.decode(data))
    assume(anchored)
    ops: list[dict[str, object]] = []
    for _ in range(draw(st.integers(1, 2))):
        op = draw(st.sampled_from(OPS + RANGES))
        first = draw(st.integers(0, len(anchored) - 1))
        raw: dict[str, object] = {"op": op}
        if op in RANGES:
            end = draw(st.integers(first, len(anchored) - 1))
            raw["start_hash"], raw["end_hash"] = anchored[first].hash, anchored[end].hash
        else:
            raw["hash"], raw["line"] = anchored[first].hash, first + 1
        if not op.startswith("delete"):
            raw["content"] = draw(st.sampled_from(CONTENTS))
        ops.append(raw)
    return data, ops


@settings(max_examples=800, deadline=None)
@given(edits(), st.integers(0, 4))
def test_an_edits_diff_skipping_its_untouched_lines_is_the_full_diff(
    edit: tuple[bytes, list[dict[str, object]]], context: int
) -> None:
    data, ops = edit
    before = TextFile.decode(data)
    try:
        plan = plan_edit(before, parse_operations(ops))
        new = plan.encode(data)
    except WaymarkError:
        return  # refused (a character the file's encoding cannot hold too): no diff is made
    after = before.decode_like(new)
    planned = before.decode_like(new, planned=plan.text_file)
    assert planned == after
    assert (planned.encoding, planned.bom, planned.decision) == (
        after.encoding,
        after.bom,
        after.decision,
    )
    head, tail = plan.untouched
    assert before.lines[:head] == after.lines[:head]
    assert before.eols[:head] == after.eols[:head]
    assert before.lines[len(before.lines) - tail :] == after.lines[len(after.lines) - tail :]
    assert before.eols[len(before.eols) - tail :] == after.eols[len(after.eols) - tail :]
    known = diff_file("f.txt", before, after, context, known=plan.untouched)
    assert known == diff_file("f.txt", before, after, context)


def test_a_replaced_line_in_a_large_file_diffs_as_in_full() -> None:
    # The bench's edit: one line flipped in the middle of 1,000.
    data = "".join(f"value_{i:04d} = {i}\n" for i in range(1, 1001)).encode()
    before = TextFile.decode(data)
    target = annotate(before)[499]
    plan = plan_edit(
        before,
        parse_operations([{"op": "replace_line", "hash": target.hash, "content": "flipped"}]),
    )
    assert plan.untouched == (498, 500)
    after = before.decode_like(plan.encode(data))
    assert diff_file("big.py", before, after, known=plan.untouched).text == (
        "--- a/big.py\n+++ b/big.py\n@@ -497,7 +497,7 @@\n"
        " value_0497 = 497\n value_0498 = 498\n value_0499 = 499\n"
        "-value_0500 = 500\n+flipped\n"
        " value_0501 = 501\n value_0502 = 502\n value_0503 = 503\n"
    )

"""The anchored-edit planner: every op, every error with its details, encodings, batches."""

from __future__ import annotations

from typing import Any

import pytest
from helpers_splices import planned_splices
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from waymark.commands import edit_ops
from waymark.commands.edit import PlannedEdit, plan_edit
from waymark.commands.edit_ops import parse_operations
from waymark.engine.anchors import annotate, context_hash, line_hash
from waymark.engine.edits.operations import RANGE_OPS, SINGLE_OPS, split_content
from waymark.engine.errors import (
    AnchorAmbiguous,
    AnchorContextAmbiguous,
    AnchorLowEntropy,
    AnchorStale,
    InvalidParams,
    InvalidRangeOrder,
    NoOp,
    OperationsOverlap,
    SafetyCheckFailed,
    WaymarkError,
)
from waymark.engine.text import TextFile

SOURCE = b"import os\ndef main():\n    value = compute()\n    print(value)\n    return value\n"


def h(text: str) -> str:
    return line_hash(text)[:6]


def plan(data: bytes, ops: list[dict[str, Any]]) -> PlannedEdit:
    return plan_edit(TextFile.decode(data), parse_operations(ops))


def result(data: bytes, ops: list[dict[str, Any]]) -> bytes:
    return plan(data, ops).text_file.encode()


def error(data: bytes, ops: list[dict[str, Any]]) -> WaymarkError:
    with pytest.raises(WaymarkError) as info:
        plan(data, ops)
    return info.value


# --- the six operations -------------------------------------------------------------------


def test_replace_line() -> None:
    ops = [{"op": "replace_line", "hash": h("    print(value)"), "content": "    log(value)"}]
    assert result(SOURCE, ops) == SOURCE.replace(b"print", b"log")


def test_replace_line_with_several_lines() -> None:
    ops = [{"op": "replace_line", "hash": h("import os"), "content": "import os\nimport sys\n"}]
    assert result(SOURCE, ops) == b"import os\nimport sys\n" + SOURCE[10:]


def test_replace_range() -> None:
    ops = [
        {
            "op": "replace_range",
            "start_hash": h("    value = compute()"),
            "end_hash": h("    print(value)"),
            "content": "    value = 2",
        }
    ]
    assert result(SOURCE, ops) == b"import os\ndef main():\n    value = 2\n    return value\n"


def test_insert_after_and_before() -> None:
    ops = [
        {"op": "insert_after", "hash": h("def main():"), "content": '    """Doc."""'},
        {"op": "insert_before", "hash": h("def main():"), "content": "\n"},
    ]
    assert result(SOURCE, ops) == (
        b'import os\n\ndef main():\n    """Doc."""\n    value = compute()\n'
        b"    print(value)\n    return value\n"
    )


def test_delete_line_and_delete_range() -> None:
    assert result(SOURCE, [{"op": "delete_line", "hash": h("import os")}]) == SOURCE[10:]
    ops = [
        {
            "op": "delete_range",
            "start_hash": h("    value = compute()"),
            "end_hash": h("    return value"),
        }
    ]
    assert result(SOURCE, ops) == b"import os\ndef main():\n"


def test_insert_after_the_last_line() -> None:
    ops = [{"op": "insert_after", "hash": h("    return value"), "content": "main()"}]
    assert result(SOURCE, ops) == SOURCE + b"main()\n"


# --- content splitting and file formats ---------------------------------------------------


@pytest.mark.parametrize(
    ("content", "lines"),
    [
        ("a", ("a",)),
        ("a\n", ("a",)),
        ("a\n\n", ("a", "")),
        ("", ("",)),
        ("\n", ("",)),
        ("a\r\nb\r\n", ("a", "b")),
        ("a\rb", ("a", "b")),
        ("a\u2028b", ("a\u2028b",)),
    ],
)
def test_split_content(content: str, lines: tuple[str, ...]) -> None:
    assert split_content(content) == lines


def test_crlf_file_keeps_untouched_bytes_and_new_lines_take_crlf() -> None:
    data = b"one = 1\r\ntwo = 2\r\nthree = 3\r\n"
    ops = [{"op": "replace_line", "hash": h("two = 2"), "content": "two = 2\nextra = 0\n"}]
    assert result(data, ops) == b"one = 1\r\ntwo = 2\r\nextra = 0\r\nthree = 3\r\n"


def test_crlf_content_in_an_lf_file_becomes_lf() -> None:
    data = b"one = 1\ntwo = 2\n"
    ops = [{"op": "insert_after", "hash": h("one = 1"), "content": "a = 0\r\nb = 0\r\n"}]
    assert result(data, ops) == b"one = 1\na = 0\nb = 0\ntwo = 2\n"


def test_mixed_eols_are_kept_and_new_lines_take_the_dominant_one() -> None:
    data = b"a = 1\r\nb = 2\nc = 3\r\nd = 4\r\n"
    ops = [{"op": "insert_after", "hash": h("b = 2"), "content": "new = 0"}]
    assert result(data, ops) == b"a = 1\r\nb = 2\nnew = 0\r\nc = 3\r\nd = 4\r\n"


def test_utf8_bom_survives() -> None:
    data = b"\xef\xbb\xbfname = 'x'\nother = 1\n"
    ops = [{"op": "replace_line", "hash": h("other = 1"), "content": "other = 2"}]
    assert result(data, ops) == b"\xef\xbb\xbfname = 'x'\nother = 2\n"


def test_utf16_le_with_bom() -> None:
    data = "\ufeffnamé = 1\r\nother = 1\r\n".encode("utf-16-le")
    ops = [{"op": "insert_after", "hash": h("namé = 1"), "content": "new = 2"}]
    expected = "\ufeffnamé = 1\r\nnew = 2\r\nother = 1\r\n".encode("utf-16-le")
    assert result(data, ops) == expected


def test_undecodable_bytes_round_trip_and_can_be_anchored() -> None:
    data = b"bad = '\xff'\ngood = 1\n"
    tf = TextFile.decode(data)
    bad_hash = annotate(tf)[0].hash
    assert bad_hash == line_hash("bad = '\udcff'")[:6]
    ops = [{"op": "replace_line", "hash": h("good = 1"), "content": "good = 2"}]
    assert result(data, ops) == b"bad = '\xff'\ngood = 2\n"
    ops = [{"op": "replace_line", "hash": bad_hash, "content": "bad = 'ok'"}]
    assert result(data, ops) == b"bad = 'ok'\ngood = 1\n"


def test_no_final_newline_replace_insert_delete() -> None:
    data = b"first = 1\nlast = 2"
    replace = [{"op": "replace_line", "hash": h("last = 2"), "content": "last = 3\n"}]
    assert result(data, replace) == b"first = 1\nlast = 3"
    insert = [{"op": "insert_after", "hash": h("last = 2"), "content": "after = 4"}]
    assert result(data, insert) == b"first = 1\nlast = 2\nafter = 4"
    delete = [{"op": "delete_line", "hash": h("last = 2")}]
    assert result(data, delete) == b"first = 1"


# --- resolution: ladder, occurrence, advisory line ------------------------------------------

DUPES = b"alpha = 1\nresult.append(item)\nbeta = 2\nresult.append(item)\ngamma = 3\n"


def test_context_hash_anchor_edits_the_right_copy() -> None:
    ctx = context_hash("beta = 2", "result.append(item)", "gamma = 3")[:6]
    ops = [{"op": "replace_line", "hash": ctx, "content": "result.extend(items)"}]
    assert result(DUPES, ops) == DUPES.replace(
        b"beta = 2\nresult.append(item)", b"beta = 2\nresult.extend(items)"
    )


def test_ambiguous_single_line_op_lists_every_candidate() -> None:
    ops = [{"op": "delete_line", "hash": h("result.append(item)")}]
    err = error(DUPES, ops)
    assert isinstance(err, AnchorAmbiguous)
    assert err.code == "anchor_ambiguous"
    assert err.details["candidates"] == [
        {"line": 2, "preview": "result.append(item)"},
        {"line": 4, "preview": "result.append(item)"},
    ]
    assert err.details["failures"][0]["index"] == 0
    assert "occurrence" in err.message


def test_occurrence_picks_among_candidates() -> None:
    ops = [{"op": "delete_line", "hash": h("result.append(item)"), "occurrence": 2}]
    assert result(DUPES, ops) == b"alpha = 1\nresult.append(item)\nbeta = 2\ngamma = 3\n"


def test_occurrence_beyond_the_candidates_is_stale() -> None:
    ops = [{"op": "delete_line", "hash": h("result.append(item)"), "occurrence": 3}]
    err = error(DUPES, ops)
    assert isinstance(err, AnchorStale)
    assert err.details["suggested_action"] == "re-read_file"


def test_advisory_line_breaks_a_tie_only_when_it_names_a_candidate() -> None:
    ops = [{"op": "delete_line", "hash": h("result.append(item)"), "line": 4}]
    assert result(DUPES, ops) == b"alpha = 1\nresult.append(item)\nbeta = 2\ngamma = 3\n"
    near = [{"op": "delete_line", "hash": h("result.append(item)"), "line": 3}]
    assert isinstance(error(DUPES, near), AnchorAmbiguous)


def test_advisory_line_never_overrides_a_unique_hash() -> None:
    edit = plan(SOURCE, [{"op": "delete_line", "hash": h("import os"), "line": 3}])
    assert edit.text_file.encode() == SOURCE[10:]
    assert edit.warnings == [
        f"operations[0].hash: anchor {h('import os')} is on line 1, not on the advisory "
        "line 3; the hash wins"
    ]


def test_a_pasted_line_hash_pair_and_low_mark_are_accepted() -> None:
    anchor = f"4#{h('    print(value)')}~"
    ops = [{"op": "delete_line", "hash": anchor}]
    assert result(SOURCE, ops) == SOURCE.replace(b"    print(value)\n", b"")


def test_eight_char_anchor_resolves_past_a_prefix_collision() -> None:
    data = b"value = 919\nvalue = 1993\n"
    ops = [{"op": "replace_line", "hash": line_hash("value = 1993")[:8], "content": "v = 0"}]
    assert result(data, ops) == b"value = 919\nv = 0\n"
    six = [{"op": "replace_line", "hash": h("value = 1993"), "content": "v = 0"}]
    assert isinstance(error(data, six), AnchorAmbiguous)


def test_occurrence_suffix_addresses_identical_contexts_in_ranges() -> None:
    data = b"start = 1\n\n\nend = 2\n"
    blank = context_hash("start = 1", "", "end = 2")[:6]
    ops = [{"op": "delete_range", "start_hash": f"{blank}.2", "end_hash": h("end = 2")}]
    assert result(data, ops) == b"start = 1\n\n"


# --- errors --------------------------------------------------------------------------------


def test_stale_anchor() -> None:
    err = error(SOURCE, [{"op": "delete_line", "hash": "abcdef"}])
    assert isinstance(err, AnchorStale)
    assert err.code == "anchor_stale"
    assert err.details == {
        "hash": "abcdef",
        "field": "hash",
        "suggested_action": "re-read_file",
        "failures": [
            {
                "index": 0,
                "op": "delete_line",
                "reason": "anchor_stale",
                "message": "operations[0].hash: anchor abcdef is not in the file any more; "
                "re-read the file",
                "hash": "abcdef",
                "field": "hash",
            }
        ],
    }
    assert err.message.endswith(".")


def test_range_endpoint_ambiguity_names_the_endpoint_and_candidates() -> None:
    data = b"def a():\n    x = 1\n}\ndef b():\n    y = 2\n}\n"
    ops = [{"op": "delete_range", "start_hash": h("def b():"), "end_hash": h("}")}]
    err = error(data, ops)
    assert isinstance(err, AnchorContextAmbiguous)
    assert err.code == "anchor_context_ambiguous"
    assert err.details["endpoint"] == "end_hash"
    assert err.details["candidates"] == [{"line": 3, "preview": "}"}, {"line": 6, "preview": "}"}]


def test_low_entropy_single_line_op_suggests_neighbor_anchors() -> None:
    lines = [f"line_{i} = {i}" for i in range(8)]
    lines.insert(4, "}")
    data = "".join(f"{x}\n" for x in lines).encode()
    err = error(data, [{"op": "replace_line", "hash": h("}"), "content": "};"}])
    assert isinstance(err, AnchorLowEntropy)
    assert err.code == "anchor_low_entropy"
    assert err.details["line"] == 5
    assert err.details["content"] == "}"
    assert err.details["neighbor_anchors"] == [f"{n + 1}#{h(lines[n])}" for n in (1, 2, 3, 5, 6, 7)]


def test_low_entropy_lines_work_as_range_endpoints() -> None:
    data = b"if x:\n    go()\n}\nnext = 1\n"
    ops = [
        {
            "op": "replace_range",
            "start_hash": h("    go()"),
            "end_hash": h("}"),
            "content": "    stop()\n}",
        }
    ]
    assert result(data, ops) == b"if x:\n    stop()\n}\nnext = 1\n"


def test_range_with_start_equal_end_is_invalid() -> None:
    ops = [{"op": "delete_range", "start_hash": h("import os"), "end_hash": h("import os")}]
    err = error(SOURCE, ops)
    assert isinstance(err, InvalidRangeOrder)
    assert err.code == "invalid_range_order"
    assert err.details["line"] == 1
    assert "delete_line" in err.message


def test_reversed_range_is_swapped_and_reported() -> None:
    ops = [
        {"op": "delete_range", "start_hash": h("    return value"), "end_hash": h("def main():")}
    ]
    edit = plan(SOURCE, ops)
    assert edit.text_file.encode() == b"import os\n"
    assert edit.details["auto_corrections"] == [
        {
            "type": "range_order_swapped",
            "index": 0,
            "detail": "operations[0]: start_hash is on line 5 and end_hash on line 2; "
            "used lines 2-5",
        }
    ]


@pytest.mark.parametrize(
    "ops",
    [
        [
            {"op": "replace_line", "hash": h("def main():"), "content": "def run():"},
            {"op": "delete_line", "hash": h("def main():")},
        ],
        [
            {"op": "delete_range", "start_hash": h("import os"), "end_hash": h("    print(value)")},
            {"op": "replace_line", "hash": h("    value = compute()"), "content": "x = 1"},
        ],
        [  # an insert whose anchor line is replaced
            {"op": "replace_line", "hash": h("def main():"), "content": "def run():"},
            {"op": "insert_after", "hash": h("def main():"), "content": "    pass"},
        ],
        [  # two inserts at the same point
            {"op": "insert_after", "hash": h("import os"), "content": "a = 1"},
            {"op": "insert_before", "hash": h("def main():"), "content": "b = 2"},
        ],
    ],
)
def test_overlapping_operations_are_rejected(ops: list[dict[str, Any]]) -> None:
    err = error(SOURCE, ops)
    assert isinstance(err, OperationsOverlap)
    assert err.code == "operations_overlap"
    assert err.details["failures"][0]["index"] == 1
    assert err.details["conflicts_with"] == 0


def test_insert_next_to_a_replaced_line_is_not_an_overlap() -> None:
    ops = [
        {"op": "insert_after", "hash": h("import os"), "content": "import sys"},
        {"op": "replace_line", "hash": h("def main():"), "content": "def run():"},
        {"op": "insert_before", "hash": h("    print(value)"), "content": "    x = 0"},
    ]
    assert result(SOURCE, ops) == (
        b"import os\nimport sys\ndef run():\n    value = compute()\n    x = 0\n"
        b"    print(value)\n    return value\n"
    )


def test_a_failing_batch_lists_every_offending_operation() -> None:
    ops = [
        {"op": "delete_line", "hash": "aaaaaa"},
        {"op": "replace_line", "hash": h("import os"), "content": "import re"},
        {"op": "delete_range", "start_hash": h("def main():"), "end_hash": h("def main():")},
        {"op": "insert_after", "hash": "bbbbbb", "content": "x"},
    ]
    err = error(SOURCE, ops)
    assert isinstance(err, AnchorStale)
    assert [(f["index"], f["op"], f["reason"]) for f in err.details["failures"]] == [
        (0, "delete_line", "anchor_stale"),
        (2, "delete_range", "invalid_range_order"),
        (3, "insert_after", "anchor_stale"),
    ]
    assert "2 more problem(s)" in err.message


def test_operations_resolve_against_the_initial_snapshot() -> None:
    # The second op's anchor is the line the first op replaces the neighbor of; both use
    # the original numbering and hashes, whatever order they are listed in.
    ops = [
        {"op": "insert_after", "hash": h("    return value"), "content": "main()"},
        {"op": "insert_after", "hash": h("import os"), "content": "import sys"},
        {"op": "delete_line", "hash": h("    print(value)")},
    ]
    assert result(SOURCE, ops) == (
        b"import os\nimport sys\ndef main():\n    value = compute()\n    return value\nmain()\n"
    )


def test_an_edit_that_changes_nothing_is_no_op() -> None:
    with pytest.raises(NoOp):
        plan(SOURCE, [{"op": "replace_line", "hash": h("import os"), "content": "import os"}])


# --- parameter validation ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        (None, "operations"),
        ([], "operations"),
        ({"op": "delete_line"}, "operations"),
        (["x"], "operations[0]"),
        ([{"op": "move_line", "hash": "abcdef"}], "operations[0].op"),
        ([{"op": "delete_line"}], "operations[0].hash"),
        ([{"op": "delete_line", "hash": 12}], "operations[0].hash"),
        ([{"op": "delete_line", "hash": "xyz"}], "operations[0].hash"),
        ([{"op": "delete_line", "hash": "abcd"}], "operations[0].hash"),
        ([{"op": "replace_line", "hash": "abcdef"}], "operations[0].content"),
        ([{"op": "replace_line", "hash": "abcdef", "content": 3}], "operations[0].content"),
        ([{"op": "delete_line", "hash": "abcdef", "occurrence": 0}], "operations[0].occurrence"),
        ([{"op": "delete_line", "hash": "abcdef", "line": True}], "operations[0].line"),
        ([{"op": "delete_line", "hash": "abcdef", "content": "x"}], "operations[0].content"),
        ([{"op": "delete_range", "start_hash": "abcdef"}], "operations[0].end_hash"),
        (
            [{"op": "delete_range", "start_hash": "abcdef", "end_hash": "abcdef", "line": 1}],
            "operations[0].line",
        ),
        (
            [
                {"op": "delete_line", "hash": "abcdef"},
                {"op": "delete_line", "hash": "abcdef.2", "occurrence": 1},
            ],
            "operations[1].occurrence",
        ),
    ],
)
def test_invalid_operations_name_the_field(raw: object, field: str) -> None:
    with pytest.raises(InvalidParams) as info:
        parse_operations(raw)
    assert info.value.code == "invalid_params"
    assert info.value.details == {"field": field}
    assert info.value.message.startswith(field + " ")


def test_parsed_tokens_are_normalized() -> None:
    (op,) = parse_operations([{"op": "delete_line", "hash": " 12#ABCDEF.3~ "}])
    assert op.target is not None
    assert (op.target.token, op.target.occurrence, op.target.line) == ("abcdef", 3, 12)


@pytest.mark.parametrize(
    ("raw", "target"),
    [
        ({"hash": "12#abcdef"}, ("abcdef", None, 12)),
        ({"hash": "12#abcdef", "line": 7}, ("abcdef", None, 7)),  # the line given wins
        ({"hash": "abcdef.2", "line": 7}, ("abcdef", 2, 7)),
        ({"hash": "abcdef", "occurrence": 3}, ("abcdef", 3, None)),
        ({"hash": "ABCDEF|"}, ("abcdef", None, None)),
    ],
)
def test_an_anchor_read_again_reads_the_same(raw: dict[str, Any], target: tuple[Any, ...]) -> None:
    # Anchors are parsed once and the parse reused (edit_ops._parsed): the same text with
    # another line or occurrence must still give its own operation.
    for _ in range(2):
        (op,) = parse_operations([{"op": "delete_line", **raw}])
        assert op.target is not None
        assert (op.target.token, op.target.occurrence, op.target.line) == target


# --- result details and diff -------------------------------------------------------------


def test_success_details_and_localized_diff() -> None:
    data = b"a = 1\nb = 2\nc = 3\nd = 4\ne = 5\nf = 6\ng = 7\n"
    ops = [{"op": "replace_line", "hash": h("d = 4"), "content": "d = 40\nd2 = 41"}]
    edit = plan(data, ops)
    assert edit.details == {
        "operations_applied": 1,
        "lines_before": 7,
        "lines_after": 8,
        "net_change": 1,
        "anchors_valid_through": 3,
        "must_refresh_from_line": 4,
        "auto_corrections": [],
        "safety_status": "ok",
    }

    def ctx(line: int, text: str) -> dict[str, Any]:
        return {"kind": "context", "line": line, "text": text, "hash": h(text), "quality": "high"}

    assert edit.diff == [
        {
            "old_start": 2,
            "old_lines": 5,
            "new_start": 2,
            "new_lines": 6,
            "lines": [
                ctx(2, "b = 2"),
                ctx(3, "c = 3"),
                {"kind": "removed", "old_line": 4, "text": "d = 4"},
                {**ctx(4, "d = 40"), "kind": "added"},
                {**ctx(5, "d2 = 41"), "kind": "added"},
                ctx(6, "e = 5"),
                ctx(7, "f = 6"),
            ],
        }
    ]
    assert edit.warnings == []


def test_anchors_valid_through_stops_where_an_earlier_display_changed() -> None:
    # Inserting a copy of line 1 turns line 1 into a repeated line: its displayed anchor
    # changes, so the agent must refresh from line 1 although the edit is further down.
    data = b"shared.call(arg, other)\nb = 2\nc = 3\n"
    ops = [{"op": "insert_after", "hash": h("c = 3"), "content": "shared.call(arg, other)"}]
    edit = plan(data, ops)
    assert edit.details["anchors_valid_through"] == 0
    assert edit.details["must_refresh_from_line"] == 1


def test_distant_changes_make_separate_hunks() -> None:
    data = "".join(f"v{i} = {i}\n" for i in range(20)).encode()
    ops = [
        {"op": "delete_line", "hash": h("v2 = 2")},
        {"op": "delete_line", "hash": h("v15 = 15")},
    ]
    hunks = plan(data, ops).diff
    assert [(x["old_start"], x["old_lines"], x["new_start"], x["new_lines"]) for x in hunks] == [
        (1, 5, 1, 4),
        (14, 5, 13, 4),
    ]


# --- properties: a reference model, and external mutations between read and edit ---------

_POOL = ["", "", "pass", "x = 1", "return None", "item.update(value, key)", "end"]
_line = st.one_of(st.sampled_from(_POOL), st.from_regex(r"[a-z]{1,3} = [0-9]", fullmatch=True))
_lines = st.lists(_line, min_size=1, max_size=30)


def _text(lines: list[str]) -> str:
    return "".join(f"{line}\n" for line in lines)


@st.composite
def _batch(draw: st.DrawFn, lines: list[str]) -> list[tuple[str, int, int]]:
    """Non-overlapping (op, first, last) targets on the initial lines, in random order."""
    anchored = annotate(TextFile.from_text(_text(lines)))
    removed: set[int] = set()
    anchors: set[int] = set()
    points: set[int] = set()
    batch = []
    for _ in range(draw(st.integers(1, 5))):
        op = draw(st.sampled_from([*SINGLE_OPS, *RANGE_OPS]))
        first = draw(st.integers(0, len(lines) - 1))
        last = draw(st.integers(first, len(lines) - 1)) if op in RANGE_OPS else first
        span = set(range(first, last + 1))
        if op in RANGE_OPS:
            if first == last or span & (removed | anchors):
                continue
            removed |= span
        elif anchored[first].quality == "low":
            continue
        elif op.startswith("insert"):
            point = first + 1 if op == "insert_after" else first
            if first in removed or point in points:
                continue
            anchors.add(first)
            points.add(point)
        else:
            if first in removed | anchors:
                continue
            removed.add(first)
        batch.append((op, first, last))
    return batch


def _raw_op(anchored: list[Any], op: str, first: int, last: int, n: int) -> dict[str, Any]:
    raw: dict[str, Any] = {"op": op}
    if op in RANGE_OPS:
        ends = (anchored[first].hash, anchored[last].hash)
        raw["start_hash"], raw["end_hash"] = ends[::-1] if n % 2 else ends  # odd: reversed
    else:
        raw["hash"], raw["line"] = anchored[first].hash, first + 1
    if not op.startswith("delete"):
        raw["content"] = f"new_{n} = {n}\nnew_{n}b = {n}\n"
    return raw


def _reference(lines: list[str], batch: list[tuple[str, int, int]]) -> list[str]:
    edits = []
    for n, (op, first, last) in enumerate(batch):
        new = [] if op.startswith("delete") else [f"new_{n} = {n}", f"new_{n}b = {n}"]
        if op == "insert_after":
            edits.append((first + 1, first + 1, new))
        elif op == "insert_before":
            edits.append((first, first, new))
        else:
            edits.append((first, last + 1, new))
    out: list[str] = []
    pos = 0
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1] > e[0])):
        out += lines[pos:start] + new
        pos = end
    return out + lines[pos:]


@settings(max_examples=500, deadline=None)
@given(st.data(), _lines)
def test_random_valid_batches_match_a_reference_model(
    data: st.DataObject, lines: list[str]
) -> None:
    tf = TextFile.from_text(_text(lines))
    anchored = annotate(tf)
    batch = data.draw(_batch(lines))
    assume(batch)
    raw = [_raw_op(anchored, op, first, last, n) for n, (op, first, last) in enumerate(batch)]
    expected = _reference(lines, batch)
    try:
        edit = plan_edit(tf, parse_operations(raw))
    except SafetyCheckFailed as exc:
        # The pool has no brackets, so only a true new adjacent duplicate may be reported.
        for warning in exc.details["safety_warnings"]:
            assert warning["type"] == "adjacent_duplicate"
            where = warning["line"]
            assert expected[where - 1] == expected[where] == warning["text"]
        return
    assert edit.text_file.encode() == _text(expected).encode()
    swapped = [n for n, (op, _, _) in enumerate(batch) if op in RANGE_OPS and n % 2]
    assert len(edit.details["auto_corrections"]) == len(swapped)


_MUTATION = st.lists(
    st.tuples(st.sampled_from(["insert", "delete", "replace"]), st.integers(0, 40), _line),
    max_size=4,
)


def _mutate(lines: list[str], mutation: list[tuple[str, int, str]]) -> list[str]:
    out = list(lines)
    for kind, where, text in mutation:
        i = where % (len(out) + 1)
        if kind == "insert":
            out.insert(i, text)
        elif out and i < len(out):
            if kind == "delete":
                del out[i]
            else:
                out[i] = text
    return out


@settings(max_examples=500, deadline=None)
@given(st.data(), _lines, _MUTATION)
def test_external_mutations_never_cause_a_wrong_line_edit(
    data: st.DataObject, lines: list[str], mutation: list[tuple[str, int, str]]
) -> None:
    anchored = annotate(TextFile.from_text(_text(lines)))
    op = data.draw(
        st.sampled_from(["replace_line", "insert_after", "delete_line", "replace_range"])
    )
    first = data.draw(st.integers(0, len(lines) - 1))
    last = data.draw(st.integers(first, len(lines) - 1)) if op == "replace_range" else first
    copy_target = data.draw(st.booleans())
    if copy_target:  # the nastiest mutation: another copy of the target line
        mutation = [*mutation, ("insert", data.draw(st.integers(0, 40)), lines[first])]
    mutated = _mutate(lines, mutation)
    raw = _raw_op(anchored, op, first, last, 0)
    if data.draw(st.booleans()):
        raw.pop("line", None)
    try:
        edit = plan_edit(TextFile.from_text(_text(mutated)), parse_operations([raw]))
    except WaymarkError:
        return  # rejected: always acceptable
    after = list(edit.text_file.lines)
    if op == "delete_line":
        assert any(
            mutated[j] == lines[first] and mutated[:j] + mutated[j + 1 :] == after
            for j in range(len(mutated))
        )
        return
    j = after.index("new_0 = 0")
    if op == "insert_after":
        assert mutated[j - 1] == lines[first]
        assert after == [*mutated[:j], "new_0 = 0", "new_0b = 0", *mutated[j:]]
    elif op == "replace_line":
        assert mutated[j] == lines[first]
        assert after == [*mutated[:j], "new_0 = 0", "new_0b = 0", *mutated[j + 1 :]]
    else:
        k = j + len(mutated) - len(after) + 1
        assert (mutated[j], mutated[k]) in {
            (lines[first], lines[last]),
            (lines[last], lines[first]),
        }
        assert after == [*mutated[:j], "new_0 = 0", "new_0b = 0", *mutated[k + 1 :]]


def test_reversed_range_is_refused_when_swapping_is_off() -> None:
    ops = parse_operations(
        [{"op": "delete_range", "start_hash": h("    return value"), "end_hash": h("def main():")}]
    )
    with pytest.raises(InvalidRangeOrder) as info:
        plan_edit(TextFile.decode(SOURCE), ops, swap_reversed_ranges=False)
    assert info.value.details["line"] == 5
    assert info.value.details["end_line"] == 2
    assert info.value.details["reversed"] is True


@settings(max_examples=500, deadline=None)
@given(st.data(), st.lists(st.sampled_from(["x", "y", ""]), min_size=1, max_size=12))
def test_one_pass_apply_equals_splicing_one_by_one(data: st.DataObject, lines: list[str]) -> None:
    from waymark.engine.anchors import hash_lines
    from waymark.engine.edits.splice import apply_splices

    eol = data.draw(st.sampled_from(["\n", "\r\n"]))
    final = data.draw(st.booleans())
    tf = TextFile(tuple(lines), tuple([eol] * (len(lines) - 1) + [eol if final else ""]))
    splices = data.draw(planned_splices(len(lines)))
    expected = tf
    # New lines take the original file's terminator even where an earlier splice left the
    # file with none (deleting every terminated line, then inserting).
    for sp in sorted(splices, key=lambda s: (s.start, s.end > s.start), reverse=True):
        expected = expected.splice(sp.start, sp.end, sp.lines, eol=tf.eol)
    after, hashes = apply_splices(tf, hash_lines(tf.lines), splices)
    assert after == expected
    assert hashes == hash_lines(expected.lines)


def test_more_operations_than_the_limit_is_invalid_params() -> None:
    from waymark.commands.edit_ops import MAX_OPERATIONS

    raw = [{"op": "delete_line", "hash": "abcdef"}] * (MAX_OPERATIONS + 1)
    with pytest.raises(InvalidParams) as info:
        parse_operations(raw)
    assert info.value.details == {
        "field": "operations",
        "count": MAX_OPERATIONS + 1,
        "limit": MAX_OPERATIONS,
    }


def test_only_anchor_sized_text_is_kept_parsed() -> None:
    # A request's anchors are parsed once and kept a while; a huge `hash` is not kept.
    edit_ops._parsed.cache_clear()
    huge = "a1b2c3" + " " * 100_000
    (op,) = parse_operations([{"op": "delete_line", "hash": huge}])
    assert op.target is not None and op.target.token == "a1b2c3"
    assert edit_ops._parsed.cache_info().currsize == 0
    parse_operations([{"op": "delete_line", "hash": "a1b2c3"}])
    assert edit_ops._parsed.cache_info().currsize == 1

"""The columnar anchor paths against the straightforward reference (anchors_reference.py,
the index as it was before issue 43): the same tokens, qualities, candidates, rendered text,
read JSON, and after an anchored edit the same anchors_valid_through, diff anchors and bytes.
"""

from __future__ import annotations

from typing import Any
from unittest.mock import patch

import anchors_reference as ref
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from waymark.commands.edit_ops import parse_operations
from waymark.engine import core
from waymark.engine.anchors import LineIndex, annotate, annotate_range, as_json, render
from waymark.engine.displays import displays
from waymark.engine.edits import valid_through as valid_through_module
from waymark.engine.edits.anchored import plan_anchored_edit
from waymark.engine.edits.reindex import IndexAfterEdit
from waymark.engine.edits.safety import Change
from waymark.engine.errors import WaymarkError
from waymark.engine.line_index import hash_lines
from waymark.engine.text import TextFile

# Blank and punctuation lines, boilerplate, two texts whose hashes share a 6-char prefix, a
# line with the same 6-char prefix as a context hash would need brute force: the prefix
# tables are exercised by the colliding pair and by the small alphabet of the rest.
_POOL = [
    "",
    "",
    "",
    "  ",
    "}",
    "    )",
    "pass",
    "x = 1",
    "return None",
    "item.update(value, key)",
    "value = 919",
    "value = 1993",
]
_line = st.one_of(
    st.sampled_from(_POOL),
    st.from_regex(r"[a-c]{1,2} = [0-9]", fullmatch=True),
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), max_size=4),
)
_lines = st.lists(_line, min_size=1, max_size=40)
_eol = st.sampled_from(["\n", "\r\n"])


def _file(lines: list[str], eol: str = "\n") -> TextFile:
    return TextFile.from_text("".join(f"{line}{eol}" for line in lines))


def _reference_rows(tf: TextFile) -> list[ref.AnchoredLine]:
    return ref.annotate(tf)


@settings(max_examples=400, deadline=None)
@given(_lines, _eol)
def test_annotate_render_and_json_match_the_reference(lines: list[str], eol: str) -> None:
    tf = _file(lines, eol)
    expected = _reference_rows(tf)
    shown = annotate(tf)
    assert len(shown) == len(expected)
    assert [tuple(a) for a in shown] == [tuple(a) for a in expected]
    assert [tuple(shown[i]) for i in range(len(shown))] == [tuple(a) for a in expected]
    assert render(shown) == ref.render(expected)
    assert as_json(shown) == [a._asdict() for a in expected]


@settings(max_examples=300, deadline=None)
@given(_lines, st.integers(0, 45), st.integers(1, 45))
def test_pages_match_the_reference(lines: list[str], start: int, size: int) -> None:
    tf = _file(lines)
    page = annotate_range(tf, start, start + size)
    expected = _reference_rows(tf)[start : start + size]
    assert [tuple(a) for a in page] == [tuple(a) for a in expected]
    assert render(page) == ref.render(expected)
    assert as_json(page) == [a._asdict() for a in expected]


@settings(max_examples=300, deadline=None)
@given(_lines, st.lists(st.integers(0, 60), max_size=8))
def test_candidates_and_displays_match_the_reference(lines: list[str], picks: list[int]) -> None:
    tf = _file(lines)
    index, expected = LineIndex(tf.lines), ref.LineIndex(tf.lines)
    everything = list(range(len(lines)))
    assert displays(index, everything) == [expected.display(i) for i in everything]
    tokens = {expected.display(i).partition(".")[0] for i in everything}
    tokens |= {h[:n] for h in expected.ctx.values() for n in (6, 7, 8)}
    tokens |= {ref.line_hash(line)[:n] for line in lines for n in (6, 8, 16)}
    for token in sorted(tokens):
        assert index.candidates(token) == expected.candidates(token), token
    for i in picks:
        if i < len(lines):
            assert index.quality(i) == expected.quality(i)


def test_long_blank_runs_give_the_reference_contexts() -> None:
    # Runs longer than the short walk: the neighbours come from the non-blank lines' list.
    lines = ["a = 1", *[""] * 30, "b = 2", "    ", *[""] * 12, "a = 1", "", "c = 3", *[""] * 20]
    tf = _file(lines)
    assert LineIndex(tf.lines).ctx == ref.LineIndex(tf.lines).ctx
    assert render(annotate(tf)) == ref.render(_reference_rows(tf))


@st.composite
def _edit(draw: st.DrawFn) -> tuple[list[str], list[str], list[Change]]:
    """A file and the same file with a few regions replaced (in old and new coordinates)."""
    lines = draw(_lines)
    changes: list[Change] = []
    new: list[str] = []
    pos = 0
    for start in sorted(set(draw(st.lists(st.integers(0, len(lines)), min_size=1, max_size=3)))):
        if start < pos:
            continue
        end = draw(st.integers(start, min(len(lines), start + 4)))
        added = draw(st.lists(_line, max_size=3))
        new += lines[pos:start]
        changes.append(Change(start, end, len(new), len(new) + len(added)))
        new += added
        pos = end
    new += lines[pos:]
    return lines, new, changes


_repetitive_line = st.sampled_from(["", "", "  ", "}", "x = 1", "a = 1", "return None"])


@st.composite
def _repetitive_edit(draw: st.DrawFn) -> tuple[list[str], list[str], list[Change]]:
    """An edit of a file made mostly of blank and repeated lines, in long runs."""
    runs = draw(st.lists(st.tuples(_repetitive_line, st.integers(1, 12)), min_size=1))
    lines = [line for line, n in runs for _ in range(n)]
    changes: list[Change] = []
    new: list[str] = []
    pos = 0
    for start in sorted(set(draw(st.lists(st.integers(0, len(lines)), min_size=1, max_size=3)))):
        if start < pos:
            continue
        end = draw(st.integers(start, min(len(lines), start + 4)))
        added = draw(st.lists(st.one_of(_repetitive_line, _line), max_size=3))
        new += lines[pos:start]
        changes.append(Change(start, end, len(new), len(new) + len(added)))
        new += added
        pos = end
    new += lines[pos:]
    return lines, new, changes


@settings(max_examples=400, deadline=None)
@given(st.one_of(_edit(), _repetitive_edit()), st.booleans())
def test_the_index_after_an_edit_answers_like_a_fresh_one(
    edit: tuple[list[str], list[str], list[Change]], old_contexts_known: bool
) -> None:
    lines, new, changes = edit
    old = LineIndex(tuple(lines))
    if old_contexts_known:
        old.ctx  # noqa: B018 (computed, so the new index reuses them)
    after = IndexAfterEdit(old, tuple(new), hash_lines(new), changes)
    expected = ref.LineIndex(tuple(new))
    assert after.ctx == expected.ctx
    assert after.p6_count == expected.p6_count
    assert after.shared == expected.shared
    everything = list(range(len(new)))
    assert displays(after, everything) == [expected.display(i) for i in everything]
    # The lines the edit wrote are found by key (the index knows where they are), the rest
    # by a scan: both as a fresh index finds them.
    for token in {expected.display(i) for i in everything}:
        assert after.candidates(token) == expected.candidates(token), token


_SINGLE = ["replace_line", "insert_after", "insert_before", "delete_line"]


@settings(max_examples=400, deadline=None)
@given(st.data(), _lines)
def test_an_edit_matches_the_reference(data: st.DataObject, lines: list[str]) -> None:
    tf = _file(lines)
    rows = _reference_rows(tf)
    op = data.draw(st.sampled_from([*_SINGLE, "replace_range", "delete_range"]))
    first = data.draw(st.integers(0, len(lines) - 1))
    raw: dict[str, Any] = {"op": op}
    if op in _SINGLE:
        assume(rows[first].quality != "low")
        raw["hash"] = rows[first].hash
        last = first
    else:
        last = data.draw(st.integers(first, len(lines) - 1))
        assume(last > first)
        raw["start_hash"], raw["end_hash"] = rows[first].hash, rows[last].hash
    content = data.draw(st.lists(_line, min_size=1, max_size=3))
    if not op.startswith("delete"):
        raw["content"] = "".join(f"{line}\n" for line in content)
    start = {"insert_after": first + 1}.get(op, first)
    end = start if op.startswith("insert") else last + 1
    new = [*lines[:start], *([] if op.startswith("delete") else content), *lines[end:]]
    try:
        plan = plan_anchored_edit(tf, parse_operations([raw]))
    except WaymarkError:
        return  # refusals are the same code paths as before (test_anchored_edit.py)
    assert plan.text_file.encode() == "".join(f"{line}\n" for line in new).encode()
    old_index, new_index = ref.LineIndex(tf.lines), ref.LineIndex(tuple(new))
    valid = next((i for i in range(start) if old_index.display(i) != new_index.display(i)), start)
    assert plan.details["anchors_valid_through"] == valid
    for hunk in plan.diff:
        for row in hunk["lines"]:
            if row["kind"] != "removed":
                i = row["line"] - 1
                assert (row["text"], row["hash"], row["quality"]) == (
                    new[i],
                    new_index.display(i),
                    new_index.quality(i),
                )


_EOLS = st.lists(st.sampled_from(["\n", "\r\n", "\r", ""]), max_size=12)


def _dominant_reference(eols: list[str]) -> str:
    counts = {eol: eols.count(eol) for eol in ("\n", "\r\n", "\r")}
    best = max(counts.values())
    tied = [eol for eol in ("\n", "\r\n", "\r") if counts[eol] == best]
    return "\n" if best == 0 else tied[0] if len(tied) == 1 else min(tied, key=eols.index)


@settings(max_examples=300, deadline=None)
@given(_EOLS)
def test_text_terminators_and_style_match_the_per_line_join(eols: list[str]) -> None:
    # Only the last line may lack a terminator in a real file; the join must hold anyway.
    lines = tuple(f"l{i}" for i in range(len(eols)))
    tf = TextFile(lines, tuple(eols))
    assert tf.text == "".join(line + eol for line, eol in zip(lines, eols, strict=True))
    assert tf.eol == _dominant_reference(eols)
    kinds = {eol for eol in eols if eol}
    assert tf.eol_style == (
        "mixed"
        if len(kinds) > 1
        else {"\r\n": "crlf", "\r": "cr"}.get(next(iter(kinds), "\n"), "lf")
    )


@settings(max_examples=600, deadline=None)
@given(st.one_of(_edit(), _repetitive_edit()), st.sampled_from([2_000, 1]))
def test_anchors_valid_through_matches_the_ladder_run_on_every_line(
    edit: tuple[list[str], list[str], list[Change]], near_limit: int
) -> None:
    # near_limit 1: the lines near a change are too many to vouch for, all are compared.
    lines, new, changes = edit
    old = LineIndex(tuple(lines))
    after = IndexAfterEdit(old, tuple(new), hash_lines(new), changes)
    before_ref, after_ref = ref.LineIndex(tuple(lines)), ref.LineIndex(tuple(new))
    first = changes[0].old_start
    expected = next(
        (i for i in range(first) if before_ref.display(i) != after_ref.display(i)), first
    )
    with patch.object(valid_through_module, "_NEAR_LIMIT", near_limit):
        assert valid_through_module.valid_through(old, after, changes) == expected


def test_an_edit_far_from_repeated_lines_hashes_no_context_of_the_file_before() -> None:
    # Blank lines above the edit repeat, but nothing near the edit does: their anchors are
    # vouched for without the context hashes of every repeated line of the old file.
    lines = ["", "import os", "", *(f"v{i} = {i}" for i in range(40)), "", "end = 0"]
    tf = _file(lines)
    target = ref.LineIndex(tf.lines).display(30)
    plan = plan_anchored_edit(
        tf, parse_operations([{"op": "replace_line", "hash": target, "content": "v = 0"}])
    )
    assert plan.details["anchors_valid_through"] == 30
    assert not plan.index._before.ctx_known


def test_an_edit_next_to_a_blank_line_hashes_no_context_of_either_file() -> None:
    # The blank line above the edit shows a context anchor that the edit changes: it and the
    # diff's blank line are decided by one pass over the repeated lines, not every context.
    lines = ["", "import os", "", *(f"v{i} = {i}" for i in range(40)), "", "end = 0"]
    lines[30] = ""
    tf = _file(lines)
    target = ref.LineIndex(tf.lines).display(31)
    with core.using(core.BUILT):
        plan = plan_anchored_edit(
            tf, parse_operations([{"op": "replace_line", "hash": target, "content": "v = 0"}])
        )
    new = ref.LineIndex(plan.text_file.lines)
    assert plan.details["anchors_valid_through"] == 30
    assert [row["hash"] for row in plan.diff[0]["lines"] if row["kind"] != "removed"] == [
        new.display(i) for i in range(29, 34)
    ]
    assert not plan.index._before.ctx_known
    assert not plan.index.ctx_known

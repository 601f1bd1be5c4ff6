"""An edited file's index, made from the index before (engine/edits/reindex.py), edit after
edit as the language server chains them: it answers as a fresh index of the same lines, on
both paths. Its prefix counts keep a prefix whose last line left at 0 (a count of 0 reads as
no line having it), so the tables copy as one block at the next edit."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anchors_reference as ref
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from waymark.commands.edit_ops import parse_operations
from waymark.engine import core
from waymark.engine.anchors import LineIndex
from waymark.engine.displays import displays
from waymark.engine.edits import reindex
from waymark.engine.edits.anchored import plan_anchored_edit
from waymark.engine.edits.operations import OperationsRefused
from waymark.engine.edits.reindex import IndexAfterEdit
from waymark.engine.edits.safety import Change
from waymark.engine.errors import WaymarkError
from waymark.engine.line_index import hash_lines
from waymark.engine.text import TextFile

# The first "}"'s context hash starts as the hash of q17925698 does (found by search, as in
# test_core_differential.py): while that line is there, the ladder steps past it.
_TAKEN = ["}", "}", "q17925698", "keep = 1"]


@pytest.fixture(params=["pure", "native"])
def path(request: pytest.FixtureRequest) -> Iterator[None]:
    with core.using(None if request.param == "pure" else core.BUILT):
        yield


def _after(old: LineIndex, new: list[str], changes: list[Change]) -> IndexAfterEdit:
    index = IndexAfterEdit(old, tuple(new), hash_lines(new), changes)
    index.release()  # as line_indexes keeps it
    return index


def _same_as_fresh(index: LineIndex) -> None:
    fresh = ref.LineIndex(tuple(index.lines))
    everything = list(range(len(index.lines)))
    shown = [fresh.display(i) for i in everything]
    assert displays(index, everything) == shown
    assert displays(index, everything, one_off=True) == shown
    assert [index.display(i) for i in everything] == shown
    assert index.p6_count == fresh.p6_count  # a Counter's missing keys count 0
    assert index.shared == fresh.shared
    for token in {*shown, *(s[:6] for s in shown)}:
        assert index.candidates(token) == fresh.candidates(token), token


@pytest.mark.usefixtures("path")
def test_a_prefix_whose_line_left_no_longer_takes_a_context_prefix() -> None:
    before = LineIndex(tuple(_TAKEN))
    assert displays(before, [0]) != [before.ctx[0][:6]]  # the line's prefix is taken
    after = _after(before, ["}", "}", "keep = 1"], [Change(2, 3, 2, 2)])
    assert after.p6_count[before.p6[2]] == 0
    assert displays(after, [0]) == [after.ctx[0][:6]]
    _same_as_fresh(after)
    # And back: the prefix counted again takes the context prefix again.
    again = _after(after, list(_TAKEN), [Change(2, 2, 2, 3)])
    assert displays(again, [0]) == displays(LineIndex(tuple(_TAKEN)), [0])
    _same_as_fresh(again)


_line = st.sampled_from(["", "}", "x = 1", "a = 1", "q17925698", "value = 919", "value = 1993"])
_replace = st.tuples(st.integers(0, 30), st.integers(0, 3), st.lists(_line, max_size=3))


@pytest.mark.usefixtures("path")
@settings(max_examples=60, deadline=None)
@given(
    st.lists(_line, min_size=1, max_size=30),
    st.lists(_replace, min_size=1, max_size=25),
    st.sampled_from([0, 2, 64]),
)
def test_a_chain_of_edits_answers_as_a_fresh_index(
    lines: list[str], edits: list[tuple[int, int, list[str]]], zeros: int
) -> None:
    index = LineIndex(tuple(lines))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(reindex, "_ZEROS", zeros)  # 0 and 2: the zeros dropped along the way
        for start, removed, added in edits:
            start = min(start, len(lines))
            end = min(start + removed, len(lines))
            lines = [*lines[:start], *added, *lines[end:]]
            index = _after(index, lines, [Change(start, end, start, start + len(added))])
            assert len(index.p6_count) <= len(lines) + zeros
            _same_as_fresh(index)


def _plan_fields(plan: Any) -> tuple[Any, ...]:
    return plan.text_file.lines, plan.text_file.eols, plan.details, plan.diff


_source = st.sampled_from(["", "", "}", "x = 1", "return None", "value = 919", "def f():", "a"])


@pytest.mark.usefixtures("path")
@settings(max_examples=80, deadline=None)
@given(
    st.lists(_source, min_size=2, max_size=40),
    st.lists(st.tuples(st.integers(0, 40), _source, st.booleans()), min_size=1, max_size=8),
)
def test_a_chain_of_plans_answers_as_plans_on_fresh_indexes(
    lines: list[str], edits: list[tuple[int, str, bool]]
) -> None:
    # As the language server plans: each edit on the index the last one derived (its context
    # hashes made, or not), against the same edit planned from scratch.
    tf = TextFile.from_text("".join(f"{line}\n" for line in lines))
    kept: LineIndex | None = None
    for at, content, contexts in edits:
        fresh = LineIndex(tf.lines)
        token = fresh.display(at % len(tf.lines))
        ops = parse_operations([{"op": "replace_line", "hash": token, "content": content}])
        try:
            expected = plan_anchored_edit(tf, ops)
        except (WaymarkError, OperationsRefused):
            continue
        if kept is not None and contexts:
            # Made, as an earlier diff may have made them: a plan then takes them as they are.
            assert kept.ctx == kept.context_hashes_of(kept.repeated_lines)
        plan = plan_anchored_edit(tf, ops, index=kept)
        assert _plan_fields(plan) == _plan_fields(expected)
        plan.index.release()
        tf, kept = plan.text_file, plan.index

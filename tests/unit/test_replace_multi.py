"""``waymark.multiReplace`` plans: sequential, all or nothing, conflicts refused up front.

The properties compare against references written here from ``str`` operations only, not
from the engine: the sequential fold of single replacements, and the simultaneous
application of every edit to the text as read.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from waymark.commands.replace import multi_replace_text
from waymark.engine.edits.replace import ReplaceEdit
from waymark.engine.errors import WaymarkError
from waymark.engine.text import TextFile

E = ReplaceEdit
CONF = "[a]\nx = 1\ny = 2\n[b]\nx = 1\nz = 3\n"


def conflicts(text: str, edits: Sequence[ReplaceEdit]) -> list[dict[str, object]]:
    with pytest.raises(WaymarkError) as info:
        multi_replace_text(text, edits)
    assert info.value.code == "edit_conflict", info.value.message
    result: list[dict[str, object]] = info.value.details["conflicts"]
    return result


def refused(text: str, edits: Sequence[ReplaceEdit], code: str) -> WaymarkError:
    with pytest.raises(WaymarkError) as info:
        multi_replace_text(text, edits)
    assert info.value.code == code, info.value.message
    return info.value


# --- success ------------------------------------------------------------------------------


def test_edits_apply_in_order_to_one_text() -> None:
    result = multi_replace_text(
        CONF, [E("[a]\nx = 1", "[a]\nx = 10"), E("z = 3\n", "z = 30\nw = 4\n"), E("[b]", "[B]")]
    )
    assert result.text == "[a]\nx = 10\ny = 2\n[B]\nx = 1\nz = 30\nw = 4\n"
    assert result.replacements == 3
    assert result.edits_applied == 3
    marked = [row for row in result.snippet.splitlines() if row.startswith(">")]
    assert marked == ["> 2 | x = 10", "> 4 | [B]", "> 6 | z = 30", "> 7 | w = 4"]


def test_adjacent_targets_are_not_a_conflict() -> None:
    result = multi_replace_text("abcd", [E("ab", "X"), E("cd", "Y")])
    assert result.text == "XY"


def test_counts_sum_over_edits() -> None:
    result = multi_replace_text(CONF, [E("x = 1", "x = 9", 2), E("y", "Y")])
    assert result.text == CONF.replace("x = 1", "x = 9").replace("y", "Y")
    assert result.replacements == 3


def test_crlf_batch_keeps_crlf() -> None:
    data = CONF.replace("\n", "\r\n").encode()
    tf = TextFile.decode(data)
    result = multi_replace_text(tf.text, [E("y = 2\n", "y = 2\nv = 5\n"), E("[b]\nx", "[b]\nq")])
    expected = "[a]\nx = 1\ny = 2\nv = 5\n[b]\nq = 1\nz = 3\n".replace("\n", "\r\n").encode()
    assert tf.encode_text(result.text) == expected


# --- conflicts ----------------------------------------------------------------------------


def test_later_edit_matching_only_earlier_output() -> None:
    found = conflicts(CONF, [E("y = 2", "y = 2 # two"), E("# two", "# 2")])
    assert found == [{"edits": [0, 1], "reason": "depends_on_earlier_output"}]


def test_later_edit_whose_match_gains_an_occurrence_from_earlier_output() -> None:
    # "z = 3" exists once in the file, but edit 0 writes a second one.
    found = conflicts(CONF, [E("y = 2", "z = 3"), E("z = 3", "z = 4")])
    assert found == [{"edits": [0, 1], "reason": "depends_on_earlier_output"}]


def test_later_edit_matching_across_an_earlier_deletion() -> None:
    found = conflicts("aXb\n", [E("X", ""), E("ab", "c")])
    assert found == [{"edits": [0, 1], "reason": "depends_on_earlier_output"}]


def test_overlapping_targets() -> None:
    found = conflicts(CONF, [E("x = 1\ny", "x = 1\nY"), E("y = 2", "y = 3")])
    assert found == [{"edits": [0, 1], "reason": "overlapping_targets", "line": 3}]


def test_overlap_in_the_other_order_is_reported_the_same_way() -> None:
    found = conflicts(CONF, [E("y = 2", "y = 3"), E("x = 1\ny", "x = 1\nY")])
    assert found == [{"edits": [0, 1], "reason": "overlapping_targets", "line": 3}]


def test_same_text_replaced_two_ways() -> None:
    found = conflicts(CONF, [E("z = 3", "z = 4"), E("y = 2", "y = 0"), E("z = 3", "z = 5")])
    assert found == [{"edits": [0, 2], "reason": "same_target", "line": 6}]


def test_duplicate_edit() -> None:
    found = conflicts(CONF, [E("z = 3", "z = 4"), E("z = 3", "z = 4")])
    assert found == [{"edits": [0, 1], "reason": "duplicate_edit", "line": 6}]


def test_every_conflicting_pair_is_listed() -> None:
    err = refused(
        CONF,
        [E("[a]", "[A]"), E("[A]", "[AA]"), E("z = 3", "z = 4"), E("= 3", "= 5")],
        "edit_conflict",
    )
    assert err.details["conflicts"] == [
        {"edits": [0, 1], "reason": "depends_on_earlier_output"},
        {"edits": [2, 3], "reason": "overlapping_targets", "line": 6},
    ]
    assert "edits[0] and edits[1]" in err.message
    assert "edits[2] and edits[3]" in err.message


# --- other refusals -----------------------------------------------------------------------


def test_empty_batch() -> None:
    err = refused(CONF, [], "invalid_params")
    assert err.details == {"field": "edits"}


def test_empty_old_string_names_the_edit() -> None:
    err = refused(CONF, [E("x", "y", 2), E("", "new")], "invalid_params")
    assert err.details == {"edit_index": 1, "field": "edits[1].old_string", "use": "waymark.write"}


def test_identical_strings_name_the_edit() -> None:
    err = refused(CONF, [E("[a]", "[A]"), E("[b]", "[b]")], "no_op")
    assert err.details == {"edit_index": 1}
    assert err.message.startswith("edits[1]: ")


def test_line_ending_only_edit_is_a_no_op() -> None:
    text = CONF.replace("\n", "\r\n")
    err = refused(text, [E("[a]", "[A]"), E("[b]\r\n", "[b]\n")], "no_op")
    assert err.details == {"edit_index": 1}


def test_miss_names_the_edit_and_suggests() -> None:
    err = refused(CONF, [E("[a]", "[A]"), E("  y = 2", "  y = 3")], "old_string_not_found")
    assert err.message.startswith("edits[1]: ")
    assert err.details["edit_index"] == 1
    assert err.details["file_text"] == "y = 2"


def test_count_mismatch_names_the_edit() -> None:
    err = refused(CONF, [E("[a]", "[A]"), E("x = 1", "x = 2")], "replacement_count_mismatch")
    assert err.details == {"edit_index": 1, "expected": 1, "found": 2, "lines": [2, 5]}


def test_first_failing_edit_is_reported() -> None:
    err = refused(CONF, [E("nope", "x"), E("x = 1", "x = 2")], "old_string_not_found")
    assert err.details["edit_index"] == 0


# --- properties ---------------------------------------------------------------------------


def naive_fold(text: str, edits: Sequence[ReplaceEdit]) -> str | None:
    """Sequential single replacements with ``str`` only; ``None`` where one would fail."""
    for edit in edits:
        found = text.count(edit.old_string)
        if not edit.old_string or edit.old_string == edit.new_string:
            return None
        if found != edit.expected_replacements:
            return None
        text = text.replace(edit.old_string, edit.new_string)
    return text


def naive_simultaneous(text: str, edits: Sequence[ReplaceEdit]) -> str:
    """Every edit applied to the text as read; the targets must be pairwise disjoint."""
    spans: list[tuple[int, int, str]] = []
    for edit in edits:
        pos = text.find(edit.old_string)
        while pos >= 0:
            spans.append((pos, pos + len(edit.old_string), edit.new_string))
            pos = text.find(edit.old_string, pos + len(edit.old_string))
    spans.sort()
    out, pos = [], 0
    for start, end, new in spans:
        assert start >= pos, "targets overlap"
        out += [text[pos:start], new]
        pos = end
    return "".join(out) + text[pos:]


ALPHABET = "ab\n"


@st.composite
def batches(draw: st.DrawFn, alphabet: str = ALPHABET) -> tuple[str, list[ReplaceEdit]]:
    text = draw(st.text(alphabet, max_size=24))
    edits = []
    for _ in range(draw(st.integers(1, 4))):
        if text and draw(st.booleans()):
            start = draw(st.integers(0, len(text) - 1))
            old = text[start : draw(st.integers(start + 1, min(len(text), start + 5)))]
        else:
            old = draw(st.text(alphabet, min_size=1, max_size=4))
        new = draw(st.text(alphabet + "c", max_size=5))
        count = draw(st.sampled_from([max(1, text.count(old)), 1, 2]))
        edits.append(ReplaceEdit(old, new, count))
    return text, edits


@st.composite
def disjoint_batches(draw: st.DrawFn, alphabet: str = ALPHABET) -> tuple[str, list[ReplaceEdit]]:
    """Batches cut from separate slices of the text: mostly valid, with the odd interaction."""
    text = draw(st.text(alphabet + "cdefgh", min_size=6, max_size=60))
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), min_size=4, max_size=10, unique=True)))
    edits = []
    for start, end in zip(cuts[::2], cuts[1::2], strict=False):
        old = text[start:end]
        new = draw(st.text(alphabet + "xy", max_size=4))
        edits.append(ReplaceEdit(old, new + "x" if new == old else new, text.count(old)))
    return text, draw(st.permutations(edits))


REFUSALS = {"edit_conflict", "old_string_not_found", "replacement_count_mismatch", "no_op"}


@settings(max_examples=800, deadline=None)
@given(st.one_of(batches(), disjoint_batches(), disjoint_batches()))
def test_multi_replace_is_the_sequential_application_or_fails(
    batch: tuple[str, list[ReplaceEdit]],
) -> None:
    text, edits = batch
    try:
        result = multi_replace_text(text, edits)
    except WaymarkError as exc:
        assert exc.code in REFUSALS
        return
    assert result.text == naive_fold(text, edits)
    assert result.text == naive_simultaneous(text, edits)
    assert result.replacements == sum(e.expected_replacements for e in edits)
    assert result.edits_applied == len(edits)


@settings(max_examples=300, deadline=None)
@given(st.one_of(batches(), disjoint_batches()))
def test_multi_replace_on_crlf_is_the_lf_result_with_crlf(
    batch: tuple[str, list[ReplaceEdit]],
) -> None:
    lf, edits = batch
    assume("\n" in lf)  # a file without line breaks has no style to keep: new lines are LF
    crlf = lf.replace("\n", "\r\n")
    try:
        result = multi_replace_text(crlf, edits)
    except WaymarkError as exc:
        assert exc.code in REFUSALS
        return
    expected = naive_fold(lf, edits)
    assert expected is not None
    assert result.text == expected.replace("\n", "\r\n")


@settings(max_examples=300, deadline=None)
@given(st.one_of(batches(), disjoint_batches()))
def test_a_batch_succeeding_means_every_single_step_succeeds(
    batch: tuple[str, list[ReplaceEdit]],
) -> None:
    text, edits = batch
    fold = naive_fold(text, edits)
    try:
        multi_replace_text(text, edits)
    except WaymarkError:
        return
    assert fold is not None

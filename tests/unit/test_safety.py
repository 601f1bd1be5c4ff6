"""Suspicious-edit checks, directly and through the anchored planner."""

from __future__ import annotations

import pytest

from waymark.commands.edit_ops import parse_operations
from waymark.engine.anchors import line_hash
from waymark.engine.edits.anchored import plan_anchored_edit
from waymark.engine.edits.safety import Change, check_safety
from waymark.engine.errors import SafetyCheckFailed
from waymark.engine.text import TextFile


def tf(text: str) -> TextFile:
    return TextFile.from_text(text)


def test_sane_edit_has_no_warnings() -> None:
    before = tf("f(a)\nx = [1]\n")
    after = tf("f(a, b)\nx = [1]\n")
    assert check_safety(before, after, [Change(0, 1, 0, 1)]) == []


def test_unbalancing_brackets_is_suspicious() -> None:
    before = tf("call(\n    a,\n)\n")
    after = tf("call(\n    a,\n")
    assert check_safety(before, after, [Change(2, 3, 2, 2)]) == [
        {
            "type": "unbalanced_brackets",
            "bracket": "()",
            "imbalance": 1,
            "detail": "the file had as many '(' as ')'; after the edit it has 1 more '('",
        }
    ]


def test_a_file_that_was_already_unbalanced_is_not_blamed() -> None:
    before = tf("s = ':)'\n")
    after = tf("s = ':))'\n")
    assert check_safety(before, after, [Change(0, 1, 0, 1)]) == []


def test_each_bracket_kind_is_checked() -> None:
    warnings = check_safety(tf("a[0]\nb{1}\n"), tf("a[0\nb{1}}\n"), [Change(0, 2, 0, 2)])
    assert [(w["bracket"], w["imbalance"]) for w in warnings] == [("[]", 1), ("{}", -1)]


def test_new_adjacent_duplicate_is_suspicious() -> None:
    before = tf("a = 1\nb = 2\n")
    after = tf("a = 1\na = 1\nb = 2\n")
    assert check_safety(before, after, [Change(1, 1, 1, 2)]) == [
        {
            "type": "adjacent_duplicate",
            "line": 1,
            "text": "a = 1",
            "detail": "lines 1 and 2 would both be 'a = 1'",
        }
    ]


def test_existing_duplicates_and_blank_lines_are_fine() -> None:
    before = tf("x = 1\nx = 1\ny = 2\n")
    after = tf("x = 1\nx = 1\ny = 3\n\n\n")
    assert check_safety(before, after, [Change(2, 3, 2, 5)]) == []


def test_planner_refuses_a_suspicious_edit() -> None:
    ops = parse_operations(
        [{"op": "insert_after", "hash": line_hash("total += 1")[:6], "content": "total += 1"}]
    )
    with pytest.raises(SafetyCheckFailed) as info:
        plan_anchored_edit(tf("total = 0\ntotal += 1\nprint(total)\n"), ops)
    assert info.value.code == "safety_check_failed"
    assert info.value.details["safety_warnings"][0]["type"] == "adjacent_duplicate"
    assert info.value.message == (
        "The edit looks wrong (lines 2 and 3 would both be 'total += 1'); nothing was changed, "
        "check the anchors and content and retry."
    )

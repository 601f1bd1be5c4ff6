"""The exact refusals of ``waymark.edit``'s operation items, as an agent reads them: the
per-class field lookups made once (commands/params.py, edit_ops.py) must word them alike."""

from __future__ import annotations

from typing import Any

import pytest

from waymark.commands.edit import EditParams
from waymark.commands.edit_ops import parse_operations
from waymark.commands.params import structure
from waymark.engine.edits.operations import Anchor
from waymark.engine.errors import InvalidParams

_CASES: list[tuple[dict[str, Any], str, str]] = [
    (
        {"op": "replace_line", "hash": "a1b2c3", "content": "x", "occurrence": 0},
        "operations[0].occurrence must be an integer >= 1.",
        "operations[0].occurrence",
    ),
    (
        {"op": "insert_after", "hash": "a1b2c3", "content": "x", "line": -2},
        "operations[0].line must be an integer >= 1.",
        "operations[0].line",
    ),
    (
        # Several faults: the one the checks have always named first.
        {"op": "replace_line", "hash": "zz", "content": 3, "line": 0, "occurrence": 0},
        "operations[0].content is required and must be a string.",
        "operations[0].content",
    ),
    (
        {"op": "replace_line", "hash": "a1b2c3", "content": "x", "ocurrence": 2},
        "operations[0].ocurrence is not a field of replace_line.",
        "operations[0].ocurrence",
    ),
    (
        {"op": "delete_range", "start_hash": "a1b2c3", "end_hash": "nothex"},
        "operations[0].end_hash is not an anchor: 'nothex' (expected 6-16 hex chars).",
        "operations[0].end_hash",
    ),
    (
        {"op": "replace_line", "hash": "a1b2c3.2", "content": "x", "occurrence": 3},
        "operations[0].occurrence contradicts the .N suffix of the hash.",
        "operations[0].occurrence",
    ),
]


@pytest.mark.parametrize(("item", "message", "field"), _CASES)
def test_item_refusal_words(item: dict[str, Any], message: str, field: str) -> None:
    # Twice: the second request meets the per-class tables the first one filled.
    for _ in range(2):
        with pytest.raises(InvalidParams) as caught:
            structure({"path": "a.py", "operations": [item]}, EditParams)
        assert str(caught.value) == message
        assert caught.value.details == {"field": field}


def test_item_within_minimums_is_taken() -> None:
    item = {"op": "replace_line", "hash": "a1b2c3", "content": "x", "occurrence": 1, "line": 1}
    params = structure({"path": "a.py", "operations": [item]}, EditParams)
    assert (params.operations[0].occurrence, params.operations[0].line) == (1, 1)


@pytest.mark.parametrize(
    ("item", "target"),
    [
        ({"op": "replace_line", "hash": "A1B2C3", "content": "x"}, Anchor("a1b2c3")),
        ({"op": "delete_line", "hash": "a1b2c3.2"}, Anchor("a1b2c3", 2)),
        ({"op": "delete_line", "hash": "a1b2c3.2", "occurrence": 2}, Anchor("a1b2c3", 2)),
        ({"op": "delete_line", "hash": "a1b2c3", "occurrence": 3}, Anchor("a1b2c3", 3)),
        ({"op": "insert_after", "hash": "12#a1b2c3~", "content": ""}, Anchor("a1b2c3", None, 12)),
        (
            {"op": "insert_before", "hash": "12#a1b2c3", "content": "", "line": 4},
            Anchor("a1b2c3", None, 4),
        ),
    ],
)
def test_item_anchors_as_the_engine_gets_them(item: dict[str, Any], target: Anchor) -> None:
    (operation,) = parse_operations([item])
    assert operation.target == target
    assert operation.start is None and operation.end is None


def test_range_anchors_as_the_engine_gets_them() -> None:
    item = {"op": "replace_range", "start_hash": "a1b2c3.2", "end_hash": "d4e5f6", "content": ""}
    (operation,) = parse_operations([item])
    assert (operation.start, operation.end, operation.target, operation.content) == (
        Anchor("a1b2c3", 2),
        Anchor("d4e5f6"),
        None,
        ("",),
    )

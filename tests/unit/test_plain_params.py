"""Params structured without cattrs when every field is a plain JSON value
(commands/params.py, ``_plain_structure``) come out as cattrs makes them, and every params
cattrs refuses are refused in the same words: every command's params and every edit
operation, on good and malformed values alike, against the cattrs path alone."""

from __future__ import annotations

from typing import Any
from unittest.mock import patch

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from waymark.commands import params
from waymark.commands.edit import EditParams
from waymark.commands.edit_ops import _CLASSES
from waymark.commands.registry import COMMANDS
from waymark.engine.errors import InvalidParams

_CLASSES_STRUCTURED = sorted(
    {c.params for c in COMMANDS.values()} | set(_CLASSES.values()), key=lambda c: c.__name__
)

_ITEMS: list[Any] = [
    {"op": "replace_line", "hash": "a1b2c3", "content": "x"},
    {"op": "replace_line", "hash": "a1b2c3.2", "content": "x", "occurrence": 2, "line": 4},
    {"op": "insert_after", "hash": "12#a1b2c3~", "content": "x\ny"},
    {"op": "delete_range", "start_hash": "a1b2c3", "end_hash": "d4e5f6"},
    {"op": "replace_range", "start_hash": "a1b2c3", "end_hash": "d4e5f6", "content": ""},
    {"op": "replace_line", "hash": "zz", "content": 3, "line": 0, "occurrence": 0},
    {"op": "replace_line", "hash": "a1b2c3", "content": "x", "occurrence": True},
    {"op": "replace_line", "hash": "a1b2c3", "content": None},
    {"op": "delete_line", "hash": "a1b2c3", "line": 1.0},
    {"op": "delete_line", "hash": "a1b2c3", "content": "x"},
    {"op": "replace_line", "hash": "a1b2c3.2", "content": "x", "occurrence": 3},
    {"op": "nope", "hash": "a1b2c3"},
    {"hash": "a1b2c3"},
    "replace_line",
    [],
]
_SCALARS = st.sampled_from(
    [None, True, False, 0, 1, -1, 3, 2.5, 1.0, "", "a.py", "a1b2c3", "utf-8", "x" * 3, [], {}]
)
_VALUES = st.one_of(
    _SCALARS,
    st.lists(st.sampled_from(_ITEMS), max_size=3),
    st.sampled_from(_ITEMS),
    st.lists(_SCALARS, max_size=2),
    st.dictionaries(st.sampled_from(["a", "op"]), _SCALARS, max_size=2),
)


@st.composite
def _raw(draw: st.DrawFn) -> tuple[type[Any], Any]:
    cls = draw(st.sampled_from(_CLASSES_STRUCTURED))
    names = [a.name for a in attrs.fields(cls)] + ["preveiw", "unknown"]
    raw = draw(st.dictionaries(st.sampled_from(names), _VALUES, max_size=len(names)))
    if "op" in raw and draw(st.booleans()):
        raw["op"] = draw(st.sampled_from(list(_CLASSES)))
    return cls, raw


def _outcome(structure: Any, raw: Any, cls: type[Any]) -> tuple[str, Any]:
    try:
        value = structure(raw, cls)
    except InvalidParams as exc:
        return "refused", (str(exc), exc.details, exc.next_step)
    except params.BadFields as exc:
        return "bad fields", exc.names
    return "taken", value


def _both(structure: Any, raw: Any, cls: type[Any]) -> None:
    plain = _outcome(structure, raw, cls)
    with patch.object(params, "_plain_structure", lambda raw, cls: None):
        cattrs_only = _outcome(structure, raw, cls)
    assert plain == cattrs_only


@settings(max_examples=1500, deadline=None)
@given(_raw())
def test_structure_as_cattrs_alone(case: tuple[type[Any], Any]) -> None:
    cls, raw = case
    _both(params.structure, raw, cls)
    if cls in _CLASSES.values():
        _both(params.structure_item, raw, cls)


@pytest.mark.parametrize("item", _ITEMS)
def test_edit_items_as_cattrs_alone(item: Any) -> None:
    _both(params.structure, {"path": "a.py", "operations": [item]}, EditParams)
    _both(params.structure, {"path": "a.py", "operations": [item], "preview": 1}, EditParams)
    _both(params.structure, {"operations": [item], "path": 3}, EditParams)


def test_the_edit_takes_the_plain_way() -> None:
    # The bench's edit: no cattrs call at all.
    raw = {"path": "a.py", "operations": [{"op": "replace_line", "hash": "a1b2c3", "content": "x"}]}
    with patch.object(params, "_converter", None):
        got = params.structure(raw, EditParams)
    assert got.path == "a.py" and got.operations[0].content == "x"

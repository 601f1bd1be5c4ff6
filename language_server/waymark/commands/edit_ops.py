"""The items of ``waymark.edit``'s ``operations``: one class per op, schema and parser at once.

Each class is what the tool's JSON Schema shows for its op (``schema.object_schema``) and what
:func:`structure_operations` turns a raw item into, with the exact type checks of
``params.structure``; what types cannot say (anchor syntax, a ``.N`` suffix that contradicts
``occurrence``) is checked right after. Refusals keep the wording agents already know:
``operations[2].hash is not an anchor: …``.
"""

from __future__ import annotations

import functools
import re
import typing
from collections.abc import Sequence
from typing import Any, Literal, cast

import attrs

from waymark.commands.descriptions import ANCHOR, CONTENT
from waymark.commands.params import BadFields, register_hook, structure_item
from waymark.commands.schema import param
from waymark.engine.anchors import LOW_MARK, TOKEN_RE
from waymark.engine.edits.operations import (
    RANGE_OPS,
    SINGLE_OPS,
    Anchor,
    Operation,
    split_content,
)
from waymark.engine.errors import InvalidParams

_OCCURRENCE = "Which of several lines sharing the hash (1-based)."
_LINE = "Advisory line number (the hash wins)."


@attrs.define(kw_only=True)
class ReplaceLine:
    op: Literal["replace_line"] = param("Replace the line at `hash` with `content`.")
    hash: str = param(ANCHOR)
    content: str = param(CONTENT)
    occurrence: int | None = param(_OCCURRENCE, default=None, minimum=1)
    line: int | None = param(_LINE, default=None, minimum=1)


@attrs.define(kw_only=True)
class InsertAfter:
    op: Literal["insert_after"] = param("Insert `content` after the line at `hash`.")
    hash: str = param(ANCHOR)
    content: str = param(CONTENT)
    occurrence: int | None = param(_OCCURRENCE, default=None, minimum=1)
    line: int | None = param(_LINE, default=None, minimum=1)


@attrs.define(kw_only=True)
class InsertBefore:
    op: Literal["insert_before"] = param("Insert `content` before the line at `hash`.")
    hash: str = param(ANCHOR)
    content: str = param(CONTENT)
    occurrence: int | None = param(_OCCURRENCE, default=None, minimum=1)
    line: int | None = param(_LINE, default=None, minimum=1)


@attrs.define(kw_only=True)
class DeleteLine:
    op: Literal["delete_line"] = param("Delete the line at `hash`.")
    hash: str = param(ANCHOR)
    occurrence: int | None = param(_OCCURRENCE, default=None, minimum=1)
    line: int | None = param(_LINE, default=None, minimum=1)


@attrs.define(kw_only=True)
class ReplaceRange:
    op: Literal["replace_range"] = param(
        "Replace the lines from `start_hash` through `end_hash` with `content`."
    )
    start_hash: str = param(ANCHOR)
    end_hash: str = param(ANCHOR)
    content: str = param(CONTENT)


@attrs.define(kw_only=True)
class DeleteRange:
    op: Literal["delete_range"] = param("Delete the lines from `start_hash` through `end_hash`.")
    start_hash: str = param(ANCHOR)
    end_hash: str = param(ANCHOR)


EditOperation = ReplaceLine | ReplaceRange | InsertAfter | InsertBefore | DeleteLine | DeleteRange
SingleLine = ReplaceLine | InsertAfter | InsertBefore | DeleteLine


def _op_of(cls: type[Any]) -> str:
    (op,) = typing.get_args(typing.get_type_hints(cls)["op"])
    return str(op)


_BY_OP = {_op_of(cls): cls for cls in typing.get_args(EditOperation)}
# In the order refusals have always listed them.
_CLASSES: dict[str, type[Any]] = {op: _BY_OP[op] for op in (*SINGLE_OPS, *RANGE_OPS)}
_ANCHORS = ("hash", "start_hash", "end_hash")
# Each op's anchor fields, in that order, and the ops of one line (looked up for every item).
_ANCHORS_OF = {
    cls: tuple(name for name in _ANCHORS if name in attrs.fields_dict(cls))
    for cls in _CLASSES.values()
}
_SINGLE = frozenset(typing.get_args(SingleLine))
# Each op's field names, looked up for every key of every item.
_FIELDS: dict[type[Any], frozenset[str]] = {
    cls: frozenset(attrs.fields_dict(cls)) for cls in _CLASSES.values()
}

# One request may not ask for unbounded work (docs/anchored-edits.md, "Limits"); planning is
# O(lines + ops log ops), so this only bounds the size of the answer.
MAX_OPERATIONS = 10_000
_LINE_PREFIX = re.compile(r"^\s*([0-9]+)\s*#")
_ANCHOR_PROBLEM = "is required and must be a string such as 'a1b2c3'"
_PROBLEMS = {
    "content": "is required and must be a string",
    "start_hash": _ANCHOR_PROBLEM,
    "end_hash": _ANCHOR_PROBLEM,
    "occurrence": "must be an integer >= 1",
    "line": "must be an integer >= 1",
    "hash": _ANCHOR_PROBLEM,
}
_EMPTY = "must be a non-empty array of operations"


def _refuse(field: str, problem: str) -> InvalidParams:
    return InvalidParams(f"{field} {problem}.", {"field": field})


def _anchor(value: str, line: int | None = None) -> Anchor | None:
    """``value`` as an anchor (``a1b2c3``, ``a1b2c3.2``, a pasted ``12#a1b2c3~``), or None."""
    parsed = _parsed_anchor(value)
    if parsed is None:
        return None
    token, occurrence, pasted = parsed
    return Anchor(token, occurrence, line if pasted is None else line or pasted)


def _parsed_anchor(value: str) -> tuple[str, int | None, int | None] | None:
    # Each operation's anchor is read when its item is checked, again for its ``.N`` and
    # when it becomes an operation: parsed once. Only anchor-sized text is kept.
    return _parsed(value) if len(value) <= _KEPT else _parse(value)


def _parse(value: str) -> tuple[str, int | None, int | None] | None:
    """``(token, occurrence, pasted line)`` of an anchor, or None."""
    text = value.strip().lower()
    match = _LINE_PREFIX.match(text)
    line = None
    if match:
        # A model may paste the whole `LINE#HASH`; the line part is only advisory.
        line = int(match.group(1))
        text = text[match.end() :]
    parsed = TOKEN_RE.match(text.rstrip("|").strip().removesuffix(LOW_MARK))
    if not parsed:
        return None
    occurrence = int(parsed.group(2)) if parsed.group(2) else None
    return parsed.group(1), occurrence, line


_parsed = functools.lru_cache(maxsize=256)(_parse)
_KEPT = 64  # longer than any anchor, even pasted as `123456#0123456789abcdef.12~|`


def _structure_one(i: int, raw: object) -> EditOperation:
    where = f"operations[{i}]"
    if not isinstance(raw, dict):
        raise _refuse(where, "must be an object")
    op = raw.get("op")
    cls = _CLASSES.get(op) if isinstance(op, str) else None
    if cls is None:
        raise _refuse(f"{where}.op", f"must be one of {', '.join(_CLASSES)}")
    known = _FIELDS[cls]
    for key in raw:
        if key not in known:
            raise _refuse(f"{where}.{key}", f"is not a field of {op}")
    problems: dict[str, str] = {}
    try:
        item: EditOperation = structure_item(raw, cls)
    except BadFields as exc:
        problems = {name: _PROBLEMS[name] for name in exc.names}
    for name in _ANCHORS_OF[cls]:
        value = raw.get(name)
        if isinstance(value, str) and _parsed_anchor(value) is None:
            problems[name] = f"is not an anchor: {value!r} (expected 6-16 hex chars)"
    if problems:
        # The order the checks have always run in, so a many-fault item gets the same answer.
        name = min(problems, key=list(_PROBLEMS).index)
        raise _refuse(f"{where}.{name}", problems[name])
    one = cast(SingleLine, item)
    if cls in _SINGLE and one.occurrence:
        suffix = _parsed_anchor(one.hash)
        if suffix and suffix[1] not in (None, one.occurrence):
            raise _refuse(f"{where}.occurrence", "contradicts the .N suffix of the hash")
    return item


def structure_operations(raw: object) -> list[EditOperation]:
    """The ``operations`` array, item by item; InvalidParams names the offending field."""
    if not isinstance(raw, list) or not raw:
        raise _refuse("operations", _EMPTY)
    if len(raw) > MAX_OPERATIONS:
        raise InvalidParams(
            f"operations has {len(raw)} entries, over the limit of {MAX_OPERATIONS} per edit",
            {"field": "operations", "count": len(raw), "limit": MAX_OPERATIONS},
            next_step="split",
        )
    return [_structure_one(i, item) for i, item in enumerate(raw)]


register_hook(list[EditOperation], structure_operations)


def _operation(i: int, item: EditOperation) -> Operation:
    content = split_content(item.content) if hasattr(item, "content") else None
    if type(item) in _SINGLE:
        one = cast(SingleLine, item)
        target = _anchor(one.hash, one.line)
        assert target is not None  # checked by _structure_one
        if one.occurrence and one.occurrence != target.occurrence:
            target = Anchor(target.token, one.occurrence, target.line)
        return Operation(i, one.op, target, content=content)
    item = cast(ReplaceRange | DeleteRange, item)
    start, end = _anchor(item.start_hash), _anchor(item.end_hash)
    assert start is not None and end is not None
    return Operation(i, item.op, start=start, end=end, content=content)


def to_operations(items: Sequence[EditOperation]) -> list[Operation]:
    """The engine's operations for structured ``items``; an empty batch is refused."""
    if not items:
        raise _refuse("operations", _EMPTY)
    return [_operation(i, item) for i, item in enumerate(items)]


def parse_operations(raw: object) -> list[Operation]:
    """A raw ``operations`` array as the engine's operations (what ``waymark.edit`` does)."""
    return to_operations(structure_operations(raw))

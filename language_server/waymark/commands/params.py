"""Command parameters: JSON objects structured into attrs classes, strictly.

cattrs alone would turn ``3`` into ``"3"`` and ``true`` into ``1``; an agent that sends the
wrong type should hear about it, so str/int/bool/float are checked exactly and the error
names the offending field. An unknown field is refused too (naming it and the known ones):
a misspelled ``preveiw`` silently dropped would write what was meant as a preview.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypeVar

import attrs
import cattrs
from cattrs.errors import ClassValidationError, ForbiddenExtraKeysError

from waymark.engine.errors import InvalidParams

T = TypeVar("T")

_converter = cattrs.Converter(forbid_extra_keys=True)


def _strict(kind: type[Any], name: str) -> Any:
    def hook(value: Any, _: Any) -> Any:
        if type(value) is bool and kind is not bool:
            raise TypeError(f"expected {name}, got a boolean")
        if kind is float and isinstance(value, int):
            return float(value)
        if not isinstance(value, kind):
            raise TypeError(f"expected {name}, got {type(value).__name__}")
        return value

    return hook


for _kind, _name in ((str, "a string"), (int, "an integer"), (bool, "a boolean")):
    _converter.register_structure_hook(_kind, _strict(_kind, _name))
_converter.register_structure_hook(float, _strict(float, "a number"))
_converter.register_structure_hook(Any, lambda value, _: value)


def _field_of(path: str) -> str:
    # cattrs reports "$.edits[1].old_string"; agents know it as "edits[1].old_string".
    return path.removeprefix("$").removeprefix(".") or "params"


def structure(raw: object, cls: type[T]) -> T:
    """Structure ``raw`` into ``cls`` or raise :class:`InvalidParams` naming the field."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise InvalidParams(
            "Command arguments must be a single JSON object: arguments: [{...}].",
            {"field": "params"},
        )
    try:
        return _converter.structure(raw, cls)
    except (ClassValidationError, ForbiddenExtraKeysError) as exc:
        problems = cattrs.transform_error(exc)
        unknown = _unknown_fields(exc, problems)
        if unknown is not None:
            raise unknown from exc
        first = problems[0] if problems else "invalid parameters"
        message, _, where = first.partition(" @ ")
        field = _field_of(where)
        if message.startswith("required field missing"):
            sentence = f"The parameter `{field}` is required."
        else:
            sentence = f"The parameter `{field}` is invalid: {message}."
        raise InvalidParams(sentence, {"field": field, "problems": problems}) from exc


def _unknown_fields(exc: BaseException, problems: list[str]) -> InvalidParams | None:
    for problem in problems:
        if not problem.startswith("extra fields found"):
            continue
        _, _, where = problem.partition(" @ ")
        extra = next(_extras(exc))
        prefix = _field_of(where)
        names = sorted(extra.extra_fields)
        field = names[0] if prefix == "params" else f"{prefix}.{names[0]}"
        known = [a.name for a in attrs.fields(extra.cl)]
        listed = ", ".join(f"`{n}`" for n in names)
        return InvalidParams(
            f"Unknown parameter {listed}{'' if prefix == 'params' else ' in ' + prefix}; "
            f"the known ones are {', '.join(known) or 'none'}. Nothing was changed.",
            {"field": field, "unknown": names, "known": known, "problems": problems},
        )
    return None


def _extras(exc: BaseException) -> Iterator[ForbiddenExtraKeysError]:
    # transform_error lists problems in the order of this walk.
    if isinstance(exc, ForbiddenExtraKeysError):
        yield exc
    for inner in getattr(exc, "exceptions", ()):
        yield from _extras(inner)


def require(condition: bool, field: str, message: str) -> None:
    """Reject a value cattrs accepted but the contract does not (ranges, enums)."""
    if not condition:
        raise InvalidParams(f"The parameter `{field}` is invalid: {message}.", {"field": field})

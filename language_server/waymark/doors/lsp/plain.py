"""An lsprotocol value as the JSON pygls' converter makes of it, without generating code.

cattrs converts an attrs class by generating and compiling a function for it the first time
it meets the class: worth it for a shape converted again and again, not for the
``initialize`` answer, converted once per process, whose server capabilities span ~26
classes (5 ms of ``waymark-ls``'s start-up, most of it ``compile``). :func:`plain` walks such
a value instead, giving what lsprotocol's hooks give (``tests/unit/test_lsp_plain.py`` holds
it against them): per attrs field, the camelCase name (a trailing ``_`` dropped); a field
equal to its default left out unless lsprotocol marks it as kept (``is_special_property``);
the fields always written first, in their order, then the others that are written; enums as
their values; lists and tuples as lists; any other value as it is.
"""

from __future__ import annotations

import enum
from typing import Any

import attrs
from lsprotocol.types import is_special_property


def _camel(name: str) -> str:
    parts = name.removesuffix("_").split("_")
    return parts[0] + "".join(p.title() for p in parts[1:])


def plain(value: Any) -> Any:
    kind = type(value)
    if attrs.has(kind):
        always: dict[str, Any] = {}
        unless_default: dict[str, Any] = {}
        for field in attrs.fields(kind):
            if not field.init:
                continue
            item = getattr(value, field.name)
            default = field.default
            if default is attrs.NOTHING or is_special_property(kind, field.name):
                always[_camel(field.name)] = plain(item)
            else:
                if isinstance(default, attrs.Factory):  # type: ignore[arg-type]
                    default = default.factory(value) if default.takes_self else default.factory()
                if item != default:
                    unless_default[_camel(field.name)] = plain(item)
        return always | unless_default
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    return value

"""JSON Schemas generated from the attrs params classes: the one copy every door publishes.

A field's type, default and whether it is required come from the class; what a model needs
besides (a description, ``minimum``, ``enum``, the shape of the items of a raw JSON array) is
declared next to the field with :func:`param`.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any, Literal, Union

import attrs

_SCHEMA = "waymark.schema"
_REQUIRED = "waymark.required"
_HIDDEN = "waymark.hidden"
_FLAGS = "waymark.flags"
_CLI_FILE = "waymark.cli_file"

_SCALARS: dict[Any, str] = {str: "string", int: "integer", bool: "boolean", float: "number"}


def param(
    description: str = "",
    *,
    default: Any = attrs.NOTHING,
    required: bool = False,
    hidden: bool = False,
    flags: tuple[str, ...] = (),
    cli_file: bool = False,
    **keywords: Any,
) -> Any:
    """An attrs field carrying its schema extras.

    ``required`` lists a field the handler checks itself (it has a default only so that a
    deprecated alias can stand in); ``hidden`` keeps a deprecated alias out of the schema;
    ``flags`` are extra CLI spellings; ``cli_file`` makes the CLI argument a file to read
    (``-`` or nothing: stdin); ``keywords`` are JSON Schema keywords, where a class
    value (``items=SomeClass``) becomes that class's schema.
    """
    metadata = {
        _SCHEMA: {"description": description, **keywords} if description else keywords,
        _REQUIRED: required,
        _HIDDEN: hidden,
        _FLAGS: flags,
        _CLI_FILE: cli_file,
    }
    return attrs.field(default=default, metadata=metadata)


def cli_flags(field: attrs.Attribute[Any]) -> tuple[str, ...]:
    """Extra CLI spellings declared for ``field`` (e.g. ``--ops`` for ``operations``)."""
    return tuple(field.metadata.get(_FLAGS, ()))


def is_cli_file(field: attrs.Attribute[Any]) -> bool:
    return bool(field.metadata.get(_CLI_FILE, False))


def minimum(field: attrs.Attribute[Any]) -> Any:
    """The ``minimum`` the schema declares for ``field``, or None."""
    return field.metadata.get(_SCHEMA, {}).get("minimum")


def maximum(field: attrs.Attribute[Any]) -> Any:
    """The ``maximum`` the schema declares for ``field``, or None."""
    return field.metadata.get(_SCHEMA, {}).get("maximum")


def is_hidden(field: attrs.Attribute[Any]) -> bool:
    return bool(field.metadata.get(_HIDDEN, False))


def without_none(annotation: Any) -> tuple[Any, bool]:
    """``(T, True)`` for ``T | None``, ``(annotation, False)`` otherwise."""
    if typing.get_origin(annotation) in (Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        optional = len(args) < len(typing.get_args(annotation))
        return (args[0] if len(args) == 1 else Union[tuple(args)]), optional  # noqa: UP007
    return annotation, False


def type_schema(annotation: Any) -> dict[str, Any]:
    """The schema of one Python annotation (scalars, lists, literals, attrs/dataclasses)."""
    annotation, _ = without_none(annotation)
    if annotation in _SCALARS:
        return {"type": _SCALARS[annotation]}
    if annotation is Any:
        return {}
    origin = typing.get_origin(annotation)
    if origin in (Union, types.UnionType):
        return _tagged_union(typing.get_args(annotation))
    if origin is Literal:
        values = list(typing.get_args(annotation))
        kinds = {_SCALARS[type(v)] for v in values}
        return {"type": kinds.pop(), "enum": values} if len(kinds) == 1 else {"enum": values}
    if origin in (list, tuple):
        (item,) = typing.get_args(annotation)[:1]
        return {"type": "array", "items": type_schema(item)}
    if origin is dict:
        return {"type": "object"}
    if isinstance(annotation, type) and (
        attrs.has(annotation) or dataclasses.is_dataclass(annotation)
    ):
        return object_schema(annotation)
    raise TypeError(f"no JSON Schema for {annotation!r}")


def _tagged_union(members: tuple[Any, ...]) -> dict[str, Any]:
    """Classes told apart by their first field, a ``Literal``: each variant lists only the
    fields it takes, and the tag's values are listed up front so that a model sees every
    kind before it picks one. ``anyOf``, not ``oneOf``: the tag makes the variants exclusive
    anyway, and the model APIs that take a subset of JSON Schema (Gemini, OpenAI's strict
    mode) know ``anyOf`` only."""
    variants = [object_schema(cls) for cls in members]
    tag = next(iter(variants[0]["properties"]))
    values = []
    for variant in variants:
        first = variant["properties"].get(tag, {})
        if tag not in variant["required"] or "enum" not in first:
            raise TypeError(f"no JSON Schema for a union without the tag field {tag!r}")
        values += first["enum"]
    return {
        "type": "object",
        "properties": {tag: {"type": "string", "enum": values}},
        "required": [tag],
        "anyOf": variants,
    }


def _keyword(value: Any) -> Any:
    if isinstance(value, type):
        return object_schema(value)
    return value


def _fields(cls: type[Any]) -> list[tuple[str, Any, Any, dict[str, Any]]]:
    """``(name, annotation, default, metadata)`` for an attrs class or a dataclass."""
    hints = typing.get_type_hints(cls)
    if attrs.has(cls):
        return [
            (f.name, hints[f.name], f.default, dict(f.metadata))
            for f in attrs.fields(cls)
            if not is_hidden(f)
        ]
    return [
        (
            f.name,
            hints[f.name],
            attrs.NOTHING if f.default is dataclasses.MISSING else f.default,
            dict(f.metadata),
        )
        for f in dataclasses.fields(cls)
    ]


def object_schema(cls: type[Any]) -> dict[str, Any]:
    """``{"type": "object", properties, required, additionalProperties: false}`` of ``cls``."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, annotation, default, metadata in _fields(cls):
        extras = {k: _keyword(v) for k, v in metadata.get(_SCHEMA, {}).items()}
        schema = {**type_schema(annotation), **extras}
        if default is attrs.NOTHING or metadata.get(_REQUIRED):
            required.append(name)
        elif default is not None and not isinstance(default, attrs.Factory):  # type: ignore[arg-type]
            schema["default"] = default
        properties[name] = schema
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }

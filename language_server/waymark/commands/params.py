"""Command parameters: JSON objects structured into attrs classes, strictly.

cattrs alone would turn ``3`` into ``"3"``, ``true`` into ``1`` and the string ``"ab"`` into
the list ``["a", "b"]``; an agent that sends the wrong type should hear about it, so
str/int/bool/float, arrays and objects are checked exactly and the error names the offending field.
An unknown field is refused too (naming it and the known ones): a misspelled ``preveiw``
silently dropped would write what was meant as a preview.

A field whose items need more than types (``operations``, ``edits``) registers its own hook
with :func:`register_hook`; the hook words its refusals as an :class:`InvalidParams`, which
:func:`structure` passes on as it is.
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Callable, Iterator
from typing import Any, Literal, TypeVar, Union, cast

import attrs
import cattrs
from cattrs.cols import list_structure_factory, mapping_structure_factory
from cattrs.errors import ClassValidationError, ForbiddenExtraKeysError

from waymark.commands.schema import minimum
from waymark.engine.errors import InvalidParams
from waymark.store.workspace import lone_surrogate

T = TypeVar("T")

_converter = cattrs.Converter(forbid_extra_keys=True)


class _WrongType(TypeError):
    """A value of another JSON type than its field's; the message is the one the wire reads."""


def _json_type(value: object) -> str:
    """``value``'s JSON type, as a sentence names it."""
    if value is None:
        return "null"
    for kind, name in _JSON_TYPES:
        if isinstance(value, kind):
            return name
    return type(value).__name__


# bool before int: a boolean is an int to Python.
_JSON_TYPES = (
    (bool, "a boolean"),
    (int, "an integer"),
    (float, "a number"),
    (str, "a string"),
    (list, "an array"),
    (dict, "an object"),
)


def _strict(kind: type[Any], name: str) -> Any:
    def hook(value: Any, _: Any) -> Any:
        if type(value) is bool and kind is not bool:
            raise _WrongType(f"expected {name}, got a boolean")
        if kind is float and isinstance(value, int):
            return float(value)
        if not isinstance(value, kind):
            raise _WrongType(f"expected {name}, got {_json_type(value)}")
        return value

    return hook


def _container(kind: Any) -> bool:
    origin: object = typing.get_origin(kind)
    return origin is list or origin is dict


def _exact_container(kind: Any, converter: cattrs.BaseConverter) -> Any:
    """cattrs takes any iterable for a list (``"paths": "ab"`` would name the files a and b)
    and any mapping for a dict: a JSON array or object is asked for, nothing else is taken."""
    exact: type[Any]
    if typing.get_origin(kind) is list:
        exact, wanted, inner = list, "an array", list_structure_factory(kind, converter)
    else:
        exact, wanted, inner = dict, "an object", mapping_structure_factory(kind, converter)

    def hook(value: Any, _: Any) -> Any:
        if type(value) is not exact:
            raise _WrongType(f"expected {wanted}, got {_json_type(value)}")
        return inner(value, kind)

    return hook


for _kind, _name in ((str, "a string"), (int, "an integer"), (bool, "a boolean")):
    _converter.register_structure_hook(_kind, _strict(_kind, _name))
_converter.register_structure_hook(float, _strict(float, "a number"))
_converter.register_structure_hook(Any, lambda value, _: value)
_converter.register_structure_hook_factory(_container, _exact_container)


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
    _check_surrogates(raw)
    plain = _plain_structure(raw, cls)
    if plain is not None:
        return plain
    try:
        structured = _converter.structure(raw, cls)
    except (ClassValidationError, ForbiddenExtraKeysError) as exc:
        worded = next(_leaves(exc))
        if isinstance(worded, InvalidParams):
            raise worded from None
        problems = cattrs.transform_error(exc)
        unknown = _unknown_fields(exc, problems)
        if unknown is not None:
            raise unknown from exc
        first = problems[0] if problems else "invalid parameters"
        message, _, where = first.partition(" @ ")
        field = _field_of(where)
        if isinstance(worded, _WrongType):
            # transform_error lists problems in the order of this walk: this is the first.
            message = str(worded)
        if message.startswith("required field missing"):
            sentence = f"The parameter `{field}` is required."
        else:
            sentence = f"The parameter `{field}` is invalid: {message}."
        raise InvalidParams(sentence, {"field": field, "problems": problems}) from exc
    return structured


# Fields that name a file or directory, whatever the command.
PATH_FIELDS = ("path", "file_path", "cwd")


def _check_surrogates(raw: dict[str, Any]) -> None:
    """Refuse a string no text or file name can hold (a lone ``\\ud800``; U+DC80..U+DCFF stand
    for the bytes of a name that is not UTF-8 and pass) before any handler turns it into
    bytes: a turn's id, a sed line or a label holding one was an internal error."""
    if not _any_surrogate(raw):
        return
    stack: list[tuple[str, object]] = [("", raw)]
    while stack:
        where, value = stack.pop()
        items: list[tuple[str, object]] = []
        if isinstance(value, str):
            found = lone_surrogate(value)
            if found is not None:
                raise _surrogate(where, found)
        elif isinstance(value, dict):
            for key, item in value.items():
                named = f"{where}.{key}" if where else str(key)
                if isinstance(key, str) and (found := lone_surrogate(key)) is not None:
                    raise _surrogate(named, found)
                items.append((named, item))
        elif isinstance(value, list):
            items = [(f"{where}[{i}]", item) for i, item in enumerate(value)]
        stack.extend(reversed(items))


def _any_surrogate(raw: dict[str, Any]) -> bool:
    """Whether any string in ``raw`` may hold one: the common answer, no, without naming
    every field on the way (an edit's params are checked on every call)."""
    stack: list[object] = [raw]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            if not value.isascii() and lone_surrogate(value) is not None:
                return True
        elif isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return False


def _surrogate(field: str, where: str) -> InvalidParams:
    name = field.rpartition(".")[2]
    if name in PATH_FIELDS:
        what = "which names no file; send the file name as valid Unicode"
    else:
        what = "which is no character; send the text as valid Unicode"
    return InvalidParams(
        f"The parameter `{field}` holds a lone surrogate ({where}), {what}.", {"field": field}
    )


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


def _leaves(exc: BaseException) -> Iterator[BaseException]:
    inner = getattr(exc, "exceptions", ())
    if not inner:
        yield exc
    for each in inner:
        yield from _leaves(each)


_hooks: dict[Any, Callable[[Any], Any]] = {}


def register_hook(kind: Any, hook: Callable[[Any], Any]) -> None:
    """Structure values of type ``kind`` with ``hook(raw)``; it raises worded InvalidParams."""
    _hooks[kind] = hook
    _converter.register_structure_hook_func(lambda t: t == kind, lambda raw, _: hook(raw))


# One field as :func:`_plain_structure` takes it: name, required, the exact types taken as
# they are (None: any value), the values a Literal allows (None: any), its hook (or None).
_PlainField = tuple[str, bool, "tuple[type, ...] | None", "frozenset[Any] | None", Any]
_TAKEN = (str, int, bool, type(None))


@functools.cache
def _plain(cls: type[Any]) -> tuple[tuple[_PlainField, ...], frozenset[str]] | None:
    """``cls``'s fields as :func:`_plain_structure` checks them, or None when one of them
    takes more than exact JSON scalars, Literals and hooks (cattrs then structures it), or
    ``cls`` is no attrs class (a plain dict of params, say)."""
    if not attrs.has(cls):
        return None
    try:
        hints = typing.get_type_hints(cls)
    except (NameError, TypeError):
        return None
    fields: list[_PlainField] = []
    for a in attrs.fields(cls):
        if a.alias != a.name:
            return None
        kind = hints[a.name]
        required = a.default is attrs.NOTHING
        hook = _hooks.get(kind)
        if hook is not None:
            fields.append((a.name, required, None, None, hook))
        elif kind is Any:
            fields.append((a.name, required, None, None, None))
        elif typing.get_origin(kind) is Literal:
            values = typing.get_args(kind)
            if not all(type(v) is str for v in values):
                return None
            fields.append((a.name, required, (str,), frozenset(values), None))
        else:
            union = typing.get_origin(kind) in (Union, types.UnionType)
            taken = typing.get_args(kind) if union else (kind,)
            if not all(t in _TAKEN for t in taken):
                return None
            fields.append((a.name, required, tuple(taken), None, None))
    return tuple(fields), frozenset(a.name for a in attrs.fields(cls))


def _plain_structure(raw: dict[str, Any], cls: type[T]) -> T | None:
    """``raw`` as ``cls`` when every field is what cattrs takes as it is, else None (cattrs
    then structures it, and words the refusal): the same object for a fraction of the
    calls (an edit's params are structured on every call). A hook that refuses its value
    refuses it here as under cattrs, every field before it being good."""
    plan = _plain(cast(Any, cls))
    if plan is None:
        return None
    fields, names = plan
    if not names.issuperset(raw):
        return None
    hooked: list[tuple[str, Any]] = []
    for name, required, taken, values, hook in fields:
        if name not in raw:
            if required:
                return None
            continue
        value = raw[name]
        if hook is not None:
            hooked.append((name, hook))
        elif (taken is not None and type(value) not in taken) or (
            values is not None and value not in values
        ):
            return None
    kwargs = dict(raw)
    for name, hook in hooked:
        try:
            kwargs[name] = hook(raw[name])
        except InvalidParams:
            raise
        except Exception:
            return None
    return cls(**kwargs)


class BadFields(Exception):
    """Fields of one item that failed :func:`structure_item`, in the order of the class."""

    def __init__(self, names: list[str]) -> None:
        super().__init__(", ".join(names))
        self.names = names


@functools.cache
def _declared(
    cls: type[Any],
) -> tuple[tuple[attrs.Attribute[Any], ...], tuple[tuple[str, Any], ...]]:
    """``cls``'s fields and the schema ``minimum`` of those that declare one: read once per
    class, not on every item of every request."""
    fields = attrs.fields(cast(Any, cls))
    return fields, tuple((f.name, least) for f in fields if (least := minimum(f)) is not None)


def structure_item(raw: dict[str, Any], cls: type[T]) -> T:
    """``raw`` as ``cls``, with the exact types of :func:`structure` and each field's schema
    ``minimum``; a hook words the refusal (:class:`BadFields`) for its own wire shape."""
    fields, minimums = _declared(cast(Any, cls))
    bad = {
        name
        for name, least in minimums
        if type(value := raw.get(name)) in (int, float) and value < least
    }
    plain = _plain_structure(raw, cls)
    if plain is not None:
        item = plain
    else:
        try:
            item = _converter.structure(raw, cls)
        except ClassValidationError as exc:
            with_notes, _ = exc.group_exceptions()
            bad |= {note.name for _, note in with_notes}
    if bad:
        raise BadFields([f.name for f in fields if f.name in bad])
    return item


def require(condition: bool, field: str, message: str) -> None:
    """Reject a value cattrs accepted but the contract does not (ranges, enums)."""
    if not condition:
        raise InvalidParams(f"The parameter `{field}` is invalid: {message}.", {"field": field})

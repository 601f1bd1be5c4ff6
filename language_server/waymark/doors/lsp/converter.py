"""pygls' converter, each lsprotocol class's forward references resolved when the converter
first builds a hook for the class, not all of them at start.

lsprotocol's ``get_converter`` resolves the string annotations (``Optional["Range"]``) of all
~550 classes of ``lsprotocol.types`` before anything is converted: 8 ms of ``waymark-ls``'s
start-up, while a session through its first edit meets about a third of them. The converter
below resolves a class exactly as that eager pass does (``attrs.resolve_types`` against
lsprotocol's map of its types) in the one place its field types are first read: the hook
factory that lsprotocol registers for every attrs class, just before it builds that class's
hook. Every hook, and so every byte on the wire, is the one the eager pass would give.

The eager pass is skipped through lsprotocol's flag for it, for this converter only; an
lsprotocol without that flag resolves eagerly again, as slow and as correct as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
import cattrs
from lsprotocol import _hooks
from lsprotocol.converters import get_converter
from lsprotocol.types import ALL_TYPES_MAP
from pygls.protocol import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    _params_field_structure_hook,
    _result_field_structure_hook,
)

_EAGER_FLAG = "_resolved_forward_references"


def resolve(kind: Any) -> None:
    """Resolve ``kind``'s forward references if it is one of lsprotocol's classes (once:
    attrs marks a resolved class and returns at once for it after)."""
    known = ALL_TYPES_MAP.get(getattr(kind, "__name__", ""))
    if known is kind and isinstance(known, type):
        attrs.resolve_types(known, ALL_TYPES_MAP, {})


def _resolving(factory: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def hook(kind: Any) -> Any:
        resolve(kind)
        return factory(kind)

    return hook


class _Converter(cattrs.Converter):
    """A converter whose hook factories registered while :attr:`resolving` is set (by
    lsprotocol, each taking the class alone) resolve the class first."""

    resolving = False

    def register_structure_hook_factory(self, predicate: Any, factory: Any = None) -> Any:
        if self.resolving:
            factory = _resolving(factory)
        return super().register_structure_hook_factory(predicate, factory)

    def register_unstructure_hook_factory(self, predicate: Any, factory: Any = None) -> Any:
        if self.resolving:
            factory = _resolving(factory)
        return super().register_unstructure_hook_factory(predicate, factory)


def lazy_converter() -> cattrs.Converter:
    """pygls' ``default_converter``, its lsprotocol classes resolved as they are met."""
    converter = _Converter()
    eager = getattr(_hooks, _EAGER_FLAG, True)
    setattr(_hooks, _EAGER_FLAG, True)
    converter.resolving = True
    try:
        get_converter(converter)
    finally:
        setattr(_hooks, _EAGER_FLAG, eager)
        converter.resolving = False
    converter.register_structure_hook(JsonRPCRequestMessage, _params_field_structure_hook)
    converter.register_structure_hook(JsonRPCResponseMessage, _result_field_structure_hook)
    converter.register_structure_hook(JsonRPCNotification, _params_field_structure_hook)
    return converter

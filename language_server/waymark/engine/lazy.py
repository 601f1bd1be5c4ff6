"""Names a package re-exports from its modules, loaded on first use (PEP 562)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_names(
    package: str, homes: Mapping[str, str], namespace: dict[str, Any]
) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``package.<homes[name]>`` when ``name`` is first
    asked for and keeps the value in ``namespace``, so later lookups skip this function."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{home}"), name)
        namespace[name] = value
        return value

    return __getattr__

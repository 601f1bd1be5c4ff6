"""The cyclic GC paused around bulk work."""

from __future__ import annotations

import gc
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar, cast

_F = TypeVar("_F", bound=Callable[..., Any])


class gc_paused:
    """Pause the cyclic GC around bulk work: building 200k acyclic tuples otherwise triggers
    full collections that cost more than the work itself. A class rather than a generator's
    context: every anchored edit's plan enters one, and a generator's costs a microsecond."""

    __slots__ = ("_enabled",)

    def __enter__(self) -> None:
        self._enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self._enabled:
            gc.enable()

    def __call__(self, fn: _F) -> _F:
        @wraps(fn)
        def paused(*args: Any, **kwargs: Any) -> Any:
            with gc_paused():
                return fn(*args, **kwargs)

        return cast(_F, paused)

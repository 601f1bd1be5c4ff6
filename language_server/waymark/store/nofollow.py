"""A directory opened in one ``openat2(2)`` call that follows no symlink: the fast path of
:mod:`~waymark.store.walk`'s component walk.

``waymark.store._nofollow`` (C, ``_nofollow.c``) is built at install when a C compiler is
there (setup.py, ``optional``, like the engine's core). Its one call resolves the whole path
in the kernel with ``RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS``, where the component walk
spends two syscalls per component. It only ever answers a descriptor or "no": every refusal
is the component walk's to make and to word, so :func:`at_once` swallows each failure.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from importlib import import_module
from typing import cast


def _opener() -> Callable[..., int] | None:
    if os.environ.get("WAYMARK_PURE_PYTHON", "") not in ("", "0"):
        return None
    try:
        module = import_module("waymark.store._nofollow")
    except ImportError:
        return None
    return cast(Callable[..., int], module.open_dir)


# ``_nofollow.open_dir(path[, dir_fd])`` when built and allowed; None: the component walk alone.
BUILT_OPENER = _opener()
_opener_in_use = BUILT_OPENER
# What the call itself is refused with (seccomp, an old kernel, no openat2 in the headers),
# whatever the path: asking again would only fail again.
_NOT_AVAILABLE = frozenset({errno.ENOSYS, errno.EPERM, errno.EINVAL, errno.E2BIG})


def in_use() -> bool:
    """Whether walks try the one call first (built, allowed, not refused by the kernel)."""
    return _opener_in_use is not None


def at_once(path: str, *dir_fd: int) -> int | None:
    """An ``O_PATH`` descriptor of the directory ``path`` (relative to ``dir_fd``, if given),
    reached without following a symlink; None when the call is not available or failed for
    any reason (a symlink, a missing component, a file on the way …)."""
    global _opener_in_use
    opener = _opener_in_use
    if opener is None:
        return None
    try:
        return opener(path, *dir_fd)
    except OSError as exc:
        if exc.errno in _NOT_AVAILABLE:
            _opener_in_use = None
        return None
    except ValueError:
        # A NUL in a component: the component walk's os.open raises what it always did.
        return None

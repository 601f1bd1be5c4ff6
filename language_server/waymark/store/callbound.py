"""The bound on the hook call a process serves: how long it may wait, whether it may still act.

A host gives each hook call a timeout; past it the host kills the hook process (or the relay of
a resident hook server) and runs the tool itself. So a hook call waits on no lock past its
``until`` (set below that timeout), and each time it holds the history's lock, or its
files' write locks, asks :func:`before_acting` (no write comes before), which raises
:class:`CallOver` once its caller is gone or ``until`` has passed: the call then declines
instead of acting late, and the host's own run of the tool is the only one. The first such
moment of a call also runs what the call registered with :func:`on_first_act` (the
once-per-call record notes that the call began acting, so it is never run a second time).

Outside a hook call (editor, CLI, MCP) nothing is bound and every wait is as it was. One call
at a time per process (a hook process, or the hook server's one call), so this is a module
global that worker threads see too.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from waymark.engine.errors import IoError

# Two separate reasons: the line the user reads names the one that happened.
GONE = "the host stopped waiting for this hook call (its timeout)"
LATE = (
    "this hook call waited until close to the host's hook timeout (another process kept the "
    "workspace's history or files locked)"
)


class CallOver(IoError):
    """The call may neither wait nor act any more; nothing was changed by it since."""

    def __init__(self, why: str) -> None:
        super().__init__(
            f"{why}; nothing was changed and the tool runs untracked.", {"errno": "ETIMEDOUT"}
        )


@dataclass
class _Call:
    until: float
    gone: Callable[[], bool]
    first_act: list[Callable[[], None]] = field(default_factory=list)
    acted: bool = False


_call: _Call | None = None


@contextlib.contextmanager
def bounded(until: float, gone: Callable[[], bool]) -> Iterator[None]:
    """Serve one call: waits end by ``until`` (``time.monotonic()``), and ``gone()`` says
    whether the caller stopped waiting for the answer."""
    global _call
    outer, _call = _call, _Call(until, gone)
    try:
        yield
    finally:
        _call = outer


def on_first_act(callback: Callable[[], None]) -> None:
    """Run ``callback`` before the call may first write (not at all outside a call)."""
    if _call is not None:
        _call.first_act.append(callback)


def deadline(default: float) -> float:
    """When a wait that would end at ``default`` (``time.monotonic()``) must end."""
    return default if _call is None else min(default, _call.until)


def until() -> float | None:
    return None if _call is None else _call.until


def over() -> CallOver | None:
    """Why the call must not act any more, or None."""
    if _call is None:
        return None
    if _call.gone():
        return CallOver(GONE)
    if time.monotonic() >= _call.until:
        return CallOver(LATE)
    return None


def before_acting() -> None:
    """Raise :class:`CallOver` when the call may not act; else note its first act."""
    stop = over()
    if stop is not None:
        raise stop
    if _call is not None and not _call.acted:
        for callback in _call.first_act:
            callback()
        _call.acted = True

"""The errors of the engine and the store, worded for the wire.

Those layers state the fact and name the next step as data (``WaymarkError.next_step``);
this module says which command takes it, so that a door speaking other terms (the CLI's
verbs) has one place to change.
"""

from __future__ import annotations

from typing import Any

from waymark.engine.errors import WaymarkError

NEXT_STEPS = {
    "read": "call waymark.read on it first, then retry the change",
    "create": "check the path, or create the file with waymark.write",
    "restart": "restart Waymark (its MCP server, or the editor) in the workspace's current "
    "location",
}


def message(exc: WaymarkError) -> str:
    """The one sentence an agent reads: the fact, then what to do next."""
    if exc.next_step is None:
        return exc.message
    return f"{exc.message}; {NEXT_STEPS[exc.next_step]}."


def result(exc: WaymarkError) -> dict[str, Any]:
    """``{"ok": false, ...}`` for ``exc``, worded."""
    return {**exc.to_result(), "message": message(exc)}

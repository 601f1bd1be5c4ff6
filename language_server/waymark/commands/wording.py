"""The errors of the engine and the store, worded for the wire.

Those layers state the fact and name the next step as data (``WaymarkError.next_step``);
this module says which command takes it. A door speaking other terms passes how its user
calls each command (``CommandContext.names``: the CLI's verbs, the MCP tools' names), so the
sentences stay in one table.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from waymark.engine.errors import WaymarkError

NEXT_STEPS = {
    "read": "read it with {read} first, then retry the change",
    "create": "check the path, or create the file with {write}",
    "restart": "restart Waymark (its MCP server, or the editor) in the workspace's current "
    "location",
    "turns": "list the turns with {turns}",
    "write": "to create a file or replace all of its content, use {write}",
    "encoding": "read it with the encoding it is written in, or leave `encoding` out to let "
    "Waymark decide",
    "split": "split the change into several edits (or use {write} for a rewrite)",
}


class _Named(dict[str, str]):
    """``{read}`` as the door calls ``waymark.read``; the command id where it says nothing."""

    def __init__(self, names: Mapping[str, str]) -> None:
        super().__init__()
        self.names = names

    def __missing__(self, key: str) -> str:
        command = f"waymark.{key}"
        return self.names.get(command, command)


def message(exc: WaymarkError, names: Mapping[str, str] | None = None) -> str:
    """The one sentence an agent reads: the fact, then what to do next."""
    if exc.next_step is None:
        return exc.message
    return f"{exc.message}; {NEXT_STEPS[exc.next_step].format_map(_Named(names or {}))}."


def result(exc: WaymarkError, names: Mapping[str, str] | None = None) -> dict[str, Any]:
    """``{"ok": false, ...}`` for ``exc``, worded."""
    return {**exc.to_result(), "message": message(exc, names)}

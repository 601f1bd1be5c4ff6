"""Changes Waymark does not make itself: a host's own edit tools and any shell command.

The hooks and ``waymark run`` record them into the workspace's one history through these
functions and the door's :class:`CommandContext`, the way every command reaches the history,
so no door drives the history on its own. With checkpointing off there is no history and
each of them does nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from waymark.commands.context import CommandContext
from waymark.engine.errors import FileTooLarge, InvalidParams
from waymark.store.files import read_state

if TYPE_CHECKING:
    from waymark.store.history import History
    from waymark.store.history.snapshots import Snapshot

    # The shell tracker (a scan, git, the shell-word parser) loads with the first shell
    # command: a prompt's hook call never tracks one (issue 33).
    from waymark.store.shelltrack.track import Report


def before_host_write(ctx: CommandContext, target: str, cwd: Path) -> list[str]:
    """Back up the file a host's own edit/write tool is about to change; its warnings."""
    if ctx.history is None:
        return []
    return ctx.history.track_edit(ctx.workspace.resolve(target, base=cwd).real)


def after_host_write(ctx: CommandContext, target: str, cwd: Path) -> None:
    """Record what a host's own tool wrote, as the agent's write (a rewind may undo it)."""
    if ctx.history is None:
        return
    path = ctx.workspace.resolve(target, base=cwd).real
    try:
        state = read_state(path, limit=ctx.workspace.max_file_size)
    except FileTooLarge:
        # Out of reach of the history (its PreToolUse said so): its bytes are never read.
        return
    ctx.history.record_write(path, state.digest)


def history_of(ctx: CommandContext) -> History:
    """The session's history, or the refusal when checkpointing is off."""
    if ctx.history is None:
        raise InvalidParams(
            "File history is off for this session (checkpointing: false); turn it on to use "
            "snapshots and rewind.",
            {"field": "checkpointing"},
        )
    return ctx.history


def open_turn(ctx: CommandContext, prompt_id: str, label: str | None) -> tuple[Snapshot, list[str]]:
    """Open turn ``prompt_id``: the one step behind ``waymark.snapshot`` and a host's prompt
    hook (which runs on every prompt and loads no command spec); the turn and its warnings."""
    if not prompt_id.strip():
        # The wording of params.require, without the validation machinery it loads.
        raise InvalidParams(
            "The parameter `promptId` is invalid: must be a non-empty string.",
            {"field": "promptId"},
        )
    return history_of(ctx).make_snapshot(prompt_id, label)


def before_shell(ctx: CommandContext, call: str, command: str, cwd: Path | None) -> None:
    """Scan and back up before shell command ``call`` runs."""
    if ctx.history is not None:
        from waymark.store.shelltrack.track import begin

        begin(ctx.history, call, command=command, cwd=cwd)


def after_shell(ctx: CommandContext, call: str) -> Report | None:
    """Record what shell command ``call`` changed (None: nothing began it)."""
    if ctx.history is None:
        return None
    from waymark.store.shelltrack.track import finish

    return finish(ctx.history, call)


def opened_turn(ctx: CommandContext, prompt_id: str) -> bool:
    """Whether ``prompt_id`` would be a new turn (not one already recorded)."""
    return ctx.history is not None and all(t.prompt_id != prompt_id for t in ctx.history.turns())


def drop_unchanged_turn(ctx: CommandContext, prompt_id: str) -> bool:
    """Forget turn ``prompt_id`` if nothing changed in it; whether it was forgotten."""
    return ctx.history is not None and ctx.history.drop_if_unchanged(prompt_id)

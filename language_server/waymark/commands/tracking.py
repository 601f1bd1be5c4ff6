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


def open_prompt_turn(ctx: CommandContext, prompt_id: str, label: str) -> list[str]:
    """Open the turn a host's prompt starts, as ``waymark.snapshot`` does (a hook runs on
    every prompt and has no use for the command spec behind it); its warnings."""
    if ctx.history is None:
        raise InvalidParams("File history is off (checkpointing: false); no turn opened.", {})
    if not prompt_id.strip():
        raise InvalidParams("promptId must be a non-empty string.", {"field": "promptId"})
    return ctx.history.make_snapshot(prompt_id, label)[1]


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

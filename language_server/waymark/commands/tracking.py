"""Changes Waymark does not make itself: a host's own edit tools and any shell command.

The hooks and ``waymark run`` record them into the workspace's one history through these
functions and the door's :class:`CommandContext`, the way every command reaches the history,
so no door drives the history on its own. With checkpointing off there is no history and
each of them does nothing.
"""

from __future__ import annotations

import os
import stat
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


def outside_refusal(
    ctx: CommandContext,
    command: str,
    cwd: Path | None,
    allowed: list[str] | None = None,
    *,
    allow_with: str | None = None,
) -> str | None:
    """The sentence refusing ``command`` when it would delete or overwrite files outside the
    workspace (but in the folders ``allowed``, the setting's and the temp directory's);
    ``allow_with`` words how the door allows a folder (else the setting)."""
    from waymark.store.shelltrack.reach import ALLOW_ENV, allowed_outside, outside

    paths = outside(ctx.workspace, command, _base(ctx, cwd), allowed_outside(allowed))
    if not paths:
        return None
    listed = _listed(paths)
    return (
        f"Waymark blocked this command: it would delete or overwrite {listed}, outside the "
        "workspace, where no rewind can bring it back; ask the user to run it themselves, "
        f"or to allow that folder {allow_with or f'by adding it to {ALLOW_ENV}'}."
    )


def before_shell(
    ctx: CommandContext, call: str, command: str, cwd: Path | None
) -> dict[str, str] | None:
    """Scan and back up before shell command ``call`` runs; the files it may destroy that
    could not be backed up (display path → why), or None when there are none."""
    if ctx.history is None:
        return None
    from waymark.commands.shellreport import reason
    from waymark.store.shelltrack.reach import unsaved
    from waymark.store.shelltrack.track import begin

    begun = begin(ctx.history, call, command=command, cwd=cwd)
    if not command:
        return None
    at_risk = unsaved(command, _base(ctx, cwd), begun.skipped, begun.scans)
    if not at_risk:
        return None
    return {
        ctx.history.display(key): f"{_size(key)}{reason(why)}"
        for key, why in sorted(at_risk.items())
    }


def warned_before(ctx: CommandContext, command: str, cwd: Path | None) -> bool:
    """Whether ``command`` was stopped lately with :func:`unsaved_notice` (then it runs
    now); if not, that it is being stopped is noted."""
    from waymark.store.shelltrack.reach import warned_before as noted

    if ctx.history is None:
        return True
    return noted(ctx.history.dir / "shell", command, cwd or Path.cwd())


def unsaved_notice(at_risk: dict[str, str], *, retry: bool, flag: str | None = None) -> str:
    """What the model (or the user, asked by the host) reads before a command that may
    destroy files with no backup; ``retry``: the host cannot ask, the model runs it again;
    ``flag``: the door's option that runs it anyway."""
    listed = _listed([f"{path} ({why})" for path, why in at_risk.items()])
    if flag is not None:
        return (
            f"This command may delete or overwrite {listed}, which Waymark cannot back up, so "
            f"no rewind would bring it back; run it again with {flag} to go ahead."
        )
    if retry:
        return (
            f"Waymark stopped this command once: it may delete or overwrite {listed}, which "
            "Waymark cannot back up, so no rewind would bring it back; ask the user, and if "
            "they agree run the same command again."
        )
    return (
        f"This command may delete or overwrite {listed}, which Waymark cannot back up, so no "
        "rewind would bring it back; run it only if the user agrees."
    )


def _base(ctx: CommandContext, cwd: Path | None) -> Path:
    """Where a shell command's relative words start: its cwd, else the first folder."""
    return cwd or (ctx.workspace.folders[0] if ctx.workspace.folders else Path.cwd())


def _listed(items: list[str], shown: int = 5) -> str:
    text = ", ".join(items[:shown])
    return text + (f" and {len(items) - shown} more" if len(items) > shown else "")


def _size(key: str) -> str:
    try:
        st = os.lstat(key)
    except OSError:
        return ""
    if stat.S_ISDIR(st.st_mode):
        return "a folder, "
    if st.st_size < 1024:
        return f"{st.st_size} bytes, "
    size = st.st_size / 1024
    for unit in ("KiB", "MiB"):
        if size < 1024:
            return f"{size:.1f} {unit}, "
        size /= 1024
    return f"{size:.1f} GiB, "


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

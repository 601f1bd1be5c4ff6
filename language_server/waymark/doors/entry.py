"""How every door opens a workspace: :func:`open_context`, and :func:`open_door` around it.

The LSP server calls :func:`open_context` with the editor's folders and options. Every other
door (CLI, MCP server, host hooks, ``waymark run``, ``waymark history``) calls
:func:`open_door`, and all of them of one workspace open the same context: the workspace's
one history and default session, whose read records persist next to the history so that a
read through one door (``waymark_read`` over MCP) counts for a write through another
(``waymark replace`` in a terminal); the store keeps that file (``store/session_file.py``).
Changing how doors share a workspace happens here only.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from waymark.commands.context import (
    CommandContext,
    Documents,
    Editor,
    Options,
    default_history_dir,
    load_options,
)
from waymark.store.history import History
from waymark.store.session_file import SessionFile


@dataclass
class Door:
    ctx: CommandContext
    records: SessionFile  # where the session's read records persist between processes

    def save(self) -> None:
        """Hand the records this process changed to the next process of this session."""
        self.records.save(self.ctx.session)

    def reload(self) -> None:
        """Take the records another process of this session saved, of files new to this one."""
        self.records.reload(self.ctx.session)

    def close(self) -> None:
        """Release the history's descriptors (a one-shot process is done with them), unless
        this process keeps the history open for its next calls."""
        history = self.ctx.history
        if history is not None and (_kept is None or history not in _kept.values()):
            history.close()


def open_context(
    folders: list[Path],
    options: Options,
    *,
    editor: Editor | None = None,
    tag_writes: bool = True,
    history: History | None = None,
    documents: Documents | None = None,
    names: Mapping[str, str] | None = None,
    host_state: Sequence[str] = (),
    warnings: Sequence[str] = (),
) -> CommandContext:
    """The one way a door gets its workspace, session and history (``tag_writes`` false: its
    writes belong to no session, as a terminal's; ``history``: one kept open for it), built
    complete with what the door adds (:meth:`CommandContext.create`)."""
    return CommandContext.create(
        folders,
        options,
        editor=editor,
        tag_writes=tag_writes,
        history=history,
        documents=documents,
        names=names,
        host_state=host_state,
        warnings=warnings,
    )


# A resident process (the hook server) keeps the histories it opened, by workspace and
# options, so a call catches up with the journal instead of replaying all of it.
KEEP_HISTORIES = 16
_kept: dict[tuple[str, str, bool], History] | None = None


def keep_histories() -> None:
    """Keep histories open between doors of the same workspace and options, from now on."""
    global _kept
    if _kept is None:
        _kept = {}


def default_session(root: Path) -> str:
    """The session a workspace's doors share when none is named."""
    return "cli-" + hashlib.sha256(str(root).encode()).hexdigest()[:12]


def open_door(
    workspace_root: Path | str,
    *,
    session: str | None = None,
    history_dir: Path | None = None,
    checkpointing: bool = True,
    max_history_bytes: int | None = None,
    names: Mapping[str, str] | None = None,
) -> Door:
    """The context of ``workspace_root``; a named ``session`` tags its writes as its own.

    Without a name the door acts for the workspace as a whole (like a terminal): its rewinds
    may undo any session's writes, and are still refused over external changes.
    """
    root = Path(os.path.realpath(workspace_root))
    session_id = session or default_session(root)
    directory = history_dir or default_history_dir()
    raw: dict[str, Any] = {
        "sessionId": session_id,
        "historyDir": str(directory),
        "checkpointing": checkpointing,
    }
    if max_history_bytes is not None:
        raw["maxHistoryBytes"] = max_history_bytes
    options, warnings = load_options(raw)
    # The hosts' table (3 ms to import) serves the doors an agent host runs; the language
    # server opens its workspace through open_context and never needs it.
    from waymark.doors.hosts import STATE_DIRS

    key = (os.fspath(root), repr(options), session is not None)
    kept = _kept.pop(key, None) if _kept is not None else None
    if kept is not None:
        with kept.lock:
            pass  # taking the lock catches up with what other processes recorded since
    ctx = open_context(
        [root],
        options,
        tag_writes=session is not None,
        history=kept,
        names=names,
        host_state=STATE_DIRS,
        warnings=warnings,
    )
    if _kept is not None and ctx.history is not None:
        _kept[key] = ctx.history  # the newest last
        while len(_kept) > KEEP_HISTORIES:
            _kept.pop(next(iter(_kept))).close()
    # Our own file, not the workspace's: a symlinked home is fine, resolve it once.
    # ctx.session.id, not the name asked for: an unsafe name was replaced by a fresh id.
    door = Door(
        ctx, SessionFile(Path(os.path.realpath(directory / ctx.session.id / "cli-session.json")))
    )
    door.reload()
    return door

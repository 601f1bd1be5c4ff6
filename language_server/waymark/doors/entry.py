"""How every door opens a workspace: :func:`open_context`, and :func:`open_door` around it.

The LSP server calls :func:`open_context` with the editor's folders and options. Every other
door (CLI, MCP server, host hooks, ``waymark run``, ``waymark history``) calls
:func:`open_door`, and all of them of one workspace open the same context: the workspace's
one history and default session, whose read records persist next to the history so that a
read through one door (``waymark_read`` over MCP) counts for a write through another
(``waymark replace`` in a terminal). Several processes of a session keep one file of records:
each writes back only the records it changed, and a long-lived one (``waymark mcp``, one per
host session) keeps its own record of a file it has already seen, so another process's change
to that file is a change it must read first. Changing how doors share a workspace happens
here only.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from waymark.commands.context import (
    CommandContext,
    Editor,
    Options,
    default_history_dir,
    load_options,
)
from waymark.doors.hosts import STATE_DIRS
from waymark.store.files import atomic_write
from waymark.store.history import History
from waymark.store.locks import locked
from waymark.store.private import make_private_dir
from waymark.store.session import FileRecord, Session


@dataclass
class Door:
    ctx: CommandContext
    state: Path  # where the session's read records persist between processes
    # Each record as this process last wrote it there or took it from there: a save writes
    # what changed since. A file nobody replaced since is not read again.
    _synced: dict[Path, FileRecord] = field(default_factory=dict)
    _seen: tuple[int, ...] | None = None

    def save(self) -> None:
        """Hand the records this process changed to the next process of this session.

        Under the file's lock, over what is there now: the records other processes of the
        session (several ``waymark mcp`` of one workspace) wrote stay as they wrote them.
        """
        files = self.ctx.session.files
        changed = {path: _copy(r) for path, r in files.items() if self._synced.get(path) != r}
        if not changed:
            return
        # It lists absolute paths the session read: only its owner may see them.
        make_private_dir(self.state.parent)
        with locked(self.state):
            stored = self._stored()
            self._take(stored)
            stored.files.update(changed)
            atomic_write(self.state, stored.to_json().encode("utf-8"), mode=0o600)
            self._seen = self._signature()
        self._synced.update(changed)

    def reload(self) -> None:
        """Take the records another process of this session saved, of files new to this one."""
        seen = self._signature()
        if seen is None or seen == self._seen:
            return
        self._take(self._stored())
        self._seen = seen

    def _stored(self) -> Session:
        try:
            text = self.state.read_text(encoding="utf-8")
        except FileNotFoundError:
            text = "{}"
        return Session.from_json(self.ctx.session.id, text)

    def _take(self, stored: Session) -> None:
        """Adopt the records of files this process has none of; its own ones stay.

        A file it has seen that another process changed since is an external change to it,
        as to any session: its agent reads the file again before replacing text in it.
        """
        files = self.ctx.session.files
        for path, record in stored.files.items():
            if path not in files:
                files[path] = _copy(record)
                self._synced[path] = _copy(record)

    def close(self) -> None:
        """Release the history's descriptors (a one-shot process is done with them), unless
        this process keeps the history open for its next calls."""
        history = self.ctx.history
        if history is not None and (_kept is None or history not in _kept.values()):
            history.close()

    def _signature(self) -> tuple[int, ...] | None:
        try:
            st = os.stat(self.state)
        except FileNotFoundError:
            return None
        # A replace by another process makes a new inode; mtime and size cover the rest.
        return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _copy(record: FileRecord) -> FileRecord:
    return replace(record, writers=list(record.writers))


def open_context(
    folders: list[Path],
    options: Options,
    *,
    editor: Editor | None = None,
    tag_writes: bool = True,
    history: History | None = None,
) -> CommandContext:
    """The one way a door gets its workspace, session and history (``tag_writes`` false: its
    writes belong to no session, as a terminal's; ``history``: one kept open for it)."""
    return CommandContext.create(
        folders, options, editor=editor, tag_writes=tag_writes, history=history
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
    key = (os.fspath(root), repr(options), session is not None)
    kept = _kept.pop(key, None) if _kept is not None else None
    if kept is not None:
        with kept.lock:
            pass  # taking the lock catches up with what other processes recorded since
    ctx = open_context([root], options, tag_writes=session is not None, history=kept)
    if _kept is not None and ctx.history is not None:
        _kept[key] = ctx.history  # the newest last
        while len(_kept) > KEEP_HISTORIES:
            _kept.pop(next(iter(_kept))).close()
    ctx.workspace.host_state = STATE_DIRS
    ctx.warnings[:0] = warnings
    # Our own file, not the workspace's: a symlinked home is fine, resolve it once.
    # ctx.session.id, not the name asked for: an unsafe name was replaced by a fresh id.
    door = Door(ctx, Path(os.path.realpath(directory / ctx.session.id / "cli-session.json")))
    door.reload()
    return door

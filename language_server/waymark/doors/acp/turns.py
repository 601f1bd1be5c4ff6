"""What the ACP door records: a turn per prompt, the agent's writes through the editor, and
every change on disk during a prompt, through the same calls the hooks and ``waymark run`` use.

Every call here does I/O on the history and runs on the proxy's one worker thread, so the
history is driven by one thread at a time however many sessions the editor runs.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from waymark.commands.tracking import (
    after_host_write,
    after_shell,
    before_host_write,
    before_shell,
    drop_unchanged_turn,
    open_turn,
)
from waymark.doors.entry import Door, open_door
from waymark.doors.hooks.handlers import label_of
from waymark.doors.hooks.trust import refused_folder
from waymark.doors.init_entries import waymark_command
from waymark.engine.errors import WaymarkError
from waymark.store.shelltrack import watch
from waymark.store.state_home import STATE_ENV

SERVER_NAME = "waymark"


def turn_prefix(session_id: str) -> str:
    """The start of every turn id of one ACP session: a session's turns are found in the
    history again after the proxy restarts (``session/load``)."""
    return "acp-" + hashlib.sha256(session_id.encode("utf-8", "replace")).hexdigest()[:10] + "-"


def mcp_server(cwd: str) -> dict[str, Any]:
    """Waymark's MCP server for a session in ``cwd``, as ACP's ``mcpServers`` holds it.

    Started the way ``waymark init`` registers it, with an absolute command (an agent may
    search another PATH), and handed the variables that say where the history lives (some
    agents start MCP servers with an allow-list of variables).
    """
    command = waymark_command()
    found = shutil.which(command[0]) or command[0]
    env = [
        {"name": name, "value": os.environ[name]}
        for name in ("HOME", *STATE_ENV)
        if name in os.environ
    ]
    return {
        "name": SERVER_NAME,
        "command": found,
        "args": [*command[1:], "mcp", "--workspace", cwd],
        "env": env,
    }


def has_waymark(servers: list[Any]) -> bool:
    """Whether the editor already gave the session a Waymark MCP server."""
    for server in servers:
        if not isinstance(server, dict):
            continue
        args = server.get("args")
        args = args if isinstance(args, list) else []
        command = Path(str(server.get("command") or "")).name
        if server.get("name") == SERVER_NAME or (command == "waymark" and "mcp" in args):
            return True
    return False


@dataclass
class Prompt:
    """One prompt in progress: its turn, and the scan bracketing it."""

    session: str
    turn: str
    door: Door


@dataclass
class Recorder:
    """The doors of the sessions' folders and the prompts in progress."""

    doors: dict[str, Door] = field(default_factory=dict)
    sessions: dict[str, str] = field(default_factory=dict)  # ACP session id -> cwd

    def __post_init__(self) -> None:
        # The proxy outlives its prompts, as the hook server outlives its commands: the scan
        # after a prompt looks only where inotify saw writes (all of it when that record may
        # be incomplete).
        watch.enable()

    def door(self, cwd: str) -> Door:
        root = os.path.realpath(cwd)
        if root not in self.doors:
            self.doors[root] = open_door(root)
        return self.doors[root]

    def untracked(self, session: str) -> str | None:
        """Why the proxy tracks nothing in ``session`` (None: it does)."""
        cwd = self.sessions.get(session)
        if cwd is None:
            return (
                f"Waymark saw no session/new for session {session!r}, so it tracks nothing there."
            )
        if refused_folder(Path(os.path.realpath(cwd))):
            # A scan per prompt of every file of the machine or the user, and rewinds of
            # other programs' changes: the hooks refuse these folders for the same reason.
            return (
                f"Waymark tracks no session in {cwd}: it is the root, the home directory or a "
                "system directory; open a project folder instead."
            )
        return None

    def session_door(self, session: str) -> tuple[Door, str] | None:
        if self.untracked(session) is not None:
            return None
        cwd = self.sessions[session]
        return self.door(cwd), cwd

    def begin_prompt(self, session: str, text: str) -> Prompt | None:
        """Open the prompt's turn and scan its folder (None: not a session this proxy saw)."""
        found = self.session_door(session)
        if found is None:
            warn(str(self.untracked(session)))
            return None
        door, cwd = found
        turn = turn_prefix(session) + os.urandom(6).hex()
        try:
            _, warnings = open_turn(door.ctx, turn, label_of(text) or "(prompt)")
        except WaymarkError as exc:
            warn(f"no turn for this prompt: {exc}")
            return None
        for warning in warnings:
            warn(warning)
        before_shell(door.ctx, turn, "", Path(cwd))
        return Prompt(session, turn, door)

    def end_prompt(self, prompt: Prompt) -> None:
        """Record what changed on disk during the prompt; forget a turn that changed nothing."""
        report = after_shell(prompt.door.ctx, prompt.turn)
        for warning in report.warnings if report is not None else ():
            warn(warning)
        drop_unchanged_turn(prompt.door.ctx, prompt.turn)

    def before_write(self, session: str, path: str) -> bool:
        """Back up a file the agent asks the editor to write; whether it is tracked."""
        found = self.session_door(session)
        if found is None:
            return False
        door, cwd = found
        try:
            for warning in before_host_write(door.ctx, path, Path(cwd)):
                warn(warning)
        except WaymarkError as exc:
            warn(f"not tracking the write of {path}: {exc}")
            return False
        return True

    def after_write(self, session: str, path: str) -> None:
        found = self.session_door(session)
        if found is not None:
            door, cwd = found
            try:
                after_host_write(door.ctx, path, Path(cwd))
            except (WaymarkError, OSError) as exc:
                warn(f"could not record the write of {path}: {exc}")

    def close(self) -> None:
        for door in self.doors.values():
            door.close()


def warn(message: str) -> None:
    print(f"waymark acp: {message}", file=sys.stderr, flush=True)

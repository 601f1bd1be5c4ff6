"""``waymark history delete`` run in a terminal while doors keep the history open: a real
``waymark mcp`` over stdio, the resident hook server, ``waymark-ls``. Each keeps working on a
fresh history: a change made after the delete is recorded there and rewinds byte for byte;
a turn of the deleted history answers ``unknown_prompt`` saying it was deleted.

Every hook server a test starts is killed by the pid in its pid file.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from mcp import ClientSession
from pygls.lsp.client import LanguageClient

import helpers_hook_server as served
from helpers_commands import cli
from helpers_hook_server import (
    applied,
    at,
    bash,
    is_server,
    stop_servers,
    wait_server,
)
from helpers_mcp import call, connect
from waymark.doors import hook_relay
from waymark.store.history import workspace_dir

pytestmark = pytest.mark.timeout(180)

GONE = (
    "unknown_prompt: Turn 't1' is gone: this workspace's history was deleted since "
    "(waymark history delete), with its backups, so it cannot be rewound; list the turns with "
    "waymark_turns."
)


def history_dir() -> Path:
    return Path(os.environ["XDG_STATE_HOME"]) / "waymark"


def delete_history(ws: Path, env: dict[str, str] | None = None) -> None:
    """``waymark history delete`` typed in a terminal in ``ws``."""
    done = cli(ws, "history", "delete", env=env)
    assert done == {
        "ok": True,
        "deleted": True,
        "directory": str(workspace_dir(history_dir(), [ws])),
    }


def lock_is_held(ws: Path) -> bool:
    """Whether some process holds the history's lock (as a new process would find it)."""
    fd = os.open(workspace_dir(history_dir(), [ws]) / "lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


async def ok(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    err, text = await call(session, tool, **arguments)
    assert not err, text
    result: dict[str, Any] = json.loads(text) if text.startswith("{") else {"text": text}
    return result


# -- waymark mcp ----------------------------------------------------------------------------


async def test_mcp_starts_a_fresh_history_after_a_delete(workspace: Path) -> None:
    a, b = workspace / "a.txt", workspace / "b.txt"
    a.write_bytes(b"one\n")
    b.write_bytes(b"b1\n")
    async with connect(workspace) as session:
        await ok(session, "waymark_snapshot", promptId="t1")
        await ok(session, "waymark_read", path="a.txt")
        await ok(session, "waymark_replace", path="a.txt", old_string="one", new_string="two")
        delete_history(workspace)

        await ok(session, "waymark_snapshot", promptId="t2")
        await ok(session, "waymark_read", path="a.txt")
        edit = await ok(
            session, "waymark_replace", path="a.txt", old_string="two", new_string="three"
        )
        assert "warnings" not in edit
        rewound = await ok(session, "waymark_rewind", promptId="t2")
        assert (rewound["restored"], rewound["failed"]) == (["a.txt"], [])
        assert a.read_bytes() == b"two\n"

        err, text = await call(session, "waymark_rewind", promptId="t1")
        assert err and text.split("\n")[0] == GONE, text
        assert json.loads(text.split("\n", 1)[1])["historyDeleted"] is True
        assert a.read_bytes() == b"two\n"

        # Deleted again, and this time another process starts the next history: the server
        # joins it, and its lock excludes that process again.
        delete_history(workspace)
        assert cli(workspace, "snapshot", "c1")["ok"] is True
        assert cli(workspace, "read", "b.txt")["ok"] is True
        assert cli(workspace, "replace", "b.txt", "b1", "b2")["ok"] is True
        await ok(session, "waymark_read", path="a.txt")
        await ok(session, "waymark_replace", path="a.txt", old_string="two", new_string="four")
        turns = await ok(session, "waymark_turns")
        assert [t["promptId"] for t in turns["turns"]] == ["c1"]
        rewound = await ok(session, "waymark_rewind", promptId="c1")
        assert (sorted(rewound["restored"]), rewound["failed"]) == (["a.txt", "b.txt"], [])
        assert (a.read_bytes(), b.read_bytes()) == (b"two\n", b"b1\n")
    assert not lock_is_held(workspace)
    shown = cli(workspace, "history", "show")
    assert [t["promptId"] for t in shown["turns"]] == ["c1", rewound["undoPromptId"]]


# -- the hook server -------------------------------------------------------------------------


@pytest.fixture
def server_state(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Hook calls go to the resident server; it is killed by its pid when the test ends."""
    monkeypatch.delenv(hook_relay.ENV_SWITCH)
    state = Path(os.environ["XDG_STATE_HOME"])
    try:
        yield state
    finally:
        stop_servers(state)


def hook(ws: Path, event: dict[str, Any]) -> bytes:
    """What Claude Code reads from ``waymark hook claude-code`` for ``event`` in ``ws``."""
    done = served.hook(ws, at(ws, event))
    assert (done.code, done.err) == (0, b""), done.err.decode()
    return done.out


def answered_by(ws: Path, event: dict[str, Any]) -> int:
    """The pid of the process that acted on the call ``event``."""
    return served.answered_by(dict(os.environ), ws, event)


def prompt(turn: str) -> dict[str, Any]:
    return {"hook_event_name": "UserPromptSubmit", "prompt": turn, "prompt_id": turn}


def sed(old: str, new: str, call_id: str) -> dict[str, Any]:
    return bash("PreToolUse", f"sed -i s/{old}/{new}/ a.txt", call_id)


def opened(turn: str) -> bytes:
    context = (
        f"Waymark opened turn {turn} ('{turn}'); waymark_rewind with promptId={turn} undoes "
        "this turn's file changes."
    )
    answer = {
        "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": context}
    }
    return json.dumps(answer).encode()


def test_the_hook_server_starts_a_fresh_history_after_a_delete(
    server_state: Path, workspace: Path
) -> None:
    subprocess.run(["git", "init", "-q", str(workspace)], check=True, timeout=30)
    a = workspace / "a.txt"
    a.write_bytes(b"one\n")
    assert hook(workspace, prompt("p1")) == opened("p1")
    server = wait_server(server_state)
    assert hook(workspace, sed("one", "two", "c1")) == applied("a.txt", "one", "two")
    assert answered_by(workspace, sed("one", "two", "c1")) == server
    delete_history(workspace)

    assert hook(workspace, prompt("p2")) == opened("p2")
    assert hook(workspace, sed("two", "three", "c2")) == applied("a.txt", "two", "three")
    assert answered_by(workspace, sed("two", "three", "c2")) == server
    assert a.read_bytes() == b"three\n"
    assert [t["promptId"] for t in cli(workspace, "turns")["turns"]] == ["p2"]
    rewound = cli(workspace, "rewind", "p2")
    assert (rewound["restored"], rewound["failed"]) == (["a.txt"], [])
    assert a.read_bytes() == b"two\n"
    gone = cli(workspace, "rewind", "p1")
    assert (gone["ok"], gone["error"]) == (False, "unknown_prompt")
    assert a.read_bytes() == b"two\n"
    assert is_server(server)


# -- waymark-ls ------------------------------------------------------------------------------


async def test_the_language_server_starts_a_fresh_history_after_a_delete(
    workspace: Path,
) -> None:
    a = workspace / "a.txt"
    a.write_bytes(b"one\n")
    client = LanguageClient("history-delete-test", "1")
    await client.start_io(sys.executable, "-m", "waymark", "serve")

    async def run(command: str, **params: Any) -> dict[str, Any]:
        result: dict[str, Any] = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=f"waymark.{command}", arguments=[params])
        )
        return result

    try:
        await client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(),
                workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
                initialization_options={"sessionId": "e1", "historyDir": str(history_dir())},
            )
        )
        client.initialized(types.InitializedParams())
        await run("snapshot", promptId="t1")
        await run("read", path="a.txt")
        assert (await run("replace", path="a.txt", old_string="one", new_string="two"))["ok"]
        delete_history(workspace)
        await run("snapshot", promptId="t2")
        await run("read", path="a.txt")
        edit = await run("replace", path="a.txt", old_string="two", new_string="three")
        assert edit["ok"] and "warnings" not in edit, edit
        rewound = await run("rewind", promptId="t2")
        assert (rewound["restored"], rewound["failed"]) == (["a.txt"], [])
        assert a.read_bytes() == b"two\n"
        gone = await run("rewind", promptId="t1")
        assert (gone["error"], gone["details"]["historyDeleted"]) == ("unknown_prompt", True)
        assert a.read_bytes() == b"two\n"
    finally:
        # Its exit, also after a failed assertion: stop() waits for the process to end.
        client.exit(None)
        await client.stop()

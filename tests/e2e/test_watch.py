"""Changes by other programs while the real ``waymark-ls`` runs: turns of their own, rewound
byte for byte; Waymark's own writes never recorded twice; ``watch: false`` turns it off."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from waymark.doors.lsp.watcher import READY

OTHERS = re.compile(r"Changes by other programs \d\d:\d\d(–\d\d:\d\d)?")
# Bounds on waiting for the server's background work; never an assertion on speed.
WAIT_S = 60.0


class Server:
    def __init__(self, client: LanguageClient) -> None:
        self.client = client
        self.logs: list[str] = []

    async def __call__(self, verb: str, /, **params: Any) -> dict[str, Any]:
        asked = self.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=f"waymark.{verb}", arguments=[params])
        )
        try:
            result: dict[str, Any] = await asyncio.wait_for(asked, WAIT_S)
        except TimeoutError:
            raise AssertionError(f"waymark.{verb} got no answer; logs: {self.logs}") from None
        return result

    async def until(self, what: str, ready: Callable[[], Any]) -> Any:
        deadline = time.monotonic() + WAIT_S
        while not (found := ready()):
            assert time.monotonic() < deadline, f"gave up waiting for {what}; logs: {self.logs}"
            await asyncio.sleep(0.1)
        return found

    async def turns(self) -> list[dict[str, Any]]:
        answer = await self("turns")
        turns: list[dict[str, Any]] = answer["turns"]
        return turns

    async def turn_with(self, path: str) -> dict[str, Any]:
        """The turn that recorded ``path`` (waiting for the watch to record it)."""
        found: list[dict[str, Any]] = []

        async def look() -> None:
            found[:] = [t for t in await self.turns() if path in t["edited"]]

        deadline = time.monotonic() + WAIT_S
        while not found:
            assert time.monotonic() < deadline, f"no turn recorded {path}; logs: {self.logs}"
            await asyncio.sleep(0.2)
            await look()
        return found[-1]


@asynccontextmanager
async def serve(
    root: Path, history: Path | None, *, ready: bool = True, **options: Any
) -> AsyncIterator[Server]:
    """The server on ``root``; its history in ``history`` (None: under XDG_STATE_HOME, where
    the hooks keep it too)."""
    client = LanguageClient("watch-test", "1")
    server = Server(client)

    @client.feature(types.WINDOW_LOG_MESSAGE)
    def logged(params: types.LogMessageParams) -> None:
        server.logs.append(params.message)

    await client.start_io(sys.executable, "-m", "waymark", "serve")
    try:
        await asyncio.wait_for(
            client.initialize_async(
                types.InitializeParams(
                    capabilities=types.ClientCapabilities(),
                    workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
                    initialization_options={
                        **({"historyDir": str(history)} if history else {}),
                        **options,
                    },
                )
            ),
            WAIT_S,
        )
        client.initialized(types.InitializedParams())
        if ready:
            await server.until("the watch", lambda: any(READY in m for m in server.logs))
        yield server
    finally:
        # Also after a failure: a server never told to exit is never waited for in vain.
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.shutdown_async(None), WAIT_S)
        client.exit(None)
        await client.stop()


def other_program(script: str, cwd: Path) -> None:
    """Another process writes: a shell, as a terminal or an agent's tool would."""
    subprocess.run(["sh", "-c", script], cwd=cwd, check=True, timeout=WAIT_S)


def workspace(tmp_path: Path) -> tuple[Path, Path]:
    root, history = tmp_path / "ws", tmp_path / "history"
    root.mkdir()
    return root, history


async def test_other_programs_changes_are_a_turn_that_rewinds(tmp_path: Path) -> None:
    root, history = workspace(tmp_path)
    (root / "notes.txt").write_bytes(b"mine\r\nkept\n")
    (root / "old.cfg").write_bytes(b"\x00\xffsecret=1\n")
    async with serve(root, history) as server:
        other_program("printf 'theirs\\n' > notes.txt; rm old.cfg; echo made > new.txt", root)
        turn = await server.turn_with("new.txt")
        assert OTHERS.fullmatch(turn["label"]), turn
        assert sorted(turn["edited"]) == ["new.txt", "notes.txt", "old.cfg"]
        rewound = await server("rewind", promptId=turn["promptId"])
        assert rewound["ok"], rewound
    assert (root / "notes.txt").read_bytes() == b"mine\r\nkept\n"
    assert (root / "old.cfg").read_bytes() == b"\x00\xffsecret=1\n"
    assert not (root / "new.txt").exists()


async def test_a_burst_of_2000_files_is_a_few_turns(tmp_path: Path) -> None:
    root, history = workspace(tmp_path)
    (root / "src").mkdir()
    (root / "src" / "main.py").write_bytes(b"print(1)\n")
    async with serve(root, history) as server:
        other_program(
            'mkdir gen && for i in $(seq 1 2000); do echo "file $i" > gen/f$i.txt; done; '
            "echo done > gen/zz-last.txt",
            root,
        )
        await server.turn_with("gen/zz-last.txt")
        turns = await server.turns()
        recorded = [p for t in turns for p in t["edited"]]
        assert len(recorded) == 2001
        assert 1 <= len(turns) <= 3, [t["label"] for t in turns]
        assert all(OTHERS.fullmatch(t["label"]) for t in turns)
        rewound = await server("rewind", promptId=turns[0]["promptId"])
        assert rewound["ok"], rewound
    assert not (root / "gen" / "f1.txt").exists()
    assert not (root / "gen" / "f2000.txt").exists()


async def test_waymark_writes_are_not_recorded_twice(tmp_path: Path) -> None:
    root, history = workspace(tmp_path)
    (root / "a.txt").write_bytes(b"one\n")
    (root / "b.txt").write_bytes(b"bee\n")
    async with serve(root, history, sessionId="s") as server:
        await server("snapshot", promptId="agent", label="the agent's turn")
        await server("read", path="a.txt")
        edited = await server("replace", path="a.txt", old_string="one", new_string="two")
        assert edited["ok"], edited
        # Another Waymark process (the CLI) writes through the same history.
        subprocess.run(
            [
                *("waymark", "write", "c.txt", "--content-file", "-", "--session", "s"),
                *("--root", str(root), "--history-dir", str(history)),
            ],
            input=b"from the CLI\n",
            check=True,
            timeout=WAIT_S,
            capture_output=True,
            env={**os.environ, "WAYMARK_BRIDGE": "off"},
        )
        other_program("echo sentinel > s1.txt", root)
        first = await server.turn_with("s1.txt")
        rewound = await server("rewind", promptId=first["promptId"])
        assert rewound["ok"], rewound
        other_program("echo sentinel > s2.txt", root)
        await server.turn_with("s2.txt")
        turns = await server.turns()
    by_label = [(t["label"], sorted(t["edited"])) for t in turns]
    assert by_label[0] == ("the agent's turn", ["a.txt", "c.txt"]), by_label
    watched = [edited for label, edited in by_label if OTHERS.fullmatch(label or "")]
    assert watched == [["s1.txt"], ["s2.txt"]], by_label
    assert (root / "a.txt").read_bytes() == b"two\n"


async def test_a_save_announced_by_the_editor_rewinds_an_ignored_file(tmp_path: Path) -> None:
    root, history = workspace(tmp_path)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, timeout=WAIT_S)
    (root / ".gitignore").write_bytes(b".env.local\n")
    env = root / ".env.local"
    env.write_bytes(b"TOKEN=original\n")
    async with serve(root, history) as server:
        await server.client.text_document_will_save_wait_until_async(
            types.WillSaveTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=env.as_uri()),
                reason=types.TextDocumentSaveReason.Manual,
            )
        )
        env.write_bytes(b"TOKEN=overwritten by an extension\n")
        turn = await server.turn_with(".env.local")
        assert turn["label"] == "Saved in the editor"
        rewound = await server("rewind", promptId=turn["promptId"])
        assert rewound["ok"], rewound
    assert env.read_bytes() == b"TOKEN=original\n"


async def test_watch_false_records_nothing(tmp_path: Path) -> None:
    root, history = workspace(tmp_path)
    async with serve(root, history, ready=False, watch=False) as server:
        other_program("echo theirs > t.txt", root)
        # Longer than a burst's quiet period: a watch would have recorded it by then.
        await asyncio.sleep(3)
        assert await server.turns() == []
        assert not any(READY in m for m in server.logs)


def claude_hook(root: Path, event: dict[str, Any]) -> None:
    """Claude Code's hook, as it runs it: a process with the hook JSON on stdin."""
    subprocess.run(
        [sys.executable, "-m", "waymark", "hook", "claude-code"],
        input=json.dumps({"cwd": str(root), "session_id": "claude", **event}).encode(),
        cwd=root,
        env={**os.environ, "CLAUDE_PROJECT_DIR": str(root)},
        check=True,
        timeout=WAIT_S,
        capture_output=True,
    )


async def test_a_hooked_shell_command_is_recorded_by_its_hook_alone(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "keep.txt").write_bytes(b"before\n")
    command = "rm keep.txt; echo made > made.txt"
    call = {"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "t1"}
    async with serve(root, None) as server:
        claude_hook(root, {"hook_event_name": "UserPromptSubmit", "prompt": "tidy up"})
        claude_hook(root, {"hook_event_name": "PreToolUse", **call})
        other_program(command, root)
        # The command runs on past the watch's quiet period before its Post.
        await asyncio.sleep(3)
        claude_hook(root, {"hook_event_name": "PostToolUse", **call, "tool_response": {}})
        other_program("echo sentinel > s.txt", root)
        await server.turn_with("s.txt")
        turns = [(t["label"], sorted(t["edited"])) for t in await server.turns()]
    assert turns[0] == ("tidy up", ["keep.txt", "made.txt"]), turns
    assert [edited for label, edited in turns[1:] if OTHERS.fullmatch(label)] == [["s.txt"]]


async def test_an_ignored_file_another_program_removes_comes_back(tmp_path: Path) -> None:
    root, history = workspace(tmp_path)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, timeout=WAIT_S)
    (root / ".gitignore").write_bytes(b".env.local\nbuild/\n")
    (root / ".env.local").write_bytes(b"SECRET=1\r\n")
    (root / "build").mkdir()
    (root / "build" / "out.o").write_bytes(b"\x7fELF\x00object")
    async with serve(root, history) as server:
        other_program("rm .env.local && rm -r build", root)
        turn = await server.turn_with(".env.local")
        assert OTHERS.fullmatch(turn["label"]), turn
        assert sorted(turn["edited"]) == [".env.local", "build/out.o"]
        rewound = await server("rewind", promptId=turn["promptId"])
        assert rewound["ok"], rewound
    assert (root / ".env.local").read_bytes() == b"SECRET=1\r\n"
    assert (root / "build" / "out.o").read_bytes() == b"\x7fELF\x00object"


async def test_a_watched_turn_mid_prompt_leaves_the_agents_turn_open(tmp_path: Path) -> None:
    root, history = workspace(tmp_path)
    (root / "shared.txt").write_bytes(b"original\n")
    async with serve(root, history, sessionId="s") as server:
        await server("snapshot", promptId="agent", label="the agent's turn")
        other_program("echo theirs > theirs.txt", root)
        watched = await server.turn_with("theirs.txt")
        # The agent writes on after the other program's turn was recorded.
        written = await server("write", path="later.txt", content="agent's\n")
        assert written["ok"], written
        await server("read", path="shared.txt")
        edited = await server(
            "replace", path="shared.txt", old_string="original", new_string="agent"
        )
        assert edited["ok"], edited
        other_program("echo editor >> shared.txt", root)
        other_program("echo sentinel > sentinel.txt", root)
        await server.turn_with("sentinel.txt")
        turns = {t["promptId"]: sorted(t["edited"]) for t in await server.turns()}
        assert turns.get("agent") == ["later.txt", "shared.txt"], await server.turns()
        assert turns[watched["promptId"]] == ["theirs.txt"], turns
        # The agent's write came between: the other program's change to that file is a turn
        # after it (its pre-image is the agent's bytes), not taken into the earlier one.
        assert [edited for edited in turns.values() if "shared.txt" in edited][1:], turns
        # Rewinding the agent's turn takes back its writes, the one after the watched turn
        # too, and the file both changed goes back to how the turn found it.
        rewound = await server("rewind", promptId="agent")
        assert rewound["ok"], rewound
    assert not (root / "later.txt").exists()
    assert not (root / "theirs.txt").exists()
    assert (root / "shared.txt").read_bytes() == b"original\n"


async def test_repeated_editor_saves_are_one_turn_that_rewinds_to_the_first(
    tmp_path: Path,
) -> None:
    root, history = workspace(tmp_path)
    page = root / "page.md"
    page.write_bytes(b"first draft\r\n")
    async with serve(root, history) as server:
        for n in range(1, 6):
            await server.client.text_document_will_save_wait_until_async(
                types.WillSaveTextDocumentParams(
                    text_document=types.TextDocumentIdentifier(uri=page.as_uri()),
                    reason=types.TextDocumentSaveReason.Manual,
                )
            )
            page.write_bytes(f"save {n}\n".encode())
            await server.turn_with("page.md")
            # Past the watch's quiet period: each save is a burst of its own.
            await asyncio.sleep(1.5)
        turns = await server.turns()
        assert [(t["label"], t["edited"]) for t in turns] == [("Saved in the editor", ["page.md"])]
        rewound = await server("rewind", promptId=turns[0]["promptId"])
        assert rewound["ok"], rewound
    assert page.read_bytes() == b"first draft\r\n"


async def test_every_file_rewinds_once_the_watch_is_ready_without_git(tmp_path: Path) -> None:
    root, history = workspace(tmp_path)
    # More files than a second's copying takes here: the fill runs on past its first slice
    # while no one waits for the history.
    for i in range(4000):
        folder = root / f"d{i % 100:02d}"
        folder.mkdir(exist_ok=True)
        (folder / f"f{i}.txt").write_bytes(f"file {i}\r\n".encode() * 5)
    async with serve(root, history) as server:
        # Right once it is watching: no file is left for a later bracket to copy.
        other_program("rm d*/f39??.txt", root)
        turn = await server.turn_with("d99/f3999.txt")
        assert len(turn["edited"]) == 100, turn
        rewound = await server("rewind", promptId=turn["promptId"])
        assert rewound["ok"], rewound
    for i in range(3900, 4000):
        assert (root / f"d{i % 100:02d}" / f"f{i}.txt").read_bytes() == f"file {i}\r\n".encode() * 5

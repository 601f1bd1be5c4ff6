"""`waymark acp` between a scripted editor and a tiny fake ACP agent (tests/acp/fake_agent.py):
what passes untouched, what Waymark adds, turns and /rewind, broken lines, ends of either side.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from helpers_acp import Editor, agent_log, fake_agent

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return tmp_path / "agent.jsonl"


@pytest.fixture
def editor(log: Path):
    started = Editor(fake_agent(), env={"FAKE_ACP_LOG": str(log)})
    yield started
    started.stop()


def received(log: Path) -> list[str]:
    return [line[1:] for line in agent_log(log) if line.startswith("<")]


def sent(log: Path) -> list[str]:
    return [line[1:] for line in agent_log(log) if line.startswith(">")]


def test_untouched_messages_pass_byte_for_byte(editor: Editor, log: Path, workspace: Path) -> None:
    odd = b'{ "params" : {"protocolVersion":1,"clientCapabilities":{}, "x":"\\u00e9"},"id":9,"jsonrpc":"2.0","method":"initialize"}'  # noqa: E501
    editor.send_raw(odd)
    editor.answer(9)
    editor.send_raw(b'{"jsonrpc":"2.0","id":"u","method":"_vendor/thing","params":{"a":[1, 2]}}')
    editor.answer("u")
    [session] = editor.start(workspace)
    editor.prompt(1, session, "hello there")
    assert editor.close() == 0
    got = received(log)
    assert got[0] == odd.decode()
    assert got[1] == '{"jsonrpc":"2.0","id":"u","method":"_vendor/thing","params":{"a":[1, 2]}}'
    # Everything the agent sent reached the editor as it was, in order, but the list of
    # commands, which gains Waymark's.
    shown = [line.rstrip(b"\n").decode() for line in editor.seen]
    untouched = [line for line in sent(log) if "available_commands_update" not in line]
    assert [line for line in shown if line in untouched] == untouched


def test_sessions_get_waymark_mcp_server_once(editor: Editor, log: Path, workspace: Path) -> None:
    editor.call(0, "initialize", {"protocolVersion": 1, "clientCapabilities": {}})
    editor.call(1, "session/new", {"cwd": str(workspace), "mcpServers": []})
    own = {"name": "waymark", "command": "/opt/waymark", "args": ["mcp"], "env": []}
    editor.call(2, "session/new", {"cwd": str(workspace), "mcpServers": [own]})
    load = {"sessionId": "old", "cwd": str(workspace), "mcpServers": []}
    editor.call(3, "session/load", load)
    editor.close()
    first, second = (json.loads(line) for line in received(log) if "session/new" in line)
    [loaded] = (json.loads(line) for line in received(log) if "session/load" in line)
    assert loaded["params"]["mcpServers"] == first["params"]["mcpServers"]
    [server] = first["params"]["mcpServers"]
    assert server["name"] == "waymark"
    assert os.path.isabs(server["command"])
    assert server["args"][-3:] == ["mcp", "--workspace", str(workspace)]
    assert {"name": "XDG_STATE_HOME", "value": os.environ["XDG_STATE_HOME"]} in server["env"]
    assert second["params"]["mcpServers"] == [own]


def test_commands_are_advertised_and_merged(editor: Editor, workspace: Path) -> None:
    editor.call(0, "initialize", {"protocolVersion": 1, "clientCapabilities": {}})
    editor.send(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "session/new",
            "params": {"cwd": str(workspace), "mcpServers": []},
        }
    )
    lists = []
    while len(lists) < 2:
        message = editor.until(lambda m: m.get("method") == "session/update")
        lists.append([c["name"] for c in message["params"]["update"]["availableCommands"]])
    # Waymark's own list right after session/new, then the agent's with ours merged in: the
    # list the editor keeps (the last) has both.
    assert lists == [["rewind", "turns"], ["compact", "rewind", "turns"]]


def test_a_prompt_is_a_turn_and_rewind_restores_it(
    editor: Editor, log: Path, workspace: Path
) -> None:
    (workspace / "a.txt").write_bytes(b"one\r\ntwo\r\n")
    (workspace / "gone.txt").write_bytes(b"keep me\n")
    [session] = editor.start(workspace)
    _, answer = editor.prompt(
        1, session, "write a.txt via the editor; disk b.txt made on disk; rm gone.txt"
    )
    assert answer["result"] == {"stopReason": "end_turn"}
    assert (workspace / "a.txt").read_text() == "via the editor"
    assert (workspace / "b.txt").read_text() == "made on disk"
    shown, answer = editor.prompt(2, session, "/turns")
    assert answer["result"] == {"stopReason": "end_turn"}
    turns = json.loads(shown)["turns"]
    [turn] = turns
    assert turn["label"].startswith("write a.txt via the editor; disk b.txt")
    assert sorted(turns[0]["edited"]) == ["a.txt", "b.txt", "gone.txt"]
    shown, answer = editor.prompt(3, session, "/rewind")
    assert answer["result"] == {"stopReason": "end_turn"}
    assert (workspace / "a.txt").read_bytes() == b"one\r\ntwo\r\n"
    assert (workspace / "gone.txt").read_bytes() == b"keep me\n"
    assert not (workspace / "b.txt").exists()
    assert "a.txt" in shown and "b.txt" in shown
    assert editor.close() == 0
    assert not any("/rewind" in line or "/turns" in line for line in received(log))


def test_a_git_ignored_file_the_agent_deletes_comes_back(
    editor: Editor, log: Path, workspace: Path
) -> None:
    def git(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
            cwd=workspace,
            check=True,
            capture_output=True,
        )

    git("init", "-q")
    (workspace / ".gitignore").write_text(".env.local\n")
    git("add", ".gitignore")
    git("commit", "-qm", "ignore")
    (workspace / ".env.local").write_bytes(b"TOKEN=s3cret\r\n")
    [session] = editor.start(workspace)
    _, answer = editor.prompt(1, session, "rm .env.local")
    assert answer["result"] == {"stopReason": "end_turn"}
    assert not (workspace / ".env.local").exists()
    shown, _ = editor.prompt(2, session, "/rewind")
    assert (workspace / ".env.local").read_bytes() == b"TOKEN=s3cret\r\n", shown
    assert editor.close() == 0


def test_rewind_with_nothing_to_undo_says_so(editor: Editor, log: Path, workspace: Path) -> None:
    [session] = editor.start(workspace)
    shown, answer = editor.prompt(1, session, "/rewind")
    assert answer["result"] == {"stopReason": "end_turn"}
    assert shown.startswith("This session has 0 turns that changed files;")
    editor.close()
    assert not any("/rewind" in line for line in received(log))


def test_malformed_lines_both_ways(editor: Editor, log: Path, workspace: Path) -> None:
    [session] = editor.start(workspace)
    editor.send_raw(b"not json at all {")
    editor.send_raw(b'{"jsonrpc":"2.0","id":41,"method":"session/prompt","params":')
    error = editor.answer(41)
    assert error["error"]["code"] == -32700
    # The agent's garbage line is dropped; the prompt still ends.
    _, answer = editor.prompt(2, session, "garbage; say hi")
    assert answer["result"] == {"stopReason": "end_turn"}
    # A broken answer to the editor's request reaches it as an error, not silence.
    _, answer = editor.prompt(3, session, "broken")
    assert answer["error"]["code"] == -32603
    assert "not JSON" in answer["error"]["message"]
    _, answer = editor.prompt(4, session, "still working")
    assert answer["result"] == {"stopReason": "end_turn"}
    assert editor.close() == 0
    assert "this is not json {" not in b"".join(editor.seen).decode()
    assert b"dropped a line from the editor" in editor.stderr
    assert b"dropped a line from the agent" in editor.stderr


def test_agent_dying_mid_prompt_answers_the_editor(editor: Editor, workspace: Path) -> None:
    [session] = editor.start(workspace)
    editor.send(
        {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "session/prompt",
            "params": {
                "sessionId": session,
                "prompt": [{"type": "text", "text": "disk x.txt X; die"}],
            },
        }
    )
    error = editor.answer(7)
    assert error["error"]["message"].startswith("The agent (")
    assert "exited with status 3 before answering" in error["error"]["message"]
    assert editor.wait() != 0
    # What it changed before it died is still a turn.
    assert (workspace / "x.txt").exists()


def test_cancel_during_a_prompt(editor: Editor, log: Path, workspace: Path) -> None:
    [session] = editor.start(workspace)
    editor.send(
        {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "session/prompt",
            "params": {
                "sessionId": session,
                "prompt": [{"type": "text", "text": "disk c.txt C; wait"}],
            },
        }
    )
    cancel = b'{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"%s"}}' % (
        session.encode()
    )
    while not (workspace / "c.txt").exists():
        time.sleep(0.05)
    editor.send_raw(cancel)
    assert editor.answer(5)["result"] == {"stopReason": "cancelled"}
    shown, _ = editor.prompt(6, session, "/rewind")
    assert not (workspace / "c.txt").exists()
    assert "c.txt" in shown
    editor.close()
    assert cancel.decode() in received(log)


def test_huge_session_update_passes_whole(editor: Editor, log: Path, workspace: Path) -> None:
    [session] = editor.start(workspace)
    size = 6 * 1024 * 1024
    shown, _ = editor.prompt(1, session, f"big {size}")
    assert shown == "x" * size
    editor.close()
    [big] = [line for line in sent(log) if len(line) > size]
    assert big.encode() + b"\n" in editor.seen


def test_concurrent_sessions(editor: Editor, tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    first, second = editor.start(one, two)
    for n, (session, name) in enumerate(((first, "p.txt"), (second, "q.txt"))):
        editor.send(
            {
                "jsonrpc": "2.0",
                "id": f"p{n}",
                "method": "session/prompt",
                "params": {
                    "sessionId": session,
                    "prompt": [{"type": "text", "text": f"write {name} {n}; written; wait"}],
                },
            }
        )
    written = 0
    while written < 2:
        message = editor.until(lambda m: m.get("method") == "session/update")
        written += "echo: written" in json.dumps(message)
    for session in (first, second):
        editor.send(
            {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session}}
        )
    ended = set()
    while len(ended) < 2:  # in either order
        answer = editor.until(lambda m: m.get("id") in ("p0", "p1"))
        assert answer["result"] == {"stopReason": "cancelled"}
        ended.add(answer["id"])
    shown, _ = editor.prompt("r", second, "/rewind")
    assert not (two / "q.txt").exists()
    assert (one / "p.txt").read_text() == "0"
    shown, _ = editor.prompt("t", first, "/turns")
    assert [t["edited"] for t in json.loads(shown)["turns"]] == [["p.txt"]]
    assert editor.close() == 0


@pytest.mark.parametrize("how", ["stdin closed", "SIGTERM"])
def test_editor_leaving_ends_the_agent_and_its_group(
    editor: Editor, workspace: Path, how: str
) -> None:
    [session] = editor.start(workspace)
    editor.prompt(1, session, "child")
    [agent] = [pid for pid, (ppid, _, _) in _processes().items() if ppid == editor.proc.pid]
    group = [pid for pid, (_, pgid, _) in _processes().items() if pgid == agent]
    assert len(group) == 2  # the agent and its sleep
    if how == "SIGTERM":
        editor.proc.terminate()
        assert editor.wait() == 0
    else:
        assert editor.close() == 0
    alive = {pid: state for pid, (_, _, state) in _processes().items() if pid in group}
    assert all(state == "Z" for state in alive.values()), alive  # at most not yet reaped by init


def _processes() -> dict[int, tuple[int, int, str]]:
    """pid -> (parent, process group, state) of every process."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        found[int(entry.name)] = (int(fields[1]), int(fields[2]), fields[0])
    return found


def test_home_is_never_tracked(log: Path, workspace: Path) -> None:
    editor = Editor(fake_agent(), env={"FAKE_ACP_LOG": str(log), "HOME": str(workspace)})
    try:
        [session] = editor.start(workspace)
        _, answer = editor.prompt(1, session, "disk x.txt X")
        assert answer["result"] == {"stopReason": "end_turn"}
        shown, _ = editor.prompt(2, session, "/rewind")
        assert shown == (
            f"Waymark tracks no session in {workspace}: it is the root, the home directory or "
            "a system directory; open a project folder instead."
        )
        assert (workspace / "x.txt").read_text() == "X"
        assert editor.close() == 0
    finally:
        editor.stop()


def test_editor_write_outside_the_workspace_passes_untracked(
    editor: Editor, workspace: Path
) -> None:
    [session] = editor.start(workspace)
    _, answer = editor.prompt(1, session, "write ../outside.txt from the agent")
    assert answer["result"] == {"stopReason": "end_turn"}
    assert (workspace.parent / "outside.txt").read_text() == "from the agent"
    shown, _ = editor.prompt(2, session, "/turns")
    assert shown == "No turn of this session changed a file yet."
    assert editor.close() == 0
    assert b"not tracking the write of" in editor.stderr

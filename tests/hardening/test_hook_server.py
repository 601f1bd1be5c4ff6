"""The resident hook server (doors/hook_relay.py, doors/hooks/server.py), driven as Claude Code
drives it: each call a real ``waymark hook claude-code`` process (the console script next to
this interpreter, what ``waymark init`` writes) with the host's JSON on stdin.

Who acted on a call is read from its once-per-call record (store/once.py), which holds the pid
of the process that ran it: the server's, or the hook process's own. Every server a test
starts is killed by the pid in its pid file (the ``servers`` fixture).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from helpers_commands import cli
from helpers_hook_server import (
    Done,
    Servers,
    answered_by,
    applied,
    at,
    bash,
    hook,
    is_server,
    package_copy,
    pid_files,
    project,
    state_of,
    wait_gone,
)
from waymark.doors import hook_relay

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(sys.platform != "linux", reason="the hook server needs abstract sockets"),
]

# A call the hook answers without acting (Claude Code's Read is not tracked): it only starts
# the server.
WARM_UP = {"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_use_id": "warm"}
PROMPT = {"hook_event_name": "UserPromptSubmit", "prompt": "p1", "prompt_id": "p1"}
STALE = b"is older than Waymark's files"
PROMPT_ANSWER = (
    b'{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": '
    b"\"Waymark opened turn p1 ('p1'); waymark_rewind with promptId=p1 undoes this turn's "
    b'file changes."}}'
)


# -- the same answers as without a server ---------------------------------------------------


SCENARIO = [
    PROMPT,
    bash("PreToolUse", "printf x >> a.txt", "t1"),
    bash("PostToolUse", "printf x >> a.txt", "t1"),
    bash("PreToolUse", "sed -i s/one/two/ b.txt", "t2"),
]
FILES = {"a.txt": b"a\n", "b.txt": b"one\n"}


def run_scenario(ws: Path, env: dict[str, str]) -> tuple[list[Done], dict[str, Any]]:
    """Each call's outcome, then turns and rewind as a terminal shows them."""
    done = []
    for event in SCENARIO:
        done.append(hook(ws, at(ws, event), env))
        if event["hook_event_name"] == "PreToolUse" and event["tool_use_id"] == "t1":
            subprocess.run(["sh", "-c", "printf x >> a.txt"], cwd=ws, check=True, timeout=30)
    edited = {"a.txt": (ws / "a.txt").read_bytes(), "b.txt": (ws / "b.txt").read_bytes()}
    turns = cli(ws, "turns", env=env)["turns"]
    rewound = cli(ws, "rewind", "p1", env=env)
    rewound.pop("undoPromptId")  # a fresh id each time
    for turn in turns:
        turn.pop("timestamp")
    after = {name: (ws / name).read_bytes() for name in FILES}
    return done, {"edited": edited, "turns": turns, "rewound": rewound, "after": after}


def test_served_calls_answer_byte_for_byte_as_in_process(servers: Servers, tmp_path: Path) -> None:
    off_ws, off_env = project(tmp_path, "off", FILES)
    off_env = {
        **off_env,
        "XDG_STATE_HOME": str(tmp_path / "off-state"),
        "WAYMARK_HOOK_SERVER": "off",
    }
    on_ws, on_env = project(tmp_path, "on", FILES)
    off, off_shown = run_scenario(off_ws, off_env)

    hook(on_ws, at(on_ws, WARM_UP), on_env)
    server = servers.up(state_of(on_env))
    on, on_shown = run_scenario(on_ws, on_env)

    assert [(d.code, d.out, d.err) for d in on] == [(d.code, d.out, d.err) for d in off]
    assert on[0].out == PROMPT_ANSWER and on[3].out == applied("b.txt", "one", "two")
    assert on_shown == off_shown
    assert on_shown["edited"] == {"a.txt": b"a\nx", "b.txt": b"two\n"}
    assert on_shown["after"] == FILES
    # Each call acted in the server, and without it in its own hook process.
    assert [answered_by(on_env, on_ws, e) for e in SCENARIO] == [server] * len(SCENARIO)
    assert [answered_by(off_env, off_ws, e) for e in SCENARIO] == [d.pid for d in off]
    assert is_server(server)


def test_first_call_starts_a_server_and_answers_itself(servers: Servers, workspace: Path) -> None:
    env = dict(os.environ)
    (workspace / "b.txt").write_bytes(b"one\n")
    first = hook(workspace, at(workspace, PROMPT))
    assert (first.code, first.out, first.err) == (0, PROMPT_ANSWER, b"")
    assert answered_by(env, workspace, PROMPT) == first.pid
    server = servers.up(state_of(env))
    assert server != first.pid and is_server(server)
    sed = bash("PreToolUse", "sed -i s/one/two/ b.txt", "t1")
    second = hook(workspace, at(workspace, sed))
    assert second.out == applied("b.txt", "one", "two")
    assert answered_by(env, workspace, sed) == server


# -- each call in its own process's environment, working directory and umask -----------------


def test_each_call_acts_in_its_own_workspace_and_environment(
    servers: Servers, tmp_path: Path
) -> None:
    ws1, env1 = project(tmp_path, "one", {"f.txt": b"one\n"})
    ws2, env2 = project(tmp_path, "two", {"f.txt": b"one\n"})
    hook(ws1, WARM_UP, env1)
    server = servers.up(state_of(env1))

    # No cwd in the JSON: the relative name is the hook process's working directory's.
    def sed(old: str, new: str, call: str) -> dict[str, Any]:
        return bash("PreToolUse", f"sed -i s/{old}/{new}/ f.txt", call)

    assert hook(ws1, sed("one", "A", "c1"), env1).out == applied("f.txt", "one", "A")
    assert hook(ws2, sed("one", "B", "c2"), env2).out == applied("f.txt", "one", "B")
    assert (ws1 / "f.txt").read_bytes() == b"A\n" and (ws2 / "f.txt").read_bytes() == b"B\n"
    assert answered_by(env1, ws1, sed("one", "A", "c1")) == server
    assert answered_by(env2, ws2, sed("one", "B", "c2")) == server

    # Copilot CLI runs Claude Code's hooks with COPILOT_CLI set: this call steps aside ...
    foreign = hook(ws1, sed("A", "C", "c3"), {**env1, "COPILOT_CLI": "1"})
    assert foreign.out == b"" and b"this one steps aside" in foreign.err, foreign.err
    assert (ws1 / "f.txt").read_bytes() == b"A\n"
    # ... and the variable goes with it: the next call acts.
    assert hook(ws1, sed("A", "D", "c4"), env1).out == applied("f.txt", "A", "D")
    assert (ws1 / "f.txt").read_bytes() == b"D\n"
    assert answered_by(env1, ws1, sed("A", "D", "c4")) == server


def test_state_is_private_for_a_call_under_umask_000(servers: Servers, workspace: Path) -> None:
    env = dict(os.environ)
    state = state_of(env)
    (workspace / "b.txt").write_bytes(b"one\n")
    subprocess.run(["git", "init", "-q", str(workspace)], check=True, timeout=30)
    hook(workspace, at(workspace, WARM_UP), umask=0)
    server = servers.up(state)
    calls = [
        PROMPT,
        bash("PreToolUse", "echo z > a.txt", "t1"),
        bash("PostToolUse", "echo z > a.txt", "t1"),
        bash("PreToolUse", "echo u > u.txt", "t2"),
        bash("PreToolUse", "sed -i s/one/two/ b.txt", "t3"),
    ]
    for event in calls:
        assert hook(workspace, at(workspace, event), umask=0).code == 0
    assert [answered_by(env, workspace, e) for e in calls] == [server] * len(calls)
    modes = {
        p.relative_to(state).as_posix(): p.lstat().st_mode & 0o777
        for p in [state, *state.rglob("*")]
    }
    assert any("/shell/" in p for p in modes), modes
    wrong = {p: oct(m) for p, m in modes.items() if m != (0o700 if (state / p).is_dir() else 0o600)}
    assert wrong == {}


# -- when the server cannot answer, the hook does -------------------------------------------


def test_a_frozen_server_is_passed_over(servers: Servers, workspace: Path) -> None:
    env = dict(os.environ)
    (workspace / "b.txt").write_bytes(b"one\n")
    hook(workspace, at(workspace, WARM_UP))
    server = servers.up(state_of(env))
    sed = bash("PreToolUse", "sed -i s/one/two/ b.txt", "t1")
    os.kill(server, signal.SIGSTOP)
    try:
        start = time.monotonic()
        done = hook(workspace, at(workspace, sed))
        took = time.monotonic() - start
    finally:
        os.kill(server, signal.SIGCONT)
    assert (done.code, done.out) == (0, applied("b.txt", "one", "two"))
    assert took < 5, took
    assert answered_by(env, workspace, sed) == done.pid
    # Thawed, it serves the next call.
    again = bash("PreToolUse", "sed -i s/two/three/ b.txt", "t2")
    assert hook(workspace, at(workspace, again)).out == applied("b.txt", "two", "three")
    assert answered_by(env, workspace, again) == server


def test_a_server_older_than_the_files_declines_and_exits(
    servers: Servers, workspace: Path, tmp_path: Path
) -> None:
    lib, env = package_copy(tmp_path)
    (workspace / "b.txt").write_bytes(b"one\n")
    hook(workspace, at(workspace, WARM_UP), env)
    server = servers.up(state_of(env))
    assert str(lib).encode() in Path(f"/proc/{server}/cmdline").read_bytes()
    os.utime(lib / "waymark" / "doors" / "hooks" / "handlers.py")
    sed = bash("PreToolUse", "sed -i s/one/two/ b.txt", "t1")
    done = hook(workspace, at(workspace, sed), env)
    assert (done.code, done.out) == (0, applied("b.txt", "one", "two"))
    assert answered_by(env, workspace, sed) == done.pid
    assert done.err == b"waymark hook: the hook server %s; running here\n" % STALE
    assert wait_gone(server)
    assert pid_files(state_of(env)) == []


def test_an_idle_server_exits(servers: Servers, workspace: Path) -> None:
    env = {**os.environ, hook_relay.ENV_IDLE: "0.5"}
    hook(workspace, at(workspace, WARM_UP), env)
    server = servers.up(state_of(env))
    assert wait_gone(server)
    assert pid_files(state_of(env)) == []


# A listener of another user on the hook's own address: it greets as a server does and
# counts the bytes it is sent.
OTHER_USER = """
import socket, sys
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.bind(bytes.fromhex(sys.argv[1]))
sock.listen(8)
sock.settimeout(60)
print("listening", flush=True)
conn, _ = sock.accept()
got = b""
conn.settimeout(5)
try:
    conn.sendall(bytes.fromhex(sys.argv[2]))
    while chunk := conn.recv(65536):
        got += chunk
except OSError:
    pass
print(len(got), flush=True)
"""


@pytest.mark.skipif(
    os.getuid() != 0 or shutil.which("setpriv") is None, reason="needs root and setpriv"
)
def test_another_users_listener_is_not_used(servers: Servers, workspace: Path) -> None:
    where = hook_relay.address(hook_relay.server_key())
    listener = subprocess.Popen(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
         "/usr/bin/python3", "-c", OTHER_USER, where.hex(), hook_relay.GREETING.hex()],
        cwd="/",
        stdout=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        assert listener.stdout is not None
        assert listener.stdout.readline() == "listening\n"
        (workspace / "b.txt").write_bytes(b"one\n")
        sed = bash("PreToolUse", "sed -i s/one/two/ b.txt", "t1")
        done = hook(workspace, at(workspace, sed))
        assert (done.code, done.out, done.err) == (0, applied("b.txt", "one", "two"), b"")
        assert answered_by(dict(os.environ), workspace, sed) == done.pid
        received, _ = listener.communicate(timeout=30)
    finally:
        listener.kill()
    assert received == "0\n"


def test_an_unknown_host_gets_the_clis_error(servers: Servers, workspace: Path) -> None:
    env = dict(os.environ)
    hook(workspace, at(workspace, WARM_UP), env)
    server = servers.up(state_of(env))
    served = hook(workspace, {}, env, host="nope")
    alone = hook(workspace, {}, {**env, hook_relay.ENV_SWITCH: "off"}, host="nope")
    assert served.code == alone.code == 2
    assert b"invalid choice: 'nope'" in alone.err
    assert (served.out, served.err) == (alone.out, alone.err)
    assert is_server(server)


# -- a long-lived server --------------------------------------------------------------------


def descriptors(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def test_many_calls_leave_no_descriptor_and_see_other_writers(
    servers: Servers, tmp_path: Path
) -> None:
    """The server keeps each workspace's history open between calls: a turn another process
    records between two calls is seen by the next one, and nothing piles up."""
    ws, env = project(tmp_path, "ws", {"a.txt": b"a\n"})
    hook(ws, at(ws, WARM_UP), env)
    pid = servers.up(state_of(env))
    hook(ws, at(ws, PROMPT), env)
    before = 0
    for n in range(40):
        if n == 1:
            before = descriptors(pid)  # the history and the folder's watch are open now
        command = f"printf {n} >> a.txt"
        hook(ws, at(ws, bash("PreToolUse", command, f"c{n}")), env)
        subprocess.run(["sh", "-c", command], cwd=ws, check=True, timeout=30)
        done = hook(ws, at(ws, bash("PostToolUse", command, f"c{n}")), env)
        assert b"modified a.txt" in done.out
        if n == 20:
            # A terminal's turn in between: the server's open history must not miss it.
            terminal = [sys.executable, "-m", "waymark", "run", "--prompt-id", "t-cli", "--"]
            subprocess.run(
                [*terminal, "sh", "-c", "printf cli >> a.txt"], cwd=ws, env=env, timeout=60
            )
    assert answered_by(env, ws, bash("PostToolUse", "", "c39")) == pid
    assert descriptors(pid) == before
    turns = {t["promptId"]: t for t in cli(ws, "turns", env=env)["turns"]}
    assert {"p1", "t-cli"} <= set(turns)
    cli(ws, "rewind", "p1", env=env)
    assert (ws / "a.txt").read_bytes() == b"a\n"


def test_malformed_and_silent_callers_do_not_stop_the_server(
    servers: Servers, workspace: Path
) -> None:
    """Garbage after the greeting, a cut frame, a caller that never speaks: the server drops
    them and serves the next call; while a silent caller holds it, calls run in their own
    process."""
    env = dict(os.environ)
    (workspace / "b.txt").write_bytes(b"one\n")
    hook(workspace, at(workspace, WARM_UP))
    server = servers.up(state_of(env))
    name = hook_relay.address(hook_relay.server_key())
    for garbage in (
        b"".join(hook_relay.frame(f) for f in (b"claude-code", b"/", b"not a umask", b"", b"{}")),
        hook_relay.frame(b"claude-code") + b"\xff\xff\xff\xff" + b"cut short",
        b"\x00\x00\x00\x05abc",
    ):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as raw:
            raw.settimeout(10)
            raw.connect(name)
            assert raw.recv(len(hook_relay.GREETING)) == hook_relay.GREETING
            raw.sendall(garbage)
    sed = bash("PreToolUse", "sed -i s/one/two/ b.txt", "t1")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as silent:
        silent.connect(name)
        done = hook(workspace, at(workspace, sed))
    assert (done.code, done.out) == (0, applied("b.txt", "one", "two"))
    assert answered_by(env, workspace, sed) == done.pid
    assert is_server(server)
    again = bash("PreToolUse", "sed -i s/two/three/ b.txt", "t2")
    assert hook(workspace, at(workspace, again)).out == applied("b.txt", "two", "three")
    assert answered_by(env, workspace, again) == server

"""A hook call acts once and in time, whoever runs it (issue 38): the host kills a hook at its
timeout and runs the tool itself, so nothing may act for that call afterwards; a hook server
killed after it began acting on a call must not have the call run again by its relay; and a
server whose package changed on disk, in any module, must not answer with old code.

Every call is a real ``waymark hook claude-code`` process; the host's timeout is the host
table's (doors/hosts.py); the history's lock is held by this test as another process would.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from helpers_hook_server import (
    Servers,
    at,
    bash,
    finish,
    hook,
    is_server,
    package_copy,
    pid_files,
    project,
    record_path,
    start_hook,
    state_of,
    wait_gone,
)
from waymark.doors.hooks.handlers import cut_answer
from waymark.doors.hosts import HOSTS, read_call
from waymark.store.history import workspace_dir

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(sys.platform != "linux", reason="the hook server needs abstract sockets"),
]

PROMPT = {"hook_event_name": "UserPromptSubmit", "prompt": "p1", "prompt_id": "p1"}
HOST_TIMEOUT_S = HOSTS["claude-code"].hook_seconds
LATE = (
    b"waymark hook: this hook call waited until close to the host's hook timeout (another "
    b"process kept the workspace's history or files locked); nothing was changed and the tool "
    b"runs untracked.\n"
)
STALE = b"waymark hook: the hook server is older than Waymark's files; running here\n"


def wait_for(done: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


@contextlib.contextmanager
def held(directory_or_file: Path) -> Iterator[None]:
    """Hold the flock a Waymark process takes on ``directory_or_file``, as another process."""
    fd = os.open(directory_or_file, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def history_lock(env: dict[str, str], ws: Path) -> Path:
    lock = workspace_dir(state_of(env) / "waymark", [ws]) / "lock"
    assert lock.is_file()
    return lock


def settled(env: dict[str, str], ws: Path, event: dict[str, object]) -> bool:
    """Whether the call's process recorded its answer (it is done with the call)."""
    try:
        return "answer" in json.loads(record_path(env, ws, event).read_bytes())
    except (OSError, ValueError):
        return False


def served(servers: Servers, tmp_path: Path) -> tuple[Path, dict[str, str], int]:
    """A project whose turn p1 is open (answered in the hook process, which starts the
    server), and the server then listening."""
    ws, env = project(tmp_path, "ws", {"f.txt": b"x\n"})
    hook(ws, at(ws, PROMPT), env)
    return ws, env, servers.up(state_of(env))


# -- never late -----------------------------------------------------------------------------


def test_a_call_whose_host_gave_up_never_acts_later(servers: Servers, tmp_path: Path) -> None:
    ws, env, server = served(servers, tmp_path)
    sed = bash("PreToolUse", "sed -i s/x/xx/ f.txt", "t1")
    with held(history_lock(env, ws)):
        relay = start_hook(ws, at(ws, sed), env)
        # The server has the call (its record is made before it waits for the history) ...
        wait_for(record_path(env, ws, sed).exists)
        # ... when the host's timeout kills the hook and the host runs the command itself.
        relay.kill()
        finish(relay)
        subprocess.run(["sed", "-i", "s/x/xx/", "f.txt"], cwd=ws, check=True, timeout=30)
    wait_for(lambda: settled(env, ws, sed))
    assert (ws / "f.txt").read_bytes() == b"xx\n"
    assert is_server(server)


@pytest.mark.parametrize("where", ["server", "hook process"])
def test_a_call_kept_waiting_declines_within_the_hosts_timeout(
    servers: Servers, tmp_path: Path, where: str
) -> None:
    ws, env, _ = served(servers, tmp_path)
    if where == "hook process":
        env = {**env, "WAYMARK_HOOK_SERVER": "off"}
    sed = bash("PreToolUse", "sed -i s/x/xx/ f.txt", "t1")
    with held(history_lock(env, ws)):
        # The host waits this long for the hook's answer (finish() raises past it).
        done = finish(start_hook(ws, at(ws, sed), env), timeout=HOST_TIMEOUT_S)
        assert (done.code, done.out, done.err) == (0, b"", LATE)
        # No answer: the host runs the command itself.
        subprocess.run(["sed", "-i", "s/x/xx/", "f.txt"], cwd=ws, check=True, timeout=30)
    assert settled(env, ws, sed)
    assert (ws / "f.txt").read_bytes() == b"xx\n"


# -- never twice ----------------------------------------------------------------------------


def test_a_call_the_server_began_is_not_run_again_after_it_died(
    servers: Servers, tmp_path: Path
) -> None:
    ws, env, server = served(servers, tmp_path)
    (ws / "f.txt").write_bytes(b"y\n")
    first = bash("PreToolUse", "sed -i s/y/y/ f.txt", "t0")
    hook(ws, at(ws, first), env)  # the session's read records are saved from now on
    [session] = (state_of(env) / "waymark").glob("*/cli-session.json")
    sed = bash("PreToolUse", "sed -i s/y/yy/ f.txt", "t1")
    # After its sed the server saves the session's records under this lock: it is held
    # there, between writing the file and answering, when it is killed.
    with held(session.parent):
        relay = start_hook(ws, at(ws, sed), env)
        wait_for(lambda: (ws / "f.txt").read_bytes() != b"y\n")
        os.kill(server, signal.SIGKILL)
        assert wait_gone(server)
    done = finish(relay)
    assert (ws / "f.txt").read_bytes() == b"yy\n"
    call = read_call(HOSTS["claude-code"], {"session_id": "s1", **at(ws, sed)})
    assert done.out.decode() == cut_answer(HOSTS["claude-code"], call)
    assert json.loads(done.out)["hookSpecificOutput"]["updatedInput"]["command"].startswith(
        "printf '%s' 'Waymark began applying this sed -i"
    )
    assert b"the process that began this call stopped before it answered" in done.err


# -- never old code -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "changed",
    [
        "engine/sed/apply.py",  # loaded by the first sed, after the server started
        "store/history/rewind.py",  # not loaded by the hooks at all
        "doors/lsp/demo.py",  # removed by an upgrade
    ],
)
def test_any_changed_file_of_the_package_stops_the_server(
    servers: Servers, workspace: Path, tmp_path: Path, changed: str
) -> None:
    lib, env = package_copy(tmp_path)
    (workspace / "b.txt").write_bytes(b"one\n")
    hook(workspace, at(workspace, PROMPT), env)
    server = servers.up(state_of(env))
    first = bash("PreToolUse", "sed -i s/one/two/ b.txt", "t1")
    assert b"Waymark applied this sed -i" in hook(workspace, at(workspace, first), env).out
    target = lib / "waymark" / changed
    if changed.endswith("demo.py"):
        target.unlink()
    else:
        os.utime(target, ns=(0, target.stat().st_mtime_ns + 1_000_000_000))
    again = bash("PreToolUse", "sed -i s/two/three/ b.txt", "t2")
    done = hook(workspace, at(workspace, again), env)
    assert b"Waymark applied this sed -i" in done.out
    assert done.err == STALE
    assert wait_gone(server)
    assert pid_files(state_of(env)) == []

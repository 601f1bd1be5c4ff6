"""A soak of the hook server (issue 38): rounds of one turn each, a simulated ``sed -i`` or a
tracked shell command, every hook call a real ``waymark hook claude-code`` process, and in most
rounds something going wrong at a random moment of the call: the host gives up on its hook
(kills it; it then runs nothing), the hook server is killed, another process keeps the history
locked for a while, or (the ``history_deleted`` case) the history is deleted meanwhile.

After each round: no call acted twice (the sed applied once when the host's answer says so or
the host ran it itself, at most once when the call was cut), none acted after its caller was
gone (nothing of the workspace or its history written after the hook was killed), rewinding
the round's turn undoes every change it recorded, with no conflict and no failure (a server
killed between a sed's write and its record included: the write is recorded ahead of it), and
no server the soak did not kill went away.
Bounded by :data:`ROUNDS` and :data:`BUDGET_S`; ``WAYMARK_SOAK_SEED`` replays a run.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from helpers_commands import cli
from helpers_hook_server import (
    Servers,
    at,
    bash,
    finish,
    hook,
    is_server,
    pid_files,
    project,
    start_hook,
    state_of,
    wait_gone,
)
from waymark.doors import hook_relay
from waymark.store.history import workspace_dir

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(600),
    pytest.mark.skipif(sys.platform != "linux", reason="the hook server needs abstract sockets"),
]

SEED = int(os.environ.get("WAYMARK_SOAK_SEED", "38"))
ROUNDS = 40
BUDGET_S = 90.0
# Checking that the caller is still there and the write after it are one short step apart:
# a write this soon after the hook was killed began before.
SLACK_S = 0.5
SED = "sed -i s/$/y/ s.txt"
SHELL = "printf z >> g.txt"
FILES = {"s.txt": b"x\n", "g.txt": b""}
CHAOS = ("none", "host gives up", "server killed", "history locked")
# The servers the soak killed: any other one that is gone died of what it was asked.
KILLED: set[int] = set()


@dataclass
class Outcome:
    # What the host read (None: it gave up on the hook and read nothing).
    answer: bytes | None
    # When the hook was gone (time.time()), if the host gave up on it.
    gone_at: float | None = None


def server_pid(state: Path) -> int | None:
    for path in pid_files(state):
        with contextlib.suppress(OSError, ValueError):
            pid = int(path.read_text())
            if is_server(pid):
                return pid
    return None


def idle(env: dict[str, str]) -> None:
    """Wait until the hook server (if one listens) is done with every call it took: it greets
    the next caller only then."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(30)
        try:
            sock.connect(hook_relay.address(server_key(env)))
            greeting = sock.recv(len(hook_relay.GREETING))
        except (ConnectionRefusedError, ConnectionResetError, FileNotFoundError):
            return  # none, or one that went away: checked after the round
        assert greeting == hook_relay.GREETING


def server_key(env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, "-c", "from waymark.doors import hook_relay as r; print(r.server_key())"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    return done.stdout.strip()


@contextlib.contextmanager
def locked_for(lock: Path, seconds: float) -> Any:
    """Another process's hold on the history's lock, released after ``seconds``."""
    fd = os.open(lock, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    timer = threading.Timer(seconds, os.close, (fd,))
    timer.start()
    try:
        yield
    finally:
        timer.join()


def call(
    rng: random.Random,
    ws: Path,
    env: dict[str, str],
    event: dict[str, Any],
    chaos: str,
) -> Outcome:
    state = state_of(env)
    history = workspace_dir(state / "waymark", [ws])
    at_random = rng.uniform(0.0, 0.15)
    if chaos == "history locked" and (history / "lock").is_file():
        with locked_for(history / "lock", rng.uniform(0.0, 0.6)):
            proc = start_hook(ws, at(ws, event), env)
        return Outcome(finish(proc).out)
    proc = start_hook(ws, at(ws, event), env)
    if chaos == "host gives up":
        time.sleep(at_random)
        proc.kill()
        finish(proc)  # reaped: its end of the socket is closed
        return Outcome(None, time.time())
    if chaos == "server killed":
        pid = server_pid(state)
        time.sleep(at_random)
        if pid is not None:
            KILLED.add(pid)
            os.kill(pid, signal.SIGKILL)
            wait_gone(pid)
    elif chaos == "history deleted":
        time.sleep(at_random)
        subprocess.run(
            [sys.executable, "-m", "waymark", "history", "delete", "--json"],
            cwd=ws,
            env=env,
            capture_output=True,
            timeout=60,
        )
    return Outcome(finish(proc).out)


def written_since(paths: list[Path], moment: float) -> list[str]:
    late = []
    for path in paths:
        with contextlib.suppress(FileNotFoundError):
            if path.stat().st_mtime > moment + SLACK_S:
                late.append(path.name)
    return late


def ys(ws: Path) -> int:
    return (ws / "s.txt").read_bytes().count(b"y")


def sed_round(
    rng: random.Random, ws: Path, env: dict[str, str], n: int, chaos: str
) -> tuple[int, set[int], bytes]:
    """The sed's applications this round, the counts allowed, and s.txt as the rewind must
    leave it."""
    before, start = (ws / "s.txt").read_bytes(), ys(ws)
    out = call(rng, ws, env, bash("PreToolUse", SED, f"c{n}"), chaos)
    allowed = {0, 1}
    rewound = before
    if out.answer is not None:
        said = json.loads(out.answer or b"{}").get("hookSpecificOutput", {})
        command = said.get("updatedInput", {}).get("command", "")
        if command.startswith("printf '%s' 'Waymark applied"):
            allowed = {1}
        elif not said:
            # No answer: the host runs the command itself, untracked.
            subprocess.run(["sh", "-c", SED], cwd=ws, check=True, timeout=30)
            allowed, rewound = {1}, before.replace(b"\n", b"y\n")
    idle(env)
    check_not_late(ws, env, out)
    return ys(ws) - start, allowed, rewound


def shell_round(
    rng: random.Random, ws: Path, env: dict[str, str], n: int, chaos: str
) -> tuple[bytes, set[bytes]]:
    """g.txt after the round and what the rewind may leave (only what it did not record)."""
    before = (ws / "g.txt").read_bytes()
    out = call(rng, ws, env, bash("PreToolUse", SHELL, f"c{n}"), chaos)
    rewound = {before}
    if out.answer is not None:
        subprocess.run(["sh", "-c", SHELL], cwd=ws, check=True, timeout=30)
        post = hook(ws, at(ws, bash("PostToolUse", SHELL, f"c{n}")), env)
        if b"g.txt" not in post.out:
            rewound.add(before + b"z")  # the change was not recorded: it stays
    idle(env)
    check_not_late(ws, env, out)
    return (ws / "g.txt").read_bytes(), rewound


def check_not_late(ws: Path, env: dict[str, str], out: Outcome) -> None:
    if out.gone_at is None:
        return
    history = workspace_dir(state_of(env) / "waymark", [ws])
    paths = [ws / "s.txt", ws / "g.txt", history / "journal.jsonl"]
    assert written_since(paths, out.gone_at) == []


@pytest.mark.parametrize(
    "history_deleted",
    [
        False,
        True,
    ],
)
def test_hook_calls_act_once_in_time_and_rewind_whatever_goes_wrong(
    servers: Servers, tmp_path: Path, history_deleted: bool
) -> None:
    rng = random.Random(SEED)
    KILLED.clear()
    servers_seen: set[int] = set()
    ws, env = project(tmp_path, "ws", FILES)
    chaos_kinds = (*CHAOS, "history deleted") if history_deleted else CHAOS
    seen: dict[str, int] = dict.fromkeys(chaos_kinds, 0)
    ends = time.monotonic() + BUDGET_S
    for n in range(ROUNDS):
        if time.monotonic() > ends:
            break
        prompt = {"hook_event_name": "UserPromptSubmit", "prompt": f"p{n}", "prompt_id": f"p{n}"}
        hook(ws, at(ws, prompt), env)
        chaos = rng.choice(chaos_kinds)
        seen[chaos] += 1
        where = f"round {n} ({chaos}, seed {SEED})"
        if rng.random() < 0.5:
            applied, allowed, sed_rewound = sed_round(rng, ws, env, n, chaos)
            assert applied in allowed, where
            shell_rewound = {(ws / "g.txt").read_bytes()}
        else:
            _, shell_rewound = shell_round(rng, ws, env, n, chaos)
            sed_rewound = (ws / "s.txt").read_bytes()
        servers_seen.add(server_pid(state_of(env)) or 0)
        assert [p for p in servers_seen - KILLED - {0} if not is_server(p)] == [], where
        rewind = cli(ws, "rewind", f"p{n}", env=env)
        if history_deleted and rewind.get("error") == "unknown_prompt":
            continue  # the turn went with the history
        assert rewind["ok"] and rewind["conflicts"] == rewind["failed"] == [], (where, rewind)
        assert (ws / "s.txt").read_bytes() == sed_rewound, where
        assert (ws / "g.txt").read_bytes() in shell_rewound, where
    assert all(seen.values()), seen

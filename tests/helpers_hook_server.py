"""Resident hook servers a test started (tests/conftest.py keeps them off unless a test opts
in): found by the pid file in the test's state directory, stopped by that pid; and hook calls
made as Claude Code makes them, each a real ``waymark hook claude-code`` process (the console
script next to this interpreter, what ``waymark init`` writes) with the host's JSON on stdin."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from waymark.store.history import workspace_dir

SERVER_MODULE = "waymark.doors.hooks.server"
WAYMARK = str(Path(sys.executable).parent / "waymark")
PACKAGE = Path(__file__).resolve().parents[1] / "language_server" / "waymark"


def pid_files(state: Path) -> list[Path]:
    return sorted((state / "waymark").glob("hook-server-*.pid"))


def wait_server(state: Path, timeout: float = 10.0) -> int:
    """The pid of the hook server of ``state`` once it listens (it writes its pid file then)."""
    deadline = time.monotonic() + timeout
    while True:
        for path in pid_files(state):
            try:
                return int(path.read_text())
            except (OSError, ValueError):
                pass  # caught between its creation and its write
        if time.monotonic() > deadline:
            raise AssertionError(f"no hook server wrote its pid under {state}")
        time.sleep(0.05)


def is_server(pid: int) -> bool:
    """Whether ``pid`` is a running hook server: not gone, not a zombie, not a reused pid."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z" and SERVER_MODULE.encode() in cmdline


def wait_gone(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while is_server(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def stop_servers(state: Path) -> None:
    """Kill every hook server of ``state`` still running (a frozen one too)."""
    for path in pid_files(state):
        try:
            pid = int(path.read_text())
        except (OSError, ValueError):
            continue
        if is_server(pid):
            os.kill(pid, signal.SIGKILL)
            wait_gone(pid)


def call_records(state: Path) -> list[dict[str, Any]]:
    """Every hook call's once-per-call record (store/once.py) under ``state``: its ``pid`` is
    the process that acted on the call."""
    paths = (state / "waymark").glob("ws-*/hook-calls/*.call.json")
    return [json.loads(path.read_bytes()) for path in sorted(paths)]


@dataclass(frozen=True)
class Done:
    pid: int
    code: int
    out: bytes
    err: bytes


class Servers:
    """The hook servers of the state directories a test uses, killed when it ends."""

    def __init__(self) -> None:
        self.states: list[Path] = []

    def up(self, state: Path) -> int:
        self.states.append(state)
        pid = wait_server(state)
        assert is_server(pid)
        return pid


def state_of(env: dict[str, str]) -> Path:
    return Path(env["XDG_STATE_HOME"])


def package_copy(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A copy of the package, and the environment whose hook calls (and the server they
    start) run it: a test changes the copy's files, never the source tree's."""
    lib = tmp_path / "lib"
    shutil.copytree(PACKAGE, lib / "waymark", ignore=shutil.ignore_patterns("__pycache__"))
    return lib, {**os.environ, "PYTHONPATH": str(lib)}


def start_hook(
    cwd: Path,
    event: dict[str, Any],
    env: dict[str, str] | None = None,
    *,
    host: str = "claude-code",
    umask: int | None = None,
) -> subprocess.Popen[bytes]:
    """A hook process the host has started and sent its call to (the caller ends it)."""
    proc = subprocess.Popen(
        [WAYMARK, "hook", host],
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=None if umask is None else (lambda: os.umask(umask)),
    )
    assert proc.stdin is not None
    proc.stdin.write(json.dumps({"session_id": "s1", **event}).encode())
    proc.stdin.close()
    return proc


def finish(proc: subprocess.Popen[bytes], timeout: float = 60) -> Done:
    """What the hook process answered within ``timeout`` seconds (it is killed then)."""
    try:
        assert proc.stdout is not None and proc.stderr is not None
        # communicate() would flush the closed stdin.
        proc.wait(timeout)
        out, err = proc.stdout.read(), proc.stderr.read()
    finally:
        proc.kill()
        proc.wait()
    assert b"Traceback" not in err, err.decode()
    return Done(proc.pid, proc.returncode, out, err)


def hook(
    cwd: Path,
    event: dict[str, Any],
    env: dict[str, str] | None = None,
    *,
    host: str = "claude-code",
    umask: int | None = None,
) -> Done:
    return finish(start_hook(cwd, event, env, host=host, umask=umask))


def at(ws: Path, event: dict[str, Any]) -> dict[str, Any]:
    return {"cwd": str(ws), **event}


def bash(name: str, command: str, call: str) -> dict[str, Any]:
    return {
        "hook_event_name": name,
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": call,
    }


def applied(name: str, old: str, new: str) -> bytes:
    """What Claude Code reads on stdout when the hook applied ``sed -i s/old/new/ name`` to
    a one-line file."""
    said = (
        "Waymark applied this sed -i as a tracked edit (waymark_rewind undoes it). The file "
        f"changed like this:\n--- a/{name}\n+++ b/{name}\n@@ -1 +1 @@\n-{old}\n+{new}\n"
    )
    answer = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "updatedInput": {"command": f"printf '%s' '{said}'"},
        }
    }
    return json.dumps(answer).encode()


def record_path(env: dict[str, str], ws: Path, event: dict[str, Any]) -> Path:
    """Where the once-per-call record of the call ``event`` in ``ws`` is kept."""
    named = event.get("prompt_id") or event["tool_use_id"]
    key = json.dumps(["claude-code", "s1", event["hook_event_name"], named])
    name = hashlib.sha256(key.encode()).hexdigest()[:32] + ".call.json"
    return workspace_dir(state_of(env) / "waymark", [ws]) / "hook-calls" / name


def answered_by(env: dict[str, str], ws: Path, event: dict[str, Any]) -> int:
    """The pid of the process that acted on the call ``event`` in ``ws``."""
    pid: int = json.loads(record_path(env, ws, event).read_bytes())["pid"]
    return pid


def project(tmp_path: Path, name: str, files: dict[str, bytes]) -> tuple[Path, dict[str, str]]:
    """A git workspace, and the environment Claude Code runs its hooks with there."""
    ws = tmp_path / name
    ws.mkdir()
    for file, data in files.items():
        (ws / file).write_bytes(data)
    subprocess.run(["git", "init", "-q", str(ws)], check=True, timeout=30)
    return ws, {**os.environ, "CLAUDE_PROJECT_DIR": str(ws)}

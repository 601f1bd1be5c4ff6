"""Resident hook servers a test started (tests/conftest.py keeps them off unless a test opts
in): found by the pid file in the test's state directory, stopped by that pid."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

SERVER_MODULE = "waymark.doors.hooks.server"


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

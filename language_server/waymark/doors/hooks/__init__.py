"""``waymark hook <host>``: the host's hook JSON on stdin, Waymark's answer on stdout.

A hook must never break the host: whatever goes wrong inside, the tool runs as it would
have without Waymark, and the reason goes to stderr. It acts only in a folder it can trust
(:mod:`.trust`), once per tool call however often the host delivers it
(:func:`.handlers.handle_once`), and never late: it waits on no lock past
:data:`WAIT_SHARE` of the host's hook timeout and writes nothing once its caller is gone
(:mod:`waymark.store.callbound`). Calls of tools Waymark does not track, and calls in an
untrusted folder, are answered before anything heavy is imported.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from waymark.doors.hooks.trust import UntrustedWorkspace, trusted_root
from waymark.doors.hosts import HOSTS, POST_TOOL, POST_TOOL_FAILURE, PRE_TOOL, read_call
from waymark.store import callbound

# What share of the host's hook timeout a call may spend waiting: the rest is for acting on
# what it waited for, and answering, before the host gives up on it.
WAIT_SHARE = 0.7


def run(
    host_name: str,
    stdin: bytes,
    stdout: TextIO,
    stderr: TextIO,
    *,
    started: float | None = None,
    caller_gone: Callable[[], bool] = lambda: False,
) -> int:
    """Answer one hook call (the host's JSON ``stdin``); always exit 0 so the host carries on.

    ``started`` is when the hook process began (``time.monotonic()``); ``caller_gone`` says
    whether it stopped waiting (a resident server's caller may be killed by the host).
    """
    start = time.monotonic() if started is None else started
    host = HOSTS.get(host_name)
    seconds = None if host is None else host.hook_seconds
    if seconds is None:
        return _run(host_name, stdin, stdout, stderr)
    with callbound.bounded(start + seconds * WAIT_SHARE, caller_gone):
        return _run(host_name, stdin, stdout, stderr)


def _run(host_name: str, stdin: bytes, stdout: TextIO, stderr: TextIO) -> int:
    try:
        host = HOSTS[host_name]
        foreign = next((v for v in host.foreign_env if os.environ.get(v)), None)
        if foreign is not None:
            print(
                f"waymark hook {host_name}: {host.foreign_env[foreign]} runs this hook "
                f"({foreign} is set) and tracks its tools with its own Waymark hook "
                f"(waymark init {host.foreign_env[foreign]}); this one steps aside.",
                file=stderr,
            )
            return 0
        event: dict[str, Any] = json.loads(stdin)
        if not isinstance(event, dict):
            raise ValueError("the hook input is not a JSON object")
        call = read_call(host, event)
        if call.event is None:
            return 0
        tracked = call.tool in host.shell or call.tool in host.editors
        # Where a session's first tool call opens its turn, that may be any tool (an MCP
        # edit of Waymark's included).
        opens_turn = host.session_turns and call.event == PRE_TOOL
        if call.event in (PRE_TOOL, POST_TOOL, POST_TOOL_FAILURE) and not (tracked or opens_turn):
            return 0
        try:
            root = trusted_root(host, call.cwd or os.getcwd())
        except UntrustedWorkspace as exc:
            print(f"waymark hook: not tracking: {exc}; the tool runs untracked.", file=stderr)
            return 0
        from waymark.doors.hooks.handlers import handle_once

        answer = handle_once(host, call, root)
    except callbound.CallOver as exc:
        print(f"waymark hook: {exc}", file=stderr)
        return 0
    except Exception as exc:
        print(f"waymark hook: skipped ({type(exc).__name__}: {exc})", file=stderr)
        return 0
    stdout.write(answer)
    return 0


def main(host_name: str, stdin: bytes | None = None, started: float | None = None) -> int:
    data = sys.stdin.buffer.read() if stdin is None else stdin
    return run(host_name, data, sys.stdout, sys.stderr, started=started)

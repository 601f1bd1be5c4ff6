"""The ``waymark`` command's entry.

A host runs ``waymark hook <host>`` around every tool call, so that call goes first to the
resident hook server (:mod:`waymark.doors.hook_relay`), then straight to the hooks: the CLI's
parser of every verb and the command spec behind it are imported only for the other verbs
(issue 33's budget: a hook at interpreter speed).
"""

from __future__ import annotations

import sys
import time


def main(argv: list[str] | None = None) -> None:
    # The host's timeout runs from the hook's start: the call's waits are bounded from here.
    started = time.monotonic()
    words = sys.argv[1:] if argv is None else argv
    # A person at a terminal typing ``waymark hook …`` gets the CLI (its help, its errors).
    if len(words) == 2 and words[0] == "hook" and not sys.stdin.isatty():
        from waymark.doors import hook_relay

        # The server declines a host it does not know; the CLI words that error.
        stdin = sys.stdin.buffer.read()
        code = hook_relay.relay(words[1], stdin, started)
        if code is not None:
            raise SystemExit(code)
        from waymark.doors.hosts import HOOK_HOSTS

        if words[1] in HOOK_HOSTS:
            from waymark.doors.hooks import main as hook

            raise SystemExit(hook(words[1], stdin, started))
    from waymark.doors import quiet_start

    collecting = quiet_start.pause()
    from waymark.doors.cli import main as cli

    quiet_start.resume(collecting)
    cli(argv)

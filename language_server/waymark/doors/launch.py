"""The ``waymark`` command's entry.

A host runs ``waymark hook <host>`` around every tool call, so that call goes straight to the
hooks: the CLI's parser of every verb and the command spec behind it are imported only for
the other verbs (issue 33's budget: a hook at interpreter speed).
"""

from __future__ import annotations

import sys

from waymark.doors.hosts import HOOK_HOSTS


def main(argv: list[str] | None = None) -> None:
    words = sys.argv[1:] if argv is None else argv
    if len(words) == 2 and words[0] == "hook" and words[1] in HOOK_HOSTS:
        from waymark.doors.hooks import main as hook

        raise SystemExit(hook(words[1]))
    from waymark.doors.cli import main as cli

    cli(argv)

"""``waymark acp -- AGENT_COMMAND [ARG…]``: Waymark between an ACP editor and its agent.

An editor speaking the Agent Client Protocol (Zed, JetBrains, Neovim, Emacs) starts this
instead of the agent; it starts the agent and passes every message on, adding Waymark's MCP
server to each session, a turn to each prompt (every file the agent changes in it, through
the editor or on disk, rewinds byte for byte) and two slash commands of its own, ``/turns``
and ``/rewind`` (docs/editors.md).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any


def add_parser(sub: Any) -> None:
    """Add the ``acp`` verb to the CLI's subparsers."""
    parser = sub.add_parser(
        "acp", help="sit between an ACP editor and an agent: turns, rewind, Waymark's tools"
    )
    parser.add_argument("argv", nargs=argparse.REMAINDER, help="-- AGENT_COMMAND [ARG…]")


def main(args: argparse.Namespace) -> int:
    argv = args.argv[1:] if args.argv[:1] == ["--"] else args.argv
    if not argv:
        print(
            "waymark acp: give the agent's command after --, e.g. waymark acp -- gemini --acp",
            file=sys.stderr,
        )
        return 2
    from waymark.doors.acp.proxy import serve

    return asyncio.run(serve(argv))

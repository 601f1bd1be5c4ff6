"""``waymark run -- COMMAND…``: run any command with its file changes tracked for rewind.

For hosts without hooks and for people in a terminal. The run opens a turn of its own
(``--prompt-id`` names it, or joins that turn when it is already the newest), scans before,
runs the command with the terminal's stdin/stdout/stderr, scans after, records the changes
and says on stderr what it tracked and how to undo it. A command that would delete or
overwrite files outside the workspace, or destroy files Waymark cannot back up, is not run
(exit status 126, one sentence on stderr) unless ``--allow-outside`` / ``--allow-unsaved``.
A turn it opened that ends with no change is dropped again: nothing to undo, nothing to
list. The exit status is the command's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

from waymark.commands.registry import execute
from waymark.commands.tracking import (
    after_shell,
    before_shell,
    drop_unchanged_turn,
    opened_turn,
    outside_refusal,
    unsaved_notice,
)
from waymark.doors import cli_args
from waymark.doors.entry import open_door
from waymark.engine.text import one_line

# The exit status of a command Waymark refused to run (the shell's "cannot execute").
REFUSED = 126


def add_parser(sub: Any) -> None:
    """Add the ``run`` verb to the CLI's subparsers."""
    parser = sub.add_parser("run", help="run a command and track its file changes for rewind")
    parser.add_argument(
        "--root", default=".", type=cli_args.folder, help="workspace folder (default: .)"
    )
    parser.add_argument("--history-dir", type=cli_args.history_dir, help="where history lives")
    parser.add_argument(
        "--session", type=cli_args.session, help="session id the changes are written for"
    )
    parser.add_argument(
        "--prompt-id", type=cli_args.text, help="turn to record into (default: a new one)"
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON (stderr)")
    parser.add_argument(
        "--allow-outside",
        action="append",
        default=[],
        metavar="FOLDER",
        type=cli_args.folder,
        help="let the command delete or overwrite files in FOLDER, outside the workspace",
    )
    parser.add_argument(
        "--allow-unsaved",
        action="store_true",
        help="run even if the command may destroy files Waymark cannot back up",
    )
    parser.add_argument("argv", nargs=argparse.REMAINDER, help="-- COMMAND [ARG…]")


def main(args: argparse.Namespace) -> int:
    argv = args.argv[1:] if args.argv[:1] == ["--"] else args.argv
    if not argv:
        print("waymark run: give the command after --, e.g. waymark run -- make", file=sys.stderr)
        return 2
    door = open_door(
        args.root,
        session=args.session or os.environ.get("WAYMARK_SESSION"),
        history_dir=Path(args.history_dir) if args.history_dir else None,
    )
    try:
        refusal = outside_refusal(
            door.ctx,
            shlex.join(argv),
            Path.cwd(),
            args.allow_outside,
            allow_with="with --allow-outside FOLDER",
        )
        if refusal is not None:
            print(f"waymark run: {refusal}", file=sys.stderr)
            return REFUSED
        # A blank --prompt-id is refused by the snapshot, not replaced by a fresh id.
        prompt_id = f"run-{uuid.uuid4().hex[:12]}" if args.prompt_id is None else args.prompt_id
        # One line however the command was written: a multi-line script must not break the
        # turns table or `waymark history show`.
        label = one_line(" ".join(argv))
        new_turn = opened_turn(door.ctx, prompt_id)
        opened = asyncio.run(
            execute(door.ctx, "waymark.snapshot", {"promptId": prompt_id, "label": label})
        )
        if not opened["ok"]:
            message = cli_args.in_cli_terms(opened["message"], {"promptId": "--prompt-id"})
            print(f"waymark run: {message}", file=sys.stderr)
            return 1
        name = f"run-{uuid.uuid4().hex}"
        # Quoted as typed, so the words (and an ``sh -c`` script) are the ones it runs.
        at_risk = before_shell(door.ctx, name, shlex.join(argv), Path.cwd())
        if at_risk is not None and not args.allow_unsaved:
            after_shell(door.ctx, name)
            if new_turn:
                drop_unchanged_turn(door.ctx, prompt_id)
            notice = unsaved_notice(at_risk, retry=False, flag="--allow-unsaved")
            print(f"waymark run: {notice}", file=sys.stderr)
            return REFUSED
        try:
            status = subprocess.call(argv)
        except OSError as exc:
            print(f"waymark run: cannot run {argv[0]}: {exc.strerror}", file=sys.stderr)
            status = 127
        report = after_shell(door.ctx, name)
        recorded = not (new_turn and drop_unchanged_turn(door.ctx, prompt_id))
    finally:
        door.close()
    assert report is not None
    if args.json:
        shown = prompt_id if recorded else None
        print(json.dumps({"promptId": shown, **report.to_json()}), file=sys.stderr)
    else:
        from waymark.commands.shellreport import shell_notice

        print(f"waymark: {shell_notice(report)}", file=sys.stderr)
        for warning in report.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        if recorded:
            print(f"waymark: undo with: waymark rewind {prompt_id}", file=sys.stderr)
        else:
            print("waymark: nothing to undo; no turn was recorded.", file=sys.stderr)
    return status

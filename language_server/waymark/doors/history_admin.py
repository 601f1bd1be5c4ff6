"""``waymark history show|prune|delete|blob``: look after a workspace's history from a terminal.

Works on the same per-workspace history every door uses (see docs/history.md); it opens it
through the doors' one entry, without a session, like the rest of the CLI.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from waymark.commands.context import default_history_dir
from waymark.doors import cli_args
from waymark.doors.entry import open_door
from waymark.engine.text import one_line
from waymark.store.history import DEFAULT_MAX_BYTES, delete_history, workspace_dir
from waymark.store.history.store import DEFAULT_MAX_SNAPSHOTS

_EMPTY = {"trackedFiles": 0, "blobBytes": 0, "journalBytes": 0, "maxHistoryBytes": 0}


def add_parser(sub: Any) -> None:
    """Add the ``history`` verb to the CLI's subparsers."""
    parser = sub.add_parser(
        "history", help="show, prune or delete this workspace's history, or get a backup back"
    )
    parser.add_argument(
        "action",
        choices=("show", "prune", "delete", "blob"),
        help="show the turns and disk use, prune old turns, delete the whole history, or write "
        "the backup named --digest to stdout",
    )
    parser.add_argument(
        "--root", default=".", type=cli_args.folder, help="workspace folder (default: .)"
    )
    parser.add_argument("--history-dir", type=cli_args.history_dir, help="where history lives")
    parser.add_argument(
        "--keep", type=cli_args.whole_number(1), help="prune: keep only the newest N turns"
    )
    parser.add_argument(
        "--max-history-bytes",
        type=cli_args.whole_number(1),
        default=DEFAULT_MAX_BYTES,
        help="disk budget",
    )
    parser.add_argument(
        "--digest", type=_digest, help="blob: the backup's digest (a journal entry's digest)"
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def _digest(value: str) -> str:
    if len(value) != 32 or any(c not in "0123456789abcdef" for c in value):
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a backup's digest: give the 32 lowercase hex digits of a "
            "journal entry's digest"
        )
    return value


def main(args: argparse.Namespace) -> int:
    root = Path(os.path.realpath(args.root))
    history_dir = Path(args.history_dir) if args.history_dir else default_history_dir()
    directory = workspace_dir(history_dir, [root])
    if args.action == "delete":
        existed = directory.is_dir()
        if existed and not delete_history(directory):
            return _print(args, {"ok": False, "message": f"could not delete {directory}."})
        return _print(args, {"ok": True, "deleted": existed, "directory": str(directory)})
    if args.action == "blob" and args.digest is None:
        return _print(args, {"ok": False, "message": "history blob needs --digest DIGEST."})
    if not directory.is_dir():
        if args.action == "blob":
            return _print(args, _no_blob(args.digest, "backup_missing", directory))
        return _print(args, {"ok": True, "directory": str(directory), "turns": [], **_EMPTY})
    door = open_door(root, history_dir=history_dir, max_history_bytes=args.max_history_bytes)
    history = door.ctx.history
    assert history is not None  # doors open with checkpointing on
    out: dict[str, Any] = {"ok": True}
    if args.action == "blob":
        fetched = history.backup(args.digest)
        door.close()
        if not isinstance(fetched, bytes):
            return _print(args, _no_blob(args.digest, fetched.reason, directory))
        sys.stdout.buffer.write(fetched)
        return 0
    if args.action == "prune":
        out["dropped"] = history.prune(args.keep or DEFAULT_MAX_SNAPSHOTS)
    usage = history.usage()
    out.update(
        directory=str(usage.directory),
        turns=[
            {"promptId": t.prompt_id, "label": t.label, "timestamp": t.timestamp}
            for t in history.turns()
        ],
        trackedFiles=usage.tracked_files,
        blobBytes=usage.blob_bytes,
        journalBytes=usage.journal_bytes,
        maxHistoryBytes=usage.max_bytes,
    )
    door.close()
    return _print(args, out)


def _no_blob(digest: str, reason: str, directory: Path) -> dict[str, Any]:
    why = {
        "backup_missing": "is not stored there",
        "backup_corrupt": "is stored there damaged (its bytes no longer hash to its name)",
    }.get(reason, "cannot be read there")
    return {
        "ok": False,
        "reason": reason,
        "message": f"the backup {digest} {why} ({directory}); the digests of the backups "
        "kept are the entries' digest fields in its journal.jsonl.",
    }


def _print(args: argparse.Namespace, out: dict[str, Any]) -> int:
    if args.json:
        print(json.dumps(out, indent=2, ensure_ascii=False))
    elif not out["ok"]:
        print(f"error: {out['message']}", file=sys.stderr)
    elif "deleted" in out:
        print(("deleted " if out["deleted"] else "no history at ") + out["directory"])
    else:
        for turn in out["turns"]:
            # One line per turn whatever a label holds (an old journal may hold several lines).
            label = one_line(turn["label"] or "")
            print(f"{turn['timestamp']}  {turn['promptId']}  {label}".rstrip())
        used = out["blobBytes"] + out["journalBytes"]
        if not out["turns"] and not out["trackedFiles"]:
            print(f"no history at {out['directory']}")
            return 0
        print(
            f"{len(out['turns'])} turns, {out['trackedFiles']} files tracked, "
            f"{_size(used)} of {_size(out['maxHistoryBytes'])} used in {out['directory']}"
        )
        if out.get("dropped"):
            print(f"pruned {len(out['dropped'])} turns")
    return 0 if out["ok"] else 1


def _size(count: int) -> str:
    value = float(count)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{count} B"

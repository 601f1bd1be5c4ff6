"""``waymark``: the command handlers from a terminal, for agents and scripts.

One-shot commands build a context for ``--root`` (default: the current directory), run the
same handler the server runs and print the result. ``--session`` names the session; its read
records persist next to its history, so ``waymark read`` then ``waymark replace`` works
across invocations. pygls is imported only by ``serve`` and ``demo``.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from . import history_admin
from .bridge.client import execute_via_editor_or_local
from .commands.context import CommandContext, default_history_dir, load_options
from .files import atomic_write, create_parents, sweep_temp_files
from .session import Session

# CLI verb → (server command, how positional arguments map to params).
VERBS: dict[str, tuple[str, list[str]]] = {
    "read": ("waymark.read", ["path"]),
    "edit": ("waymark.edit", ["path"]),
    "replace": ("waymark.replace", ["path", "old_string", "new_string"]),
    "multi-replace": ("waymark.multiReplace", ["path"]),
    "write": ("waymark.write", ["path"]),
    "sed": ("waymark.sed", ["command"]),
    "snapshot": ("waymark.snapshot", ["promptId"]),
    "turns": ("waymark.turns", []),
    "diff-stats": ("waymark.diffStats", ["promptId"]),
    "rewind": ("waymark.rewind", ["promptId"]),
    "describe-tools": ("waymark.describeTools", []),
}

# Flags that fill one param each; anything else goes through --params JSON.
FLAGS: dict[str, tuple[str, Any]] = {
    "--hashes": ("hashes", bool),
    "--offset": ("offset", int),
    "--limit": ("limit", int),
    "--ops": ("operations", json.loads),
    "--edits": ("edits", json.loads),
    "--count": ("expected_replacements", int),
    "--content": ("content", str),
    "--cwd": ("cwd", str),
    "--label": ("label", str),
    "--option": ("option", str),
    "--force": ("force", bool),
    "--preview": ("preview", bool),
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="waymark", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="verb", required=True)
    serve = sub.add_parser("serve", help="run the language server on stdio")
    serve.add_argument("--tcp", metavar="HOST:PORT")
    demo = sub.add_parser("demo", help="a real LSP session against a throwaway workspace")
    demo.add_argument("--keep", action="store_true", help="keep the demo workspace")
    history_admin.add_parser(sub)
    for verb, (command, positionals) in VERBS.items():
        p = sub.add_parser(verb, help=f"run {command}")
        for name in positionals:
            # Optional so that --params can carry them; the handler names what is missing.
            p.add_argument(name, nargs="?")
        for flag, (_, kind) in FLAGS.items():
            if kind is bool:
                p.add_argument(flag, action="store_true", default=None)
            else:
                p.add_argument(flag)
        p.add_argument("--content-file", help="read content from a file (- for stdin)")
        p.add_argument("--params", help="a JSON object of params (- for stdin)")
        p.add_argument("--json", action="store_true", help="print the whole result as JSON")
        p.add_argument("--root", default=".", help="workspace folder (default: .)")
        p.add_argument("--session", help="session id (default: one per --root)")
        p.add_argument("--history-dir", help="where history lives")
        p.add_argument("--no-history", action="store_true", help="turn checkpointing off")
        p.add_argument(
            "--max-history-bytes", type=int, help="disk budget of the workspace's history"
        )
    return parser


def _params(args: argparse.Namespace, positionals: list[str]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    if args.params:
        raw = sys.stdin.read() if args.params == "-" else args.params
        loaded = json.loads(raw)
        if not isinstance(loaded, dict):
            raise SystemExit("waymark: --params must be a JSON object")
        params.update(loaded)
    for name in positionals:
        value = getattr(args, name)
        if value is not None:
            params[name] = value
    for flag, (name, kind) in FLAGS.items():
        value = getattr(args, flag.lstrip("-").replace("-", "_"))
        if value is not None:
            params[name] = value if kind in (bool, str) else kind(value)
    if args.content_file == "-":
        params["content"] = sys.stdin.read()
    elif args.content_file:
        params["content"] = Path(args.content_file).read_text(encoding="utf-8")
    return params


def _session_file(history_dir: Path, session_id: str) -> Path:
    return history_dir / session_id / "cli-session.json"


def _default_session(root: Path) -> str:
    return "cli-" + hashlib.sha256(str(root).encode()).hexdigest()[:12]


async def _run(args: argparse.Namespace) -> dict[str, Any]:
    command, positionals = VERBS[args.verb]
    root = Path(os.path.realpath(args.root))
    named = args.session or os.environ.get("WAYMARK_SESSION")
    session_id = named or _default_session(root)
    history_dir = Path(args.history_dir) if args.history_dir else default_history_dir()
    raw: dict[str, Any] = {
        "sessionId": session_id,
        "historyDir": str(history_dir),
        "checkpointing": not args.no_history,
    }
    if args.max_history_bytes is not None:
        raw["maxHistoryBytes"] = args.max_history_bytes
    options, warnings = load_options(raw)
    # Typed in a terminal without a session, the CLI acts for the workspace as a whole: its
    # rewinds may undo any session's writes (they are still refused over external changes).
    ctx = CommandContext.create([root], options, tag_writes=named is not None)
    # Our own file, not the workspace's: a symlinked home is fine, resolve it once.
    state = Path(os.path.realpath(_session_file(history_dir, session_id)))
    if state.exists():
        ctx.session = Session.from_json(session_id, state.read_text(encoding="utf-8"))
    params = _params(args, positionals)
    if args.verb in ("edit", "replace", "multi-replace", "write", "sed", "rewind"):
        sweep_temp_files(root, recursive=False)
    # An editor running Waymark on this workspace reviews the change (docs/editor-bridge.md).
    result = await execute_via_editor_or_local(ctx, command, params, origin="waymark CLI")
    create_parents(state)
    # It lists absolute paths the session read: only its owner may see them.
    atomic_write(state, ctx.session.to_json().encode("utf-8"), mode=0o600)
    if warnings or ctx.warnings:
        result.setdefault("warnings", []).extend(warnings + ctx.warnings)
    return result


def _print_human(verb: str, result: dict[str, Any]) -> None:
    if not result.get("ok"):
        print(f"error: {result['error']}: {result['message']}", file=sys.stderr)
        return
    if verb == "read":
        sys.stdout.write(result["text"])
    elif verb == "sed" and not result.get("simulated"):
        print(f"not simulated: {result['reason']}")
    elif "unifiedDiff" in result or isinstance(result.get("diff"), str):
        sys.stdout.write(result.get("unifiedDiff", result.get("diff")) or "(no change)\n")
    else:
        print(json.dumps({k: v for k, v in result.items() if k != "ok"}, indent=2))
    for warning in result.get("warnings", []):
        print(f"warning: {warning}", file=sys.stderr)


def main(argv: list[str] | None = None) -> None:
    args = _parser().parse_args(argv)
    if args.verb == "serve":
        from .server import main as serve

        serve(["--tcp", args.tcp] if args.tcp else [])
        return
    if args.verb == "demo":
        from .demo import main as demo

        raise SystemExit(demo(keep=args.keep))
    if args.verb == "history":
        raise SystemExit(history_admin.main(args))
    result = asyncio.run(_run(args))
    # describe-tools exists for programs (the VS Code manifest sync): always the whole object.
    if args.json or args.verb == "describe-tools":
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        _print_human(args.verb, result)
    raise SystemExit(0 if result.get("ok") else 1)

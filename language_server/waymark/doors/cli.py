"""``waymark``: the command handlers from a terminal, for agents and scripts.

One-shot commands build a context for ``--root`` (default: the current directory), run the
same handler the server runs and print the result. ``--session`` names the session; its read
records persist next to its history, so ``waymark read`` then ``waymark replace`` works
across invocations. pygls is imported only by ``serve`` and ``demo``.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import sys
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from waymark.doors.hosts import HOOK_HOSTS, HOSTS

if typing.TYPE_CHECKING:
    import attrs

    from waymark.commands.registry import Command

# The command spec and the doors are imported on use: ``waymark hook`` runs around every tool
# call of a host and needs none of them.


@functools.cache
def verbs() -> dict[str, Command]:
    from waymark.commands.registry import COMMANDS

    return {c.verb: c for c in COMMANDS.values() if c.verb is not None}


def _flag(name: str) -> str:
    return "--" + re.sub(r"(?<=[a-z])(?=[A-Z])", "-", name).replace("_", "-").lower()


def _kind(cls: type[Any], field: attrs.Attribute[Any]) -> Callable[[str], Any] | None:
    """How a flag's text becomes the param: None for a switch, else a converter."""
    from waymark.commands.schema import without_none

    annotation, _ = without_none(typing.get_type_hints(cls)[field.name])
    if annotation is bool:
        return None
    if annotation in (str, int, float):
        return cast(Callable[[str], Any], annotation)
    return json.loads  # arrays and objects are passed as JSON


def _flags(command: Command) -> list[tuple[attrs.Attribute[Any], Callable[[str], Any] | None]]:
    import attrs

    from waymark.commands.schema import is_hidden

    return [
        (f, _kind(command.params, f))
        for f in attrs.fields(command.params)
        if f.name not in command.args and not is_hidden(f)
    ]


def _parser() -> argparse.ArgumentParser:
    import attrs

    from waymark.commands.schema import cli_flags, is_cli_file, object_schema
    from waymark.doors import history_admin
    from waymark.doors import run as shell_run

    parser = argparse.ArgumentParser(prog="waymark", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="verb", required=True)
    serve = sub.add_parser("serve", help="run the language server on stdio")
    serve.add_argument("--tcp", metavar="HOST:PORT")
    demo = sub.add_parser("demo", help="a real LSP session against a throwaway workspace")
    demo.add_argument("--keep", action="store_true", help="keep the demo workspace")
    history_admin.add_parser(sub)
    shell_run.add_parser(sub)
    mcp = sub.add_parser("mcp", help="serve the tools over MCP on stdio")
    mcp.add_argument("--workspace", help="workspace folder (default: the current directory)")
    hook = sub.add_parser("hook", help="answer an agent host's hook call (JSON on stdin)")
    hook.add_argument("host", choices=HOOK_HOSTS)
    init = sub.add_parser("init", help="register Waymark in a project's agent host config")
    init.add_argument("host", choices=list(HOSTS))
    init.add_argument("--workspace", help="project folder (default: the current directory)")
    init.add_argument("--print", action="store_true", dest="show", help="show, write nothing")
    for verb, command in verbs().items():
        p = sub.add_parser(verb, help=f"run {command.id}")
        described = object_schema(command.params)["properties"]
        for name in command.args:
            # Optional so that --params can carry them; the handler names what is missing.
            file = is_cli_file(attrs.fields_dict(command.params)[name])
            p.add_argument(name, nargs="?", help="a file (- or none: stdin)" if file else None)
        for field, kind in _flags(command):
            names = [_flag(field.name), *cli_flags(field)]
            doc = described[field.name].get("description")
            if kind is None:
                p.add_argument(
                    *names, dest=f"p_{field.name}", action="store_true", default=None, help=doc
                )
            else:
                p.add_argument(*names, dest=f"p_{field.name}", metavar="VALUE", help=doc)
        if "content" in attrs.fields_dict(command.params):
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


def _params(args: argparse.Namespace, command: Command) -> dict[str, Any]:
    import attrs

    from waymark.commands.schema import is_cli_file

    params: dict[str, Any] = {}
    if args.params:
        raw = sys.stdin.read() if args.params == "-" else args.params
        loaded = json.loads(raw)
        if not isinstance(loaded, dict):
            raise SystemExit("waymark: --params must be a JSON object")
        params.update(loaded)
    fields = attrs.fields_dict(command.params)
    for name in command.args:
        value = getattr(args, name)
        if is_cli_file(fields[name]) and name not in params:
            # A file name, or stdin: patches are long and full of shell metacharacters.
            # Bytes, decoded as they are: text mode would turn a CRLF patch's \r\n into \n.
            raw = sys.stdin.buffer.read() if value in (None, "-") else Path(value).read_bytes()
            value = raw.decode("utf-8")
        if value is not None:
            params[name] = value
    for field, kind in _flags(command):
        value = getattr(args, f"p_{field.name}")
        if value is not None:
            params[field.name] = value if kind is None else kind(value)
    content_file = getattr(args, "content_file", None)
    if content_file:
        # Bytes, for the same reason as a patch: a CRLF file's content must stay CRLF.
        raw = sys.stdin.buffer.read() if content_file == "-" else Path(content_file).read_bytes()
        params["content"] = raw.decode("utf-8")
    return params


async def _run(args: argparse.Namespace) -> dict[str, Any]:
    from waymark.doors.bridge.client import execute_via_editor_or_local
    from waymark.doors.entry import open_door
    from waymark.store.files import sweep_temp_files
    from waymark.store.session import SESSION_ID_RULE, valid_session_id

    command = verbs()[args.verb]
    named = args.session or os.environ.get("WAYMARK_SESSION")
    if named is not None and not valid_session_id(named):
        raise SystemExit(f"waymark: the session id {named[:40]!r} is not {SESSION_ID_RULE}")
    door = open_door(
        args.root,
        session=named,
        history_dir=Path(args.history_dir) if args.history_dir else None,
        checkpointing=not args.no_history,
        max_history_bytes=args.max_history_bytes,
    )
    params = _params(args, command)
    if command.mutating:
        sweep_temp_files(door.ctx.workspace.folders[0], recursive=False)
    # An editor running Waymark on this workspace reviews the call (docs/editor-bridge.md).
    result = await execute_via_editor_or_local(door.ctx, command.id, params, origin="waymark CLI")
    door.save()
    if door.ctx.warnings:
        result.setdefault("warnings", []).extend(door.ctx.warnings)
    return result


def _print_result(verb: str, result: dict[str, Any], *, as_json: bool) -> None:
    """What the terminal shows for one result: the whole object with ``--json``, else the
    part a person reads (the text read, the diff, an error on stderr)."""
    # describe-tools exists for programs (the VS Code manifest sync): always the whole object.
    if as_json or verb == "describe-tools":
        text = json.dumps(result, indent=2, ensure_ascii=False)
        if not _utf8(text):
            # A file name that is not UTF-8 holds surrogate escapes (os.fsdecode): \u escapes
            # keep the JSON valid UTF-8, and fsencode of what a reader decodes gives the name back.
            text = json.dumps(result, indent=2)
        print(text)
        return
    if not result.get("ok"):
        print(f"error: {result['error']}: {result['message']}", file=sys.stderr)
        return
    if verb == "read":
        sys.stdout.write(result["text"])
    elif verb == "sed" and not result.get("simulated"):
        print(f"not simulated: {result['reason']}")
    elif "diff" in result:
        sys.stdout.write(result["diff"] or "(no change)\n")
    else:
        print(json.dumps({k: v for k, v in result.items() if k != "ok"}, indent=2))
    for warning in result.get("warnings", []):
        print(f"warning: {warning}", file=sys.stderr)


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def main(argv: list[str] | None = None) -> None:
    words = sys.argv[1:] if argv is None else argv
    if len(words) == 2 and words[0] == "hook" and words[1] in HOOK_HOSTS:
        # A host runs this around every tool call: no parser of every verb, no command spec.
        from waymark.doors.hooks import main as hook

        raise SystemExit(hook(words[1]))
    args = _parser().parse_args(argv)
    if args.verb == "serve":
        from waymark.doors.lsp.server import main as serve

        serve(["--tcp", args.tcp] if args.tcp else [])
        return
    if args.verb == "demo":
        from waymark.doors.lsp.demo import main as demo

        raise SystemExit(demo(keep=args.keep))
    if args.verb == "mcp":
        from waymark.doors.mcp_server import main as mcp

        mcp(args.workspace)
        return
    if args.verb == "hook":
        from waymark.doors.hooks import main as hook

        raise SystemExit(hook(args.host))
    if args.verb == "init":
        from waymark.doors.init import main as init

        raise SystemExit(init(args.host, args.workspace, args.show))
    if args.verb == "history":
        from waymark.doors import history_admin

        raise SystemExit(history_admin.main(args))
    if args.verb == "run":
        from waymark.doors import run as shell_run

        raise SystemExit(shell_run.main(args))
    import asyncio

    result = asyncio.run(_run(args))
    _print_result(args.verb, result, as_json=args.json)
    raise SystemExit(0 if result.get("ok") else 1)

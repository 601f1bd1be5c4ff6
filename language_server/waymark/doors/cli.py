"""``waymark``: the command handlers from a terminal, for people, agents and scripts.

One-shot commands build a context for ``--root`` (default: the current directory), run the
same handler the server runs and print the result: what a person reads by default, the whole
result with ``--json``. ``--session`` names the session; its read records persist next to
its history, so ``waymark read`` then ``waymark replace`` works across invocations. A bad
value is refused in one line, in the CLI's terms (docs/cli.md). pygls is imported only by
``serve`` and ``demo``.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import sys
import typing
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any, cast

import attrs

from waymark import __version__
from waymark.commands.registry import COMMANDS, Command, execute
from waymark.commands.schema import (
    cli_flags,
    is_cli_file,
    is_hidden,
    maximum,
    minimum,
    object_schema,
    without_none,
)
from waymark.doors import acp, cli_args, history_admin, quiet_start
from waymark.doors import run as shell_run
from waymark.doors.bridge.client import execute_via_editor_or_local
from waymark.doors.cli_output import exit_status, print_result
from waymark.doors.entry import open_door
from waymark.doors.hosts import HOOK_HOSTS, HOSTS
from waymark.store.files import sweep_temp_files
from waymark.store.session import SESSION_ID_RULE, valid_session_id

VERBS: dict[str, Command] = {c.verb: c for c in COMMANDS.values() if c.verb is not None}

# A param holding a file name or a shell line: any bytes a name may hold, so no UTF-8 check.
_NAMES = ("path", "cwd", "command")

EXIT_STATUS = """exit status:
  0  done (a sed line Waymark declined to simulate is an answer too: run it yourself)
  1  the command refused or failed: one line on stderr says why and what to do next
  2  usage: a missing or malformed argument (one line after the usage)
  3  rewind: some files were left as they are (changed by someone else, or not writable);
     they are listed, and --force restores over someone else's changes
  waymark run exits with the command's own status.

docs/cli.md describes every verb; --json prints the whole result for programs."""


class BadArgument(Exception):
    """A value argparse could not check (read from a file or stdin): usage, exit 2."""

    def __init__(self, flag: str, message: str) -> None:
        super().__init__(f"argument {flag}: {message}")


def _version() -> str:
    try:
        return metadata.version("waymark-edits")
    except metadata.PackageNotFoundError:
        return __version__


def _kind(cls: type[Any], field: attrs.Attribute[Any]) -> Callable[[str], Any] | None:
    """How a flag's text becomes the param: None for a switch, else a converter that refuses
    a malformed value in argparse's words."""
    annotation, _ = without_none(typing.get_type_hints(cls)[field.name])
    if annotation is bool:
        return None
    if annotation == list[str]:
        return cli_args.words
    if annotation is int:
        return cli_args.whole_number(minimum(field), maximum(field))
    if annotation is float:
        return cli_args.number
    if annotation is str:
        return str if field.name in _NAMES else cli_args.text
    return cli_args.json_value  # arrays and objects are passed as JSON


def _flags(command: Command) -> list[tuple[attrs.Attribute[Any], Callable[[str], Any] | None]]:
    return [
        (f, _kind(command.params, f))
        for f in attrs.fields(command.params)
        if f.name not in command.args and not is_hidden(f)
    ]


def _tcp(value: str) -> str:
    host, _, port = value.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"takes HOST:PORT (e.g. 127.0.0.1:2087), not {value!r}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="waymark",
        description=__doc__.splitlines()[0],
        epilog=EXIT_STATUS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--version", action="version", version=f"waymark {_version()}", help="print the version"
    )
    sub = parser.add_subparsers(dest="verb", required=True, metavar="VERB", help="one of:")
    serve = sub.add_parser("serve", help="run the language server on stdio")
    serve.add_argument("--tcp", metavar="HOST:PORT", type=_tcp, help="listen on TCP instead")
    demo = sub.add_parser("demo", help="a real LSP session against a throwaway workspace")
    demo.add_argument("--keep", action="store_true", help="keep the demo workspace")
    history_admin.add_parser(sub)
    shell_run.add_parser(sub)
    acp.add_parser(sub)
    mcp = sub.add_parser("mcp", help="serve the tools over MCP on stdio")
    mcp.add_argument(
        "--workspace", type=cli_args.folder, help="workspace folder (default: the current one)"
    )
    hook = sub.add_parser("hook", help="answer an agent host's hook call (JSON on stdin)")
    hook.add_argument("host", choices=HOOK_HOSTS, help="the agent host calling")
    init = sub.add_parser("init", help="register Waymark in a project's agent host config")
    init.add_argument("host", choices=list(HOSTS), help="the agent host to register with")
    init.add_argument(
        "--workspace", type=cli_args.folder, help="project folder (default: the current one)"
    )
    init.add_argument("--print", action="store_true", dest="show", help="show, write nothing")
    init.add_argument(
        "--user",
        action="store_true",
        help="also register the MCP server in the host's per-user config (cline keeps it only "
        "there)",
    )
    for verb, command in VERBS.items():
        p = sub.add_parser(
            verb,
            help=(command.title or command.id).lower(),
            description=cli_args.in_cli_verbs(
                (command.description or "").split(". ")[0].rstrip(".") + "."
            ),
        )
        described = {
            name: {**schema, "description": cli_args.in_cli_verbs(schema.get("description", ""))}
            for name, schema in object_schema(command.params)["properties"].items()
        }
        for field in attrs.fields(command.params):
            if field.name not in command.args:
                continue
            # Optional so that --params can carry them; the handler names what is missing.
            doc = described[field.name].get("description", "")
            if is_cli_file(field):
                doc = f"a file holding it (- or none: stdin). {doc}"
            value = str if field.name in _NAMES or is_cli_file(field) else cli_args.text
            p.add_argument(
                field.name, nargs="?", type=value, metavar=cli_args.metavar_of(field.name), help=doc
            )
        for field, kind in _flags(command):
            names = [cli_args.flag_of(field.name), *cli_flags(field)]
            doc = described[field.name].get("description")
            if kind is None:
                p.add_argument(
                    *names, dest=f"p_{field.name}", action="store_true", default=None, help=doc
                )
            elif kind is cli_args.words:
                # Plain words (`--paths a.py b.py`), as a shell lists file names.
                p.add_argument(
                    *names,
                    dest=f"p_{field.name}",
                    nargs="+",
                    action="extend",
                    metavar=cli_args.metavar_of(field.name),
                    help=doc,
                )
            else:
                choices = described[field.name].get("enum")
                p.add_argument(
                    *names,
                    dest=f"p_{field.name}",
                    type=kind,
                    choices=choices,
                    metavar="{" + ",".join(choices) + "}"
                    if choices
                    else "JSON"
                    if kind is cli_args.json_value
                    else "VALUE",
                    help=doc,
                )
        if "content" in attrs.fields_dict(command.params):
            p.add_argument("--content-file", help="read content from a file (- for stdin)")
        p.add_argument("--params", help="a JSON object of params (- for stdin)")
        p.add_argument("--json", action="store_true", help="print the whole result as JSON")
        p.add_argument(
            "--root", default=".", type=cli_args.folder, help="workspace folder (default: .)"
        )
        p.add_argument(
            "--session", type=cli_args.session, help="session id (default: one per --root)"
        )
        p.add_argument("--history-dir", type=cli_args.history_dir, help="where history lives")
        p.add_argument("--no-history", action="store_true", help="turn checkpointing off")
        p.add_argument(
            "--max-history-bytes",
            type=cli_args.whole_number(1),
            help="disk budget of the workspace's history",
        )
    return parser


def _terms(command: Command) -> dict[str, str]:
    """Each param as the CLI takes it: a flag, or a positional argument's name."""
    return {
        f.name: cli_args.metavar_of(f.name) if f.name in command.args else cli_args.flag_of(f.name)
        for f in attrs.fields(command.params)
        if not is_hidden(f)
    }


def _names() -> dict[str, str]:
    """How a person calls each command at the CLI (named in an error's next step)."""
    return {
        c.id: "`" + " ".join(["waymark", c.verb, *map(cli_args.metavar_of, c.args)]) + "`"
        for c in VERBS.values()
        if c.verb is not None
    }


def _read_input(flag: str, value: str | None) -> str:
    """A file's or stdin's bytes, decoded as they are (text mode would turn CRLF into LF)."""
    try:
        raw = sys.stdin.buffer.read() if value in (None, "-") else Path(value).read_bytes()
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise BadArgument(flag, f"cannot read {value!r}: {reason}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BadArgument(flag, f"{value or 'stdin'} is not UTF-8 text") from None


def _params(args: argparse.Namespace, command: Command) -> dict[str, Any]:
    params: dict[str, Any] = {}
    if args.params is not None:
        raw = _read_input("--params", None) if args.params == "-" else args.params
        try:
            loaded = cli_args.json_value(raw)
        except argparse.ArgumentTypeError as exc:
            raise BadArgument("--params", str(exc)) from None
        if not isinstance(loaded, dict):
            raise BadArgument("--params", 'must be a JSON object, e.g. \'{"path": "a.txt"}\'')
        params.update(loaded)
    fields = attrs.fields_dict(command.params)
    required = object_schema(command.params).get("required", [])
    # A deprecated alias given in --params (edit's file_path) stands in for the argument.
    alias = any(is_hidden(f) and f.name in params for f in fields.values())
    for name in command.args:
        value = getattr(args, name)
        if is_cli_file(fields[name]) and name not in params:
            # A file name, or stdin: patches are long and full of shell metacharacters.
            value = _read_input(cli_args.metavar_of(name), value)
        if value is not None:
            params[name] = value
        elif name in required and name not in params and not alias:
            raise BadArgument(cli_args.metavar_of(name), "is required")
    for field, _ in _flags(command):
        value = getattr(args, f"p_{field.name}")
        if value is not None:
            params[field.name] = value
    content_file = getattr(args, "content_file", None)
    if content_file is not None:
        # Bytes, for the same reason as a patch: a CRLF file's content must stay CRLF.
        params["content"] = _read_input("--content-file", content_file)
    return params


async def _run(args: argparse.Namespace) -> dict[str, Any]:
    command = VERBS[args.verb]
    named = args.session or os.environ.get("WAYMARK_SESSION")
    if named is not None and not valid_session_id(named):
        # Only WAYMARK_SESSION gets here: argparse checked --session.
        raise SystemExit(f"waymark: the session id {named[:40]!r} is not {SESSION_ID_RULE}")
    params = _params(args, command)
    door = open_door(
        args.root,
        session=named,
        history_dir=Path(args.history_dir) if args.history_dir else None,
        checkpointing=not args.no_history,
        max_history_bytes=args.max_history_bytes,
        names=_names(),
    )
    if command.mutating:
        sweep_temp_files(door.ctx.workspace.folders[0], recursive=False)
    # An editor running Waymark on this workspace reviews the call (docs/editor-bridge.md).
    result = await execute_via_editor_or_local(door.ctx, command.id, params, origin="waymark CLI")
    if args.verb == "turns" and result.get("ok") and not args.json:
        # The table's +N −M: what a rewind to each turn would undo.
        for turn in result["turns"]:
            stats = await execute(door.ctx, "waymark.diffStats", {"promptId": turn["promptId"]})
            turn["since"] = stats if stats.get("ok") else None
    door.save()
    door.close()
    if door.ctx.warnings:
        result.setdefault("warnings", []).extend(door.ctx.warnings)
    if not result.get("ok") and isinstance(result.get("message"), str):
        worded = cli_args.in_cli_terms(result["message"], _terms(command))
        result["message"] = cli_args.in_cli_verbs(worded)
    return result


def _verb_parser(parser: argparse.ArgumentParser, verb: str) -> argparse.ArgumentParser:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return cast(argparse.ArgumentParser, action.choices[verb])
    return parser


def main(argv: list[str] | None = None) -> None:
    for stream in (sys.stdout, sys.stderr):
        # A file name that is not UTF-8 prints as the bytes it is, not as a traceback.
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="surrogateescape")
    parser = _parser()
    if not (sys.argv[1:] if argv is None else argv):
        parser.print_help(sys.stderr)
        raise SystemExit(2)
    args, extra = parser.parse_known_args(argv)
    if extra:
        if args.verb in VERBS and VERBS[args.verb].args == ("command",):
            # `waymark sed sed -i 's/a/b/' f` unquoted: the shell split the line into words.
            verb = args.verb
            _verb_parser(parser, verb).error(
                f"takes the whole {verb} line as one argument: quote it, e.g. "
                f"waymark {verb} \"{verb} -i 's/old/new/' FILE\""
            )
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if args.verb == "serve":
        from waymark.doors.lsp import main as serve

        serve(["--tcp", args.tcp] if args.tcp else [])
        return
    if args.verb == "demo":
        from waymark.doors.lsp.demo import main as demo

        raise SystemExit(demo(keep=args.keep))
    if args.verb == "mcp":
        collecting = quiet_start.pause()
        from waymark.doors.mcp_server import main as mcp

        quiet_start.resume(collecting)
        mcp(args.workspace)
        return
    if args.verb == "hook":
        from waymark.doors.hooks import main as hook

        raise SystemExit(hook(args.host))
    if args.verb == "init":
        from waymark.doors.init import main as init

        raise SystemExit(init(args.host, args.workspace, args.show, args.user))
    if args.verb == "history":
        raise SystemExit(history_admin.main(args))
    if args.verb == "run":
        raise SystemExit(shell_run.main(args))
    if args.verb == "acp":
        raise SystemExit(acp.main(args))
    try:
        result = asyncio.run(_run(args))
    except BadArgument as exc:
        _verb_parser(parser, args.verb).error(str(exc))
    except OSError as exc:
        # Opening the history or saving the session's read records failed (a read-only or
        # full disk): the state of the machine, said in one line.
        print(f"waymark {args.verb}: {exc.strerror or exc}: {exc.filename}", file=sys.stderr)
        raise SystemExit(1) from None
    print_result(args.verb, result, as_json=args.json)
    raise SystemExit(exit_status(args.verb, result))

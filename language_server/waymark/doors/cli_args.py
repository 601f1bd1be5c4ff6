"""The CLI's argument types and terms: a bad value is refused by argparse in one line (exit 2)
before the workspace is opened, and a command's refusal names flags, not params.

Shared by every verb's parser (``doors/cli.py``, ``history_admin.py``, ``run.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from waymark.commands.registry import COMMANDS
from waymark.doors.wire_guard import MAX_DEPTH, too_deep
from waymark.store.session import SESSION_ID_RULE, valid_session_id

# Each command id and tool name as the CLI's verb: help and messages shared with the other
# doors name `waymark_read` or `waymark.turns`, which a person types as `waymark read`.
_VERBS = {
    name: f"waymark {c.verb}"
    for c in COMMANDS.values()
    if c.verb is not None
    for name in (c.id, c.tool)
    if name is not None
}


def flag_of(name: str) -> str:
    """``promptId`` / ``old_string`` as the CLI spells a flag: ``--prompt-id``."""
    return "--" + re.sub(r"(?<=[a-z])(?=[A-Z])", "-", name).replace("_", "-").lower()


def metavar_of(name: str) -> str:
    """A positional argument as help and errors show it: ``PROMPT_ID``."""
    return flag_of(name)[2:].replace("-", "_").upper()


def _plain(value: str) -> str:
    if not value:
        raise argparse.ArgumentTypeError("must not be empty")
    if "\x00" in value:
        raise argparse.ArgumentTypeError("must not contain a NUL byte")
    return value


def text(value: str) -> str:
    """A value that is text, not a file name: it must be valid UTF-8."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise argparse.ArgumentTypeError(f"{value!r} is not valid UTF-8") from None
    return value


def nonblank(value: str) -> str:
    if not text(value).strip():
        raise argparse.ArgumentTypeError("must not be empty")
    return value


def folder(value: str) -> str:
    """An existing directory (a workspace)."""
    _plain(value)
    if not os.path.isdir(value):
        problem = "is not a folder" if os.path.lexists(value) else "does not exist"
        raise argparse.ArgumentTypeError(f"{value!r} {problem}")
    return value


def history_dir(value: str) -> str:
    """A directory, or a path one can be made at (its nearest existing parent a directory)."""
    _plain(value)
    existing = Path(value).absolute()
    while not os.path.lexists(existing):
        existing = existing.parent
    if not existing.is_dir():
        raise argparse.ArgumentTypeError(f"{str(existing)!r} is not a folder")
    return value


def session(value: str) -> str:
    if not valid_session_id(value):
        raise argparse.ArgumentTypeError(f"{value[:40]!r} is not {SESSION_ID_RULE}")
    return value


def whole_number(least: int | None = None, most: int | None = None) -> Callable[[str], int]:
    def convert(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"takes a whole number, not {value!r}") from None
        if least is not None and number < least:
            raise argparse.ArgumentTypeError(f"must be {least} or more, not {number}")
        if most is not None and number > most:
            raise argparse.ArgumentTypeError(f"must be {most} or less, not {number}")
        return number

    return convert


def number(value: str) -> float:
    try:
        result = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"takes a number, not {value!r}") from None
    if result != result or result in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"takes a finite number, not {value!r}")
    return result


def json_value(value: str) -> Any:
    """JSON text (arrays and objects of a param), nested no deeper than a request may be over
    the wire: Python's parser recurses once per level, and 20,000 levels were a traceback."""
    if too_deep(text(value).encode("utf-8"), MAX_DEPTH)[0]:
        raise argparse.ArgumentTypeError(
            f"is JSON nested deeper than {MAX_DEPTH} levels, which no parameter takes"
        )
    try:
        return json.loads(value)
    except ValueError as exc:
        where = f"{exc.msg} at column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else exc
        raise argparse.ArgumentTypeError(
            f"is not JSON ({where}); quote the JSON for the shell, e.g. '[{{...}}]'"
        ) from None


def in_cli_terms(message: str, terms: Mapping[str, str]) -> str:
    """A command's sentence with each `param` it names spelled as the CLI takes it."""
    return re.sub(r"`(\w+)(?=[`\[.])", lambda m: "`" + terms.get(m.group(1), m.group(1)), message)


def words(value: str) -> str:
    """A list param taken as plain words (``--paths a.py b.py``): file names, as they are."""
    return value


def in_cli_verbs(text: str) -> str:
    """``text`` with every command id or tool name it mentions spelled as the CLI's verb
    (``waymark_read(hashes=true)``: ``waymark read --hashes``)."""

    def verb(m: re.Match[str]) -> str:
        if m[1] not in _VERBS:
            return m[0]
        return _VERBS[m[1]] + (f" {flag_of(m[2])}" if m[2] else "")

    return re.sub(r"\b(waymark[._][A-Za-z_]+)\b(?:\((\w+)=true\))?", verb, text)

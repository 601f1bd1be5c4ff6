"""The config files ``waymark init`` merges into: read without leaving the project, parsed,
and refused in one sentence naming the file when they cannot be merged into.

A config nested deeper than any host's (Python's parsers recurse once per level: 100,000
levels were a traceback) or holding a lone surrogate (``\\ud800``, which parses but cannot be
written back) is refused before anything is planned.
"""

from __future__ import annotations

import json
import os
import stat
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomlkit
import tomlkit.exceptions

from waymark.doors.wire_guard import too_deep

# tomlkit's own limit (since 0.15), for JSON and TOML alike: no host's config comes near.
MAX_DEPTH = 100
FIX = "fix it and run init again"


class InitError(Exception):
    """A config Waymark cannot merge into without overwriting what the user wrote."""


@dataclass
class Config:
    """One config file: the name the user knows, where its bytes live, what it holds now."""

    shown: Path
    real: Path  # ``shown`` with symlinks inside the project resolved
    old: bytes | None
    new: bytes | None = None
    mode: int | None = None  # permissions to give the file it writes (a hook file runs)

    def changes(self) -> bool:
        """Whether writing it changes the file (its bytes, or a hook file's permissions)."""
        if self.new != self.old:
            return True
        return self.mode is not None and stat.S_IMODE(os.stat(self.real).st_mode) != self.mode

    def text(self) -> str:
        try:
            return (self.old or b"").decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InitError(f"{self.shown} is not UTF-8 text ({exc.reason}); {FIX}.") from exc


def open_config(root: Path, relative: str) -> Config:
    """Read ``root/relative`` without following it out of the project or blocking on it."""
    shown = root / relative
    real = Path(os.path.realpath(shown))
    if real != root and root not in real.parents:
        link = next((p for p in [*reversed(shown.parents), shown] if p.is_symlink()), shown)
        raise InitError(
            f"{link} is a symlink leading outside the project (to {os.path.realpath(link)}), "
            "where init does not write; replace it with a real file or directory and run init "
            "again."
        )
    try:
        st = os.lstat(real)
    except FileNotFoundError:
        return Config(shown, real, None)
    except NotADirectoryError:
        parent = next(p for p in [*reversed(real.parents), real] if not p.is_dir())
        raise InitError(f"{parent} is not a directory; move it away and run init again.") from None
    except OSError as exc:
        raise InitError(f"{shown} cannot be read ({exc.strerror}); {FIX}.") from exc
    if stat.S_ISDIR(st.st_mode):
        raise InitError(f"{shown} is a directory, not a file; move it away and run init again.")
    if not stat.S_ISREG(st.st_mode):
        raise InitError(f"{shown} is not a regular file; replace it with the config file.")
    try:
        return Config(shown, real, real.read_bytes())
    except OSError as exc:
        raise InitError(f"{shown} cannot be read ({exc.strerror}); {FIX}.") from exc


def kind_of(value: object) -> str:
    """How a value's type reads in a sentence (JSON and TOML words)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


def member(config: Config, container: dict[str, Any], key: str, default: Any) -> Any:
    """``container[key]``, created as ``default`` when absent; refused when of another type."""
    value = container.setdefault(key, default)
    if not isinstance(value, type(default)):
        raise InitError(
            f'{config.shown}: "{key}" is {kind_of(value)}, not {kind_of(default)}; {FIX}.'
        )
    return value


def load_json(config: Config) -> dict[str, Any]:
    text = config.text()
    if too_deep(text.encode("utf-8"), MAX_DEPTH)[0]:
        raise InitError(_too_deep(config))
    try:
        data = json.loads(text if text.strip() else "{}")
    except ValueError as exc:
        raise InitError(f"{config.shown} is not valid JSON ({exc}); {FIX}.") from exc
    if not isinstance(data, dict):
        raise InitError(f"{config.shown} holds {kind_of(data)}, not a JSON object; {FIX}.")
    try:
        # A \ud800 escape parses into a string no file can hold: found now, not on writing.
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InitError(
            f"{config.shown} holds the escape \\u{ord(exc.object[exc.start]):04x}, a lone "
            f"surrogate that is no character; {FIX}."
        ) from None
    return data


def set_json(config: Config, data: dict[str, Any]) -> None:
    config.new = (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def load_toml(config: Config) -> tuple[dict[str, Any], tomlkit.TOMLDocument]:
    """The TOML as data and as an editable document that keeps comments and layout."""
    text = config.text()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InitError(f"{config.shown} is not valid TOML ({exc}); {FIX}.") from exc
    except RecursionError:
        # tomllib recurses once per level until Python gives up.
        raise InitError(_too_deep(config)) from None
    # Held to the limit here, not by tomlkit: its releases before 0.15 have none.
    if _depth(data) > MAX_DEPTH:
        raise InitError(_too_deep(config))
    try:
        return data, tomlkit.parse(text)
    except tomlkit.exceptions.ParseError as exc:
        raise InitError(f"{config.shown} is not valid TOML ({exc}); {FIX}.") from exc


def _depth(value: object) -> int:
    """How deep tables and arrays nest in ``value``, counted without recursing."""
    deepest = 0
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            depth += 1
            deepest = max(deepest, depth)
            stack.extend(
                (each, depth) for each in (item.values() if isinstance(item, dict) else item)
            )
    return deepest


def _too_deep(config: Config) -> str:
    return f"{config.shown} nests deeper than {MAX_DEPTH} levels, as no host's config does; {FIX}."

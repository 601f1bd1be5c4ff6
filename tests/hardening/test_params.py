"""Issue 38, class 8: every container parameter takes its own JSON type only.

cattrs would take the string ``"ab"`` for the list ``["a", "b"]``: a rewind of ``paths: "ab"``
rewound the files ``a`` and ``b``. Parameters are checked in one place (commands/params.py),
so every door refuses it the same way; here the MCP server and the CLI, as processes, and
every array or object parameter of every command in the registry.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from helpers_commands import Agent
from helpers_mcp import call, connect
from waymark.commands.registry import COMMANDS, execute

pytestmark = pytest.mark.timeout(120)

WRONG = {"array": ["ab", 7, True, {"0": "a"}], "object": ["ab", 7, True, ["a"]]}


def _changed_turn(workspace: Path) -> None:
    """Files ``a`` and ``b`` changed in turn p1: what a wrongly split ``"ab"`` would rewind."""
    for name in ("a", "b"):
        (workspace / name).write_bytes(b"before\n")
    waymark(workspace, "snapshot", "p1")
    for name in ("a", "b"):
        waymark(workspace, "read", name)
        waymark(workspace, "write", name, "--content", "after\n")
    assert [(workspace / n).read_bytes() for n in ("a", "b")] == [b"after\n"] * 2


def waymark(workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "waymark", *args],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=60,
    )


async def test_a_string_for_paths_is_refused_over_mcp(workspace: Path) -> None:
    _changed_turn(workspace)
    async with connect(workspace) as session:
        err, text = await call(session, "waymark_rewind", promptId="p1", paths="ab")
    assert err
    assert text.startswith(
        "invalid_params: The parameter `paths` is invalid: expected an array, got a string."
    ), text
    assert [(workspace / n).read_bytes() for n in ("a", "b")] == [b"after\n"] * 2


def test_a_string_for_paths_is_refused_at_the_cli(workspace: Path) -> None:
    """(`--paths a b` takes plain file names; `--params` takes the protocol's JSON.)"""
    _changed_turn(workspace)
    done = waymark(workspace, "rewind", "--params", json.dumps({"promptId": "p1", "paths": "ab"}))
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "error: invalid_params: The parameter `--paths` is invalid: expected an array, "
        "got a string.\n"
    )
    assert [(workspace / n).read_bytes() for n in ("a", "b")] == [b"after\n"] * 2


def _filled(command_id: str, tested: str) -> dict[str, Any]:
    """Right values for every required parameter but ``tested``."""
    schema = COMMANDS[command_id].input_schema()
    fills: dict[str, Any] = {
        "string": "a.txt",
        "integer": 1,
        "boolean": False,
        "array": [],
        "object": {},
    }
    return {
        name: "p1" if name == "promptId" else fills[schema["properties"][name]["type"]]
        for name in schema["required"]
        if name != tested
    }


CONTAINERS = [
    (command.id, name, kind, value)
    for command in COMMANDS.values()
    for name, schema in command.input_schema()["properties"].items()
    if (kind := schema.get("type")) in WRONG
    for value in WRONG[kind]
]


def test_the_registry_has_array_and_object_parameters() -> None:
    kinds = {(c, n, k) for c, n, k, _ in CONTAINERS}
    assert ("waymark.rewind", "paths", "array") in kinds
    assert ("waymark.modelText", "result", "object") in kinds
    assert len(kinds) == 5


@pytest.mark.parametrize(("command_id", "name", "kind", "value"), CONTAINERS)
def test_every_container_parameter_takes_only_its_json_type(
    workspace: Path, tmp_path: Path, command_id: str, name: str, kind: str, value: object
) -> None:
    agent = Agent(workspace, tmp_path / "history")
    asyncio.run(agent("snapshot", promptId="p1"))
    for file in ("a.txt", "a", "b"):
        (workspace / file).write_bytes(b"before\n")
        asyncio.run(agent("read", path=file))
        asyncio.run(agent("write", path=file, content="after\n"))
    params = {**_filled(command_id, name), name: value}
    result = asyncio.run(execute(agent.ctx, command_id, params))
    assert (result["ok"], result["error"], result["details"]["field"]) == (
        False,
        "invalid_params",
        name,
    ), result
    assert [(workspace / f).read_bytes() for f in ("a.txt", "a", "b")] == [b"after\n"] * 3


# -- lone surrogates (classes 9 and 10): one sentence for any text parameter, not a traceback -----

STRINGS = [
    (command.id, name)
    for command in COMMANDS.values()
    for name, schema in command.input_schema()["properties"].items()
    if schema.get("type") == "string"
]


@pytest.mark.parametrize(("command_id", "name"), STRINGS)
def test_a_lone_surrogate_in_any_text_parameter_is_invalid_params(
    workspace: Path, tmp_path: Path, command_id: str, name: str
) -> None:
    (workspace / "a.txt").write_bytes(b"one\n")
    agent = Agent(workspace, tmp_path / "history")
    params = {**_filled(command_id, name), name: "x\ud800"}
    result = asyncio.run(execute(agent.ctx, command_id, params))
    assert (result["ok"], result["error"], result["details"]["field"]) == (
        False,
        "invalid_params",
        name,
    ), result
    assert result["message"].startswith(
        f"The parameter `{name}` holds a lone surrogate (U+D800 at offset 1), which "
    )
    assert (workspace / "a.txt").read_bytes() == b"one\n"


def test_a_lone_surrogate_in_an_edit_operation_names_it(workspace: Path, tmp_path: Path) -> None:
    agent = Agent(workspace, tmp_path / "history")
    ops = [{"op": "insert_before", "hash": "abcdef", "content": "ok"}]
    ops.append({"op": "insert_before", "hash": "abcdef", "content": "\udbff!"})
    result = asyncio.run(agent("edit", path="a.txt", operations=ops))
    assert result["message"] == (
        "The parameter `operations[1].content` holds a lone surrogate (U+DBFF at offset 0), "
        "which is no character; send the text as valid Unicode."
    )


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["snapshot", "--params", json.dumps({"promptId": "\ud800"})], "PROMPT_ID"),
        (["snapshot", "p1", "--params", json.dumps({"label": "x\udabc"})], "--label"),
        (["sed", "--params", json.dumps({"command": "sed -i s/a/\ud800/ a.txt"})], "COMMAND"),
    ],
)
def test_a_lone_surrogate_at_the_cli_is_one_sentence(
    workspace: Path, args: list[str], flag: str
) -> None:
    (workspace / "a.txt").write_bytes(b"a\n")
    done = subprocess.run(
        [sys.executable, "-m", "waymark", *args],
        cwd=workspace,
        capture_output=True,
        text=True,
        errors="surrogateescape",
        timeout=60,
    )
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.startswith(f"error: invalid_params: The parameter `{flag}` holds a lone ")
    assert done.stderr.count("\n") == 1, done.stderr
    assert (workspace / "a.txt").read_bytes() == b"a\n"


def test_a_sed_script_with_bytes_that_are_not_utf8_is_left_to_the_real_sed(
    workspace: Path,
) -> None:
    (workspace / "a.txt").write_bytes(b"a\n")
    # A shell in a Latin-1 locale passes the byte E9 as it is.
    line = os.fsdecode(b"sed -i 's/a/\xe9/' a.txt")
    done = subprocess.run(
        [sys.executable, "-m", "waymark", "sed", line],
        cwd=workspace,
        capture_output=True,
        timeout=60,
    )
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout == (
        b"not simulated: the script holds bytes that are not UTF-8, which Waymark does not "
        b"simulate.\n"
    )
    assert (workspace / "a.txt").read_bytes() == b"a\n"

"""A caller of the command layer in-process, the way the server calls it."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from waymark.commands.context import CommandContext, load_options
from waymark.commands.registry import execute
from waymark.store import batch


class Agent:
    """Calls commands against one workspace and session, as the server does."""

    def __init__(self, root: Path, history: Path, session: str = "test", **options: Any) -> None:
        opts, self.option_warnings = load_options(
            {"historyDir": str(history), "sessionId": session, **options}
        )
        self.ctx = CommandContext.create([root], opts)
        self.root = root

    async def __call__(self, verb: str, /, **params: Any) -> dict[str, Any]:
        return await execute(self.ctx, f"waymark.{verb}", params)


async def edit_third_line_with_a_writer_at_stage(
    agent: Agent, path: Path, theirs: Callable[[Path], None], monkeypatch: pytest.MonkeyPatch
) -> dict[str, Any]:
    """Edit line 3 of ``path`` to ``3`` (anchored on a fresh read) while another program, which
    takes no lock, runs ``theirs`` on the file as the batch stages the new bytes: after the
    re-read under the lock, before the batch's last compare."""
    read = await agent("read", path=path.name, hashes=True)
    staged = batch._write_temp

    def theirs_then_stage(*args: Any) -> None:
        theirs(path)
        staged(*args)

    monkeypatch.setattr(batch, "_write_temp", theirs_then_stage)
    return await agent(
        "edit",
        path=path.name,
        operations=[{"op": "replace_line", "hash": read["lines"][2]["hash"], "content": "3"}],
    )


def put(root: Path, name: str, data: bytes) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def cli(workspace: Path, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """``waymark VERB … --json`` run in ``workspace`` as a terminal user would; its result."""
    done = subprocess.run(
        [sys.executable, "-m", "waymark", *args, "--json"],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def init(
    workspace: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``waymark init ARGS`` run in ``workspace`` as a user types it."""
    return subprocess.run(
        [sys.executable, "-m", "waymark", "init", *args],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def file_tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` by its relative path: the bytes a user would find."""
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}

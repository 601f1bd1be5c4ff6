"""A caller of the command layer in-process, the way the server calls it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from waymark.commands.context import CommandContext, load_options
from waymark.commands.registry import execute


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

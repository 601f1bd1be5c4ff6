"""Probes run the real command layer in-process against a workspace and an outside dir."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from waymark.commands.context import CommandContext, load_options
from waymark.commands.registry import execute


class Agent:
    """Calls commands the way the server does, against one workspace and session."""

    def __init__(self, root: Path, history: Path, session: str = "probe") -> None:
        opts, _ = load_options({"historyDir": str(history), "sessionId": session})
        self.ctx = CommandContext.create([root], opts)
        self.root = root

    async def __call__(self, verb: str, /, **params: Any) -> dict[str, Any]:
        return await execute(self.ctx, f"waymark.{verb}", params)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    path = tmp_path / "outside"
    path.mkdir()
    (path / "victim.txt").write_bytes(b"victim\n")
    return path


@pytest.fixture
def agent(workspace: Path, tmp_path: Path) -> Agent:
    return Agent(workspace, tmp_path / "history")

"""Probes run the real command layer in-process against a workspace and an outside dir."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers_commands import Agent


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    path = tmp_path / "outside"
    path.mkdir()
    (path / "victim.txt").write_bytes(b"victim\n")
    return path


@pytest.fixture
def agent(workspace: Path, tmp_path: Path) -> Agent:
    return Agent(workspace, tmp_path / "history", session="probe")

"""Fixtures: a workspace, a history root, and an agent writing through a fresh History."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers_history import Agent, open_history


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture
def history_root(tmp_path: Path) -> Path:
    return tmp_path / "history"


@pytest.fixture
def agent(workspace: Path, history_root: Path) -> Iterator[Agent]:
    yield Agent(open_history(history_root, workspace), workspace)

"""Shared fixtures: every test's state (history, XDG dirs) lives in its own temp dirs."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _isolated_state(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = tmp_path_factory.mktemp("xdg")
    for name in ("XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.setenv(name, str(base / name.lower()))
    monkeypatch.delenv("WAYMARK_SESSION", raising=False)
    # A hook call would start a resident server that outlives its test; tests of it opt in.
    monkeypatch.setenv("WAYMARK_HOOK_SERVER", "off")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root

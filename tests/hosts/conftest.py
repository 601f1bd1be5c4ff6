"""The agent-host tests run their hooks the way a user's machine does: through the resident
hook server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers_hook_server import stop_servers


@pytest.fixture(autouse=True)
def hook_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Path]]:
    """Hooks go through the resident hook server, as on a user's machine; the servers the
    run started (under the test's state directory, or the scripted home's where a host hands
    its hooks no XDG_STATE_HOME) are stopped by pid at the end."""
    monkeypatch.delenv("WAYMARK_HOOK_SERVER")
    states = [Path(os.environ["XDG_STATE_HOME"]), tmp_path / "home" / ".local" / "state"]
    try:
        yield states
    finally:
        for state in states:
            stop_servers(state)

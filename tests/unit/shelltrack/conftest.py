"""Every shell-tracking test runs twice: Post scanning the whole folder (a hook process of
its own), and Post looking only where a watch saw changes (the resident hook server)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from waymark.store.history import History, history_workspace
from waymark.store.shelltrack import watch


@pytest.fixture(autouse=True, params=["scan", "watch"])
def post_by(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    if request.param == "watch":
        monkeypatch.setattr(watch, "_ACTIVE", watch.Watches())
    yield str(request.param)
    active = watch.active()
    if active is not None:
        active.close()


@pytest.fixture
def history(tmp_path: Path, ws: Path) -> Iterator[History]:
    """The history of the test's ``ws`` (each test module says what ``ws`` holds)."""
    opened = History.open(
        tmp_path / "history", history_workspace(tmp_path / "history", [ws]), session="s1"
    )
    yield opened
    opened.close()

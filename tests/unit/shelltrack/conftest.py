"""Every shell-tracking test runs twice: Post scanning the whole folder (a hook process of
its own), and Post looking only where a watch saw changes (the resident hook server)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from waymark.store.shelltrack import watch


@pytest.fixture(autouse=True, params=["scan", "watch"])
def post_by(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    if request.param == "watch":
        monkeypatch.setattr(watch, "_ACTIVE", watch.Watches())
    yield str(request.param)
    active = watch.active()
    if active is not None:
        active.close()

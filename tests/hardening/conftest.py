"""Hooks in these tests run as a host runs them: with the host's project-dir variable naming the
workspace (Claude Code and Qwen Code always set it), so a temp folder with no project marker
is still a trusted workspace. tests/hardening/test_hooks.py builds its own environment to test
the untrusted cases."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _host_names_the_project(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    if "workspace" in request.fixturenames:
        monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(request.getfixturevalue("workspace")))

"""Hooks in these tests run as a host runs them: with the host's project-dir variable naming the
workspace (Claude Code and Qwen Code always set it), so a temp folder with no project marker
is still a trusted workspace. tests/hardening/test_hooks.py builds its own environment to test
the untrusted cases."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from helpers_hook_server import Servers, state_of, stop_servers
from waymark.doors import hook_relay


@pytest.fixture(autouse=True)
def _host_names_the_project(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    if "workspace" in request.fixturenames:
        monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(request.getfixturevalue("workspace")))


@pytest.fixture
def servers(monkeypatch: pytest.MonkeyPatch) -> Iterator[Servers]:
    """Tests of the resident hook server opt in; every server they start is killed at the end."""
    monkeypatch.delenv(hook_relay.ENV_SWITCH)
    started = Servers()
    started.states.append(state_of(dict(os.environ)))
    try:
        yield started
    finally:
        for state in started.states:
            stop_servers(state)

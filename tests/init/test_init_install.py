"""``waymark init`` as a person runs it after installing: through a ``waymark`` linked onto
PATH (pipx, uv), in a git repository. What it writes a team can commit; what is one person's
stays out of ``git status``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from helpers_commands import init

pytestmark = pytest.mark.timeout(120)


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True, timeout=30
    ).stdout


@pytest.fixture
def linked(tmp_path: Path) -> Path:
    """A ``bin`` folder on PATH holding only a link to this install's ``waymark``, as pipx
    and uv make ~/.local/bin/waymark."""
    bin_dir = tmp_path / "local-bin"
    bin_dir.mkdir()
    (bin_dir / "waymark").symlink_to(Path(sys.executable).parent / "waymark")
    return bin_dir


def test_a_linked_waymark_is_written_as_waymark(workspace: Path, linked: Path) -> None:
    env = {**os.environ, "PATH": f"{linked}:/usr/bin:/bin"}
    for host in ("claude-code", "codex", "gemini-cli", "opencode"):
        done = subprocess.run(
            [str(linked / "waymark"), "init", host],
            cwd=workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
    mcp = json.loads((workspace / ".mcp.json").read_text())["mcpServers"]["waymark"]
    assert (mcp["command"], mcp["args"]) == ("waymark", ["mcp"])
    codex = tomllib.loads((workspace / ".codex" / "config.toml").read_text())
    assert codex["mcp_servers"]["waymark"]["command"] == "waymark"
    gemini = json.loads((workspace / ".gemini" / "settings.json").read_text())
    assert gemini["mcpServers"]["waymark"]["command"] == "waymark"
    opencode = json.loads((workspace / "opencode.json").read_text())
    assert opencode["mcp"]["waymark"]["command"] == ["waymark", "mcp"]
    # No machine's private path in anything a team commits.
    for path in workspace.rglob("*"):
        if path.is_file():
            assert str(Path(sys.executable).parent) not in path.read_text(), path


def test_the_personal_settings_stay_out_of_git_status(workspace: Path) -> None:
    _git(workspace, "init", "-q")
    assert init(workspace, "claude-code").returncode == 0
    assert _git(workspace, "status", "--porcelain", "--untracked-files=all") == "?? .mcp.json\n"
    assert init(workspace, "claude-code").returncode == 0
    exclude = (workspace / ".git" / "info" / "exclude").read_text()
    assert exclude.count("/.claude/settings.local.json\n") == 1


def test_in_a_subfolder_of_a_repository_the_pattern_is_the_subfolders(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    project = repo / "app [1]"
    project.mkdir(parents=True)
    _git(repo, "init", "-q")
    assert init(project, "claude-code").returncode == 0
    assert _git(repo, "status", "--porcelain", "--untracked-files=all") == (
        '?? "app [1]/.mcp.json"\n'
    )
    assert (
        "/app \\[1]/.claude/settings.local.json\n"
        in (repo / ".git" / "info" / "exclude").read_text()
    )


def test_a_file_the_team_tracks_is_left_to_the_team(workspace: Path) -> None:
    _git(workspace, "init", "-q")
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.local.json").write_text("{}")
    _git(workspace, "add", ".claude/settings.local.json")
    before = (workspace / ".git" / "info" / "exclude").read_text()
    assert init(workspace, "claude-code").returncode == 0
    assert (workspace / ".git" / "info" / "exclude").read_text() == before

"""Every command of the README's Install section, run as written, as a new user would: in a
fresh copy of the repository, with a fresh home, pipx and uv on PATH and nothing of ours.

Blocks are marked in README.md by a ``<!-- install-test: NAME -->`` line right before them;
the VS Code block is run by vscode-extension/scripts/test.sh (it needs npm and code-server).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"<!-- install-test: ([\w-]+) -->\n```sh\n(.*?)```", re.S)
RUN_ELSEWHERE = {"vscode"}

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def install_section() -> str:
    readme = (ROOT / "README.md").read_text()
    start = readme.index("\n## Install\n")
    end = readme.index("\n## ", start + 1)
    return readme[start:end]


def blocks() -> dict[str, str]:
    return dict(BLOCK.findall(install_section()))


def test_every_command_block_of_the_install_section_is_tested() -> None:
    fenced = install_section().count("```sh\n")
    assert fenced == len(blocks()) >= 4, "mark every ```sh block with <!-- install-test: NAME -->"
    tested = {n.removeprefix("test_").replace("_", "-") for n in globals() if n.startswith("test_")}
    assert set(blocks()) - RUN_ELSEWHERE <= tested


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh clone: the tracked and new files of this checkout."""
    clone = tmp_path_factory.mktemp("clone") / "waymark"
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file() and not source.is_symlink():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, clone / name)
    return clone


@pytest.fixture
def user(clone: Path, tmp_path: Path) -> dict[str, Path]:
    """A new user: a home with a toy project, a PATH holding only pipx, uv and the system."""
    base = tmp_path
    home = base / "home"
    (home / "my-project").mkdir(parents=True)
    (home / "my-project" / "app.py").write_text("print('hi')\n")
    tools = base / "tools"
    tools.mkdir()
    for tool in ("pipx", "uv"):
        found = shutil.which(tool, path=str(Path(sys.executable).parent)) or shutil.which(tool)
        assert found, f"{tool} missing: run `source scripts/setup.sh test`"
        (tools / tool).symlink_to(found)
    return {"clone": clone, "home": home, "tools": tools}


def run_block(name: str, user: dict[str, Path]) -> subprocess.CompletedProcess[str]:
    dropped = ("PYTHONPATH", "VIRTUAL_ENV", "PIPX_", "UV_", "XDG_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(dropped)}
    env["HOME"] = str(user["home"])
    env["PATH"] = os.pathsep.join([str(user["home"] / ".local/bin"), str(user["tools"])])
    env["PATH"] += os.pathsep + "/usr/local/bin:/usr/bin:/bin"
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", blocks()[name]],
        cwd=user["clone"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"README block {name!r} failed:\n{done.stdout}\n{done.stderr}"
    return done


def answered_version(done: subprocess.CompletedProcess[str], user: dict[str, Path]) -> None:
    assert "waymark 0.1.0" in done.stdout.splitlines()
    assert (user["home"] / ".local/bin/waymark").exists()


def test_agent_hosts_pipx(user: dict[str, Path]) -> None:
    done = run_block("agent-hosts-pipx", user)
    answered_version(done, user)
    project = user["home"] / "my-project"
    mcp = json.loads((project / ".mcp.json").read_text())["mcpServers"]["waymark"]
    # Hooks go to the local (uncommitted) settings: a teammate without Waymark is not affected.
    settings = json.loads((project / ".claude" / "settings.local.json").read_text())
    hook = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    # The `waymark` pipx linked onto PATH, not the path of its private venv: a team commits
    # .mcp.json, and every teammate's install answers to that name.
    assert (mcp["command"], mcp["args"]) == ("waymark", ["mcp"])
    assert "if command -v waymark " in hook and "then waymark hook claude-code;" in hook
    pipx_venv = user["home"] / ".local/share/pipx/venvs/waymark-edits"
    for config in (project / ".mcp.json", project / ".claude" / "settings.local.json"):
        assert str(pipx_venv) not in config.read_text()
    answered = subprocess.run(
        ["bash", "-c", "waymark --help"],
        env={**os.environ, "PATH": f"{user['home'] / '.local/bin'}:/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert answered.returncode == 0, answered.stderr


def test_agent_hosts_uv(user: dict[str, Path]) -> None:
    done = run_block("agent-hosts-uv", user)
    answered_version(done, user)
    assert (user["home"] / ".local/share/uv/tools/waymark-edits").is_dir()


def test_agent_hosts_wheel(user: dict[str, Path]) -> None:
    done = run_block("agent-hosts-wheel", user)
    answered_version(done, user)
    # A wheel for this platform, with the compiled core built in (the machine has a compiler).
    (wheel,) = (user["clone"] / "dist").glob("waymark_edits-*.whl")
    assert not wheel.name.endswith("-none-any.whl"), wheel.name
    with zipfile.ZipFile(wheel) as archive:
        assert any(n.startswith("waymark/engine/_core.") for n in archive.namelist())


def test_other_editors(user: dict[str, Path]) -> None:
    done = run_block("other-editors", user)
    assert "waymark-ls" in done.stdout

"""The layers of docs/architecture.md hold, and the contracts that say so can fail.

``lint-imports`` (import-linter) reads the contracts in pyproject.toml. Each bad import
below is planted in a copy of the package; the contract it breaks must say so by name.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "language_server" / "waymark"
LINT = Path(sys.executable).with_name("lint-imports")


def _contracts() -> str:
    """pyproject.toml's import-linter tables, as a config of their own."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    start = text.index("[tool.importlinter]")
    following = re.search(r"^\[(?!\[?tool\.importlinter)", text[start:], re.M)
    return text[start : start + following.start()] if following else text[start:]


def _lint(cwd: Path, config: Path, src: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT), "--no-cache", str(config)],
        cwd=cwd,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(src)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_tree_keeps_every_contract() -> None:
    result = _lint(ROOT, ROOT / "pyproject.toml", ROOT / "language_server")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "BROKEN" not in result.stdout


# (module the bad import is planted in, the import, the contract that must catch it)
BAD_IMPORTS = [
    (
        "engine/text.py",
        "from waymark.doors import cli",
        "Layers: doors > commands > store > engine",
    ),
    ("store/session.py", "from waymark.commands import registry", "Layers: doors > commands"),
    ("commands/read.py", "import pygls.uris", "No pygls, lsprotocol or MCP below the doors"),
    ("store/files.py", "import mcp", "No pygls, lsprotocol or MCP below the doors"),
    ("doors/hooks/handlers.py", "import lsprotocol", "Only the LSP door imports pygls"),
    ("doors/cli.py", "import mcp", "Only the MCP door imports the MCP SDK"),
    # Through another door counts too: only the CLI's lazy verb imports are exceptions.
    ("doors/run.py", "from waymark.doors import mcp_server", "Only the MCP door imports"),
    ("doors/init.py", "from waymark.doors.lsp import server", "Only the LSP door imports pygls"),
    ("engine/anchors.py", "import os", "The engine does no I/O"),
]


@pytest.mark.parametrize(("module", "line", "contract"), BAD_IMPORTS)
def test_a_planted_bad_import_breaks_its_contract(
    tmp_path: Path, module: str, line: str, contract: str
) -> None:
    src = tmp_path / "src"
    shutil.copytree(PACKAGE, src / "waymark", ignore=shutil.ignore_patterns("__pycache__"))
    target = src / "waymark" / module
    target.write_text(
        target.read_text(encoding="utf-8") + f"\n{line}  # planted by test_layers\n",
        encoding="utf-8",
    )
    config = tmp_path / "contracts.toml"
    config.write_text(_contracts(), encoding="utf-8")
    result = _lint(tmp_path, config, src)
    assert result.returncode == 1, result.stdout + result.stderr
    # "<contract> BROKEN", or "<contract> BROKEN (2 ignored imports)" when it has exceptions.
    broken = [ln for ln in result.stdout.splitlines() if re.search(r" BROKEN( \(.*\))?$", ln)]
    assert any(ln.startswith(contract) for ln in broken), result.stdout


def test_every_door_opens_its_workspace_through_the_entry() -> None:
    """Only doors/entry.py builds a context, and only the context opens the history."""
    builders = {
        "CommandContext.create(": {"doors/entry.py", "commands/context.py"},
        "History.open(": {"commands/context.py"},
    }
    for call, allowed in builders.items():
        callers = {
            path.relative_to(PACKAGE).as_posix()
            for path in PACKAGE.rglob("*.py")
            if call in path.read_text(encoding="utf-8")
        }
        # commands/context.py defines CommandContext.create; its docstring may name it.
        assert callers <= allowed, f"{call} outside {sorted(allowed)}: {sorted(callers - allowed)}"

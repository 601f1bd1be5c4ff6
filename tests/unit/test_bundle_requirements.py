"""The .vsix's pinned libraries (vscode-extension/bundled/requirements.txt) are generated from
pyproject by scripts/bundle_requirements.py, with hashes, and are stale when pyproject moves."""

import json
import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
REQUIREMENTS = ROOT / "vscode-extension/bundled/requirements.txt"
# Needed by `waymark mcp`, `waymark init` and shell tracking (hooks, `waymark run`) only; the
# language server the extension starts never imports them.
NOT_BUNDLED = {"mcp", "tomlkit", "tree-sitter", "tree-sitter-bash"}
HASH = re.compile(r"--hash=sha256:[0-9a-f]{64}")


def _entries() -> list[str]:
    """One string per requirement, its continuation lines joined."""
    text = REQUIREMENTS.read_text().replace("\\\n", " ")
    return [line.strip() for line in text.splitlines() if line.strip() and line[0] != "#"]


def _bundled() -> dict[str, str]:
    pins = {}
    for entry in _entries():
        name, _, rest = entry.partition("==")
        pins[canonicalize_name(name)] = rest.split()[0]
    return pins


def _server_dependencies() -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return [
        spec
        for spec in project["dependencies"]
        if canonicalize_name(Requirement(spec).name) not in NOT_BUNDLED
    ]


def test_generated_from_the_current_pyproject() -> None:
    """Regenerate with `python scripts/bundle_requirements.py` when this fails."""
    recorded = next(
        line.removeprefix("# from pyproject: ")
        for line in REQUIREMENTS.read_text().splitlines()
        if line.startswith("# from pyproject: ")
    )
    assert json.loads(recorded) == _server_dependencies()


def test_every_server_dependency_is_bundled_at_an_allowed_version() -> None:
    pins = _bundled()
    for spec in _server_dependencies():
        requirement = Requirement(spec)
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{name} is a dependency but not in bundled/requirements.txt"
        assert requirement.specifier.contains(pins[name]), f"{name}=={pins[name]} violates {spec}"


def test_every_pin_is_exact_and_hashed() -> None:
    for entry in _entries():
        assert re.match(r"^[A-Za-z0-9_.-]+==[0-9][^ ]* ", entry), entry
        assert HASH.search(entry), f"no --hash=sha256: for {entry.split()[0]}"
        words = entry.split()[1:]
        assert all(HASH.fullmatch(w) for w in words), entry

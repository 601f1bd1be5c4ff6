"""The .vsix's pinned libraries (vscode-extension/bundled/requirements.txt) match pyproject."""

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
# Needed by `waymark mcp` and `waymark init` only; the language server the extension starts
# never imports them.
NOT_BUNDLED = {"mcp", "tomlkit"}


def _bundled() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "vscode-extension/bundled/requirements.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, version = line.partition("==")
            pins[canonicalize_name(name)] = version.strip()
    return pins


def test_every_server_dependency_is_bundled_at_an_allowed_version() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = _bundled()
    for spec in project["dependencies"]:
        requirement = Requirement(spec)
        name = canonicalize_name(requirement.name)
        if name in NOT_BUNDLED:
            continue
        assert name in pins, f"{name} is a dependency but not in bundled/requirements.txt"
        assert requirement.specifier.contains(pins[name]), f"{name}=={pins[name]} violates {spec}"


def test_every_pin_is_exact() -> None:
    assert all(version for version in _bundled().values())

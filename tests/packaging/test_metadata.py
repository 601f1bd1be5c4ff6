"""What the wheel says about itself: its licence, and dependency ranges a library can live with."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_the_licence_is_at_the_root_and_the_same_as_the_extensions() -> None:
    root = (ROOT / "LICENSE").read_text()
    assert root.startswith("MIT License\n")
    assert root == (ROOT / "vscode-extension" / "LICENSE.txt").read_text()


def test_the_licence_is_an_spdx_expression_with_its_file() -> None:
    assert PROJECT["license"] == "MIT"
    assert PROJECT["license-files"] == ["LICENSE"]


@pytest.mark.parametrize("spec", PROJECT["dependencies"])
def test_every_runtime_dependency_is_a_compatible_range(spec: str) -> None:
    """A library pinned exactly forces its pin on every environment it is installed into."""
    requirement = Requirement(spec)
    operators = sorted(s.operator for s in requirement.specifier)
    assert operators == ["<", ">="], f"{spec}: want >=LOW,<NEXT_MAJOR"


@pytest.mark.timeout(300)
def test_the_built_wheel_carries_the_licence_and_says_mit(tmp_path: Path) -> None:
    # Built from a copy: setuptools leaves build/ and *.egg-info next to the sources.
    source = tmp_path / "source"
    for name in ("pyproject.toml", "setup.py", "README.md", "LICENSE", "bin/waymark"):
        (source / name).parent.mkdir(exist_ok=True)
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(
        ROOT / "language_server",
        source / "language_server",
        ignore=shutil.ignore_patterns("*.pyc", "*.so"),  # the wheel builds its own core
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(tmp_path), "."],
        cwd=source,
        env=env,
        check=True,
        timeout=240,
    )
    (wheel,) = tmp_path.glob("waymark_edits-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
        metadata = archive.read(f"{info}/METADATA").decode()
        licence = archive.read(f"{info}/licenses/LICENSE").decode()
    assert licence == (ROOT / "LICENSE").read_text()
    # The `waymark` command is a script file (bin/waymark), not a generated entry point.
    assert any(n.endswith(".data/scripts/waymark") for n in names), names
    assert "License-Expression: MIT" in metadata.splitlines()
    assert "License-File: LICENSE" in metadata.splitlines()
    # The compiled core and the one-call walk, built for this machine (the test environment
    # has a compiler and xxhash.h), and so a wheel tagged for this platform, not a pure one.
    assert any(n.startswith("waymark/engine/_core.") and n.endswith(".so") for n in names), names
    assert any(n.startswith("waymark/store/_nofollow.") and n.endswith(".so") for n in names), names
    assert not wheel.name.endswith("-none-any.whl"), wheel.name

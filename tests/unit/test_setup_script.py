"""``source scripts/setup.sh``, the README tour's first line, in a person's interactive shell:
it puts the venv on PATH and leaves the shell's options and directory as they were."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _checkout(tmp_path: Path, python_exit: int) -> Path:
    """A checkout whose venv already exists; its python only records how pip was asked."""
    repo = tmp_path / "repo"
    (repo / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "setup.sh", repo / "scripts" / "setup.sh")
    python = repo / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f'#!/bin/sh\necho "$@" >> "{repo}/pip.log"\nexit {python_exit}\n')
    python.chmod(0o755)
    return repo


def _interactive(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "--norc", "--noprofile", "-i", "-c", script],
        cwd=cwd,
        env={"PATH": os.environ["PATH"], "HOME": str(cwd), "TERM": "dumb"},
        capture_output=True,
        text=True,
        timeout=60,
    )


SHOW = 'echo "errexit=$(shopt -qo errexit && echo on || echo off)"; pwd; echo "PATH=$PATH"; '


def test_sourcing_leaves_the_shell_as_it_was(tmp_path: Path) -> None:
    repo = _checkout(tmp_path, 0)
    here = tmp_path / "elsewhere"
    here.mkdir()
    result = _interactive(
        f"source {repo}/scripts/setup.sh test; echo status=$?; {SHOW}"
        f"source {repo}/scripts/setup.sh; {SHOW}"
        "false; echo the shell is still open",
        here,
    )
    out = result.stdout.splitlines()
    assert out[0] == "status=0", result.stderr
    assert out[1:3] == ["errexit=off", str(here)]
    assert out[3].startswith(f"PATH={repo}/.venv/bin:")
    assert out[6] == out[3], "sourced twice, the venv is on PATH once"
    assert out[-1] == "the shell is still open"
    assert "-r scripts/install-tools.txt" in (repo / "pip.log").read_text()


def test_a_failed_set_up_fails_the_source_line_only(tmp_path: Path) -> None:
    repo = _checkout(tmp_path, 1)
    result = _interactive(
        f"source {repo}/scripts/setup.sh; echo status=$?; {SHOW} false; echo still open",
        tmp_path,
    )
    out = result.stdout.splitlines()
    assert out[:3] == ["status=1", "errexit=off", str(tmp_path)]
    assert f"{repo}/.venv/bin" not in out[3]
    assert out[-1] == "still open"


def test_scripts_that_source_it_stop_on_its_failure(tmp_path: Path) -> None:
    repo = _checkout(tmp_path, 1)
    (repo / "scripts" / "run.sh").write_text(
        'set -euo pipefail\nsource "$(dirname "$0")/setup.sh"\necho not reached\n'
    )
    result = subprocess.run(
        ["bash", str(repo / "scripts" / "run.sh")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0 and "not reached" not in result.stdout

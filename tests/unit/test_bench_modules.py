"""Every module ``bench/run`` discovers answers the harness (a ``figures()``), and the editor
bridge's bench runs through it to the end."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from bench.harness import BENCH_DIR as BENCH
from bench.harness import discover

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("module", discover())
def test_every_bench_module_has_figures(module: str) -> None:
    tree = ast.parse((BENCH / f"{module}.py").read_text(encoding="utf-8"))
    names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert "figures" in names, f"bench/{module}.py has no figures(): bench/run stops on it"


@pytest.mark.timeout(300)
def test_bench_run_completes_the_bridge_bench(tmp_path: Path) -> None:
    out = tmp_path / "results.md"
    done = subprocess.run(
        [str(BENCH / "run"), "--only", "bridge_bench", "--output", str(out)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=280,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 figures" in done.stdout, done.stdout
    text = out.read_text(encoding="utf-8")
    assert "waymark.read, 200-line file, through the editor bridge" in text
    assert "Traceback" not in text and "has no attribute" not in text


def test_every_bench_module_imports() -> None:
    # A name moved between modules breaks a bench only when bench/run reaches it (the history
    # soak's `write_changes` did); importing each one here catches that in every test run.
    names = ", ".join(f"bench.{m}" for m in discover())
    done = subprocess.run(
        [sys.executable, "-c", f"import {names}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr

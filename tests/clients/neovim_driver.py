"""Run a Lua driver in a real headless Neovim and collect the steps it records."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

DRIVERS = Path(__file__).with_name("neovim")


def run_driver(
    driver: str, root: Path, tmp_path: Path, extra_env: dict[str, str], timeout: int
) -> dict[str, Any]:
    """Each step the driver appended to ``$WAYMARK_OUT``; fails with Neovim's stderr if any
    step recorded an error or Neovim exited non-zero."""
    nvim = shutil.which("nvim")
    assert nvim, "Neovim is not installed: `apt-get install -y neovim` (scripts/test.sh does)"
    out = tmp_path / "steps.jsonl"
    env = {
        **os.environ,
        "WAYMARK_ROOT": str(root),
        "WAYMARK_OUT": str(out),
        "WAYMARK_PYTHON": sys.executable,
        "WAYMARK_HISTORY": str(tmp_path / "history"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        **extra_env,
    }
    env.pop("WAYMARK_BRIDGE", None)
    proc = subprocess.run(
        [nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {DRIVERS / driver}"],
        env=env,
        capture_output=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    steps: dict[str, Any] = {}
    for line in out.read_text().splitlines():
        entry = json.loads(line)
        steps[entry["step"]] = entry["value"]
    assert "error" not in steps, (steps.get("error"), proc.stderr.decode())
    assert proc.returncode == 0, proc.stderr.decode()
    return steps

"""A real headless Neovim runs ``waymark-ls``; a terminal agent's change is asked in Neovim.

The agent is the ``waymark`` CLI started in the workspace (as a Neovim job, so Neovim keeps
answering the server). Neovim gets ``workspace/applyEdit`` with ``needsConfirmation`` each
time: declined → the agent reads ``declined`` and nothing changed; approved → buffer and disk.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

DRIVER = Path(__file__).with_name("neovim") / "bridge.lua"
ORIGINAL = b'greeting = "hello"\nprint(greeting)\n'


def test_neovim_is_asked_about_a_terminal_agents_change(tmp_path: Path) -> None:
    nvim = shutil.which("nvim")
    assert nvim, "Neovim is not installed: `apt-get install -y neovim` (scripts/test.sh does)"
    root = tmp_path / "ws"
    root.mkdir()
    (root / "main.py").write_bytes(ORIGINAL)
    out = tmp_path / "steps.jsonl"
    # Unix socket paths are short: the runtime dir lives right under /tmp.
    with tempfile.TemporaryDirectory(prefix="wm-nvim-") as runtime:
        env = {
            **os.environ,
            "WAYMARK_ROOT": str(root),
            "WAYMARK_OUT": str(out),
            "WAYMARK_PYTHON": sys.executable,
            "WAYMARK_HISTORY": str(tmp_path / "history"),
            "WAYMARK_AGENT_HISTORY": str(tmp_path / "agent-history"),
            "WAYMARK_RUNTIME_DIR": runtime,
            "XDG_STATE_HOME": str(tmp_path / "state"),
            "XDG_DATA_HOME": str(tmp_path / "data"),
            "XDG_CACHE_HOME": str(tmp_path / "cache"),
            "XDG_CONFIG_HOME": str(tmp_path / "config"),
        }
        env.pop("WAYMARK_BRIDGE", None)
        proc = subprocess.run(
            [nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {DRIVER}"],
            env=env,
            capture_output=True,
            timeout=180,
            stdin=subprocess.DEVNULL,
        )
    steps: dict[str, Any] = {}
    for line in out.read_text().splitlines():
        entry = json.loads(line)
        steps[entry["step"]] = entry["value"]
    assert "error" not in steps, (steps.get("error"), proc.stderr.decode())
    assert proc.returncode == 0, proc.stderr.decode()

    assert steps["read"]["via"] == "editor"
    declined = steps["declined"]
    assert (declined["ok"], declined["error"], declined["outcome"]) == (
        False,
        "declined",
        "declined",
    )
    assert steps["buffer_after_decline"][0] == 'greeting = "hello"'
    assert steps["disk_after_decline"].encode() == ORIGINAL
    applied = steps["applied"]
    assert (applied["ok"], applied["via"], applied["outcome"]) == (True, "editor", "applied")
    assert steps["buffer_after_apply"][0] == 'greeting = "hello, agent"'
    assert steps["disk_after_apply"].encode() == ORIGINAL.replace(b'"hello"', b'"hello, agent"')
    # The server's own approval is "auto"; a bridged change is still asked, both times. Neovim
    # 0.7 has no changeAnnotationSupport, so it gets the plain labelled edit.
    assert steps["asked"] == [{"label": "Waymark: replace", "needsConfirmation": []}] * 2

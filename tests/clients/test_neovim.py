"""A real headless Neovim (Debian ``neovim``, 0.7) drives ``waymark-ls``.

Read with anchors, an anchored edit approved through ``workspace/applyEdit`` (Neovim applies
it to the buffer; the file is saved with the new bytes), then a rewind restores the file and
the buffer.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

DRIVER = Path(__file__).with_name("neovim") / "drive.lua"
ORIGINAL = b'import sys\r\n\r\ngreeting = "hello"\r\nprint(greeting)\r\n'


def test_neovim_edit_save_and_rewind(tmp_path: Path) -> None:
    nvim = shutil.which("nvim")
    assert nvim, "Neovim is not installed: `apt-get install -y neovim` (scripts/test.sh does)"
    root = tmp_path / "ws"
    root.mkdir()
    (root / "main.py").write_bytes(ORIGINAL)
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
    }
    proc = subprocess.run(
        [nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {DRIVER}"],
        env=env,
        capture_output=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    steps: dict[str, Any] = {}
    for line in out.read_text().splitlines():
        entry = json.loads(line)
        steps[entry["step"]] = entry["value"]
    assert "error" not in steps, (steps.get("error"), proc.stderr.decode())
    assert proc.returncode == 0, proc.stderr.decode()

    assert [line["text"] for line in steps["read"]["lines"]][2] == 'greeting = "hello"'
    assert steps["edit"]["ok"] is True, steps["edit"]
    assert steps["buffer_after_edit"][2] == 'greeting = "hello, neovim"'
    assert steps["modified_after_reload"] is False
    edited = ORIGINAL.replace(b'"hello"', b'"hello, neovim"')
    assert steps["disk_after_edit"].encode() == edited
    assert steps["rewind"]["restored"] == ["main.py"], steps["rewind"]
    assert (root / "main.py").read_bytes() == ORIGINAL
    assert steps["buffer_after_rewind"][2] == 'greeting = "hello"'

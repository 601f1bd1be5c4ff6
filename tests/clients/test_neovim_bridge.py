"""A real headless Neovim runs ``waymark-ls``; a terminal agent's change is asked in Neovim.

The agent is the ``waymark`` CLI started in the workspace (as a Neovim job, so Neovim keeps
answering the server). Neovim gets ``workspace/applyEdit`` with ``needsConfirmation`` each
time: declined → the agent reads ``declined`` and nothing changed; approved → buffer and disk.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from .neovim_driver import run_driver

ORIGINAL = b'greeting = "hello"\nprint(greeting)\n'


def test_neovim_is_asked_about_a_terminal_agents_change(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "main.py").write_bytes(ORIGINAL)
    # Unix socket paths are short: the runtime dir lives right under /tmp.
    with tempfile.TemporaryDirectory(prefix="wm-nvim-") as runtime:
        extra = {
            "WAYMARK_AGENT_HISTORY": str(tmp_path / "agent-history"),
            "WAYMARK_RUNTIME_DIR": runtime,
        }
        steps = run_driver("bridge.lua", root, tmp_path, extra, timeout=180)

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

"""A real headless Neovim (Debian ``neovim``, 0.7) drives ``waymark-ls``.

Read with anchors, an anchored edit approved through ``workspace/applyEdit`` (Neovim applies
it to the buffer; the file is saved with the new bytes), then a rewind restores the file and
the buffer.
"""

from __future__ import annotations

from pathlib import Path

from .neovim_driver import run_driver

ORIGINAL = b'import sys\r\n\r\ngreeting = "hello"\r\nprint(greeting)\r\n'


def test_neovim_edit_save_and_rewind(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "main.py").write_bytes(ORIGINAL)
    steps = run_driver("drive.lua", root, tmp_path, {}, timeout=120)

    assert [line["text"] for line in steps["read"]["lines"]][2] == 'greeting = "hello"'
    assert steps["edit"]["ok"] is True, steps["edit"]
    assert steps["buffer_after_edit"][2] == 'greeting = "hello, neovim"'
    assert steps["modified_after_reload"] is False
    edited = ORIGINAL.replace(b'"hello"', b'"hello, neovim"')
    assert steps["disk_after_edit"].encode() == edited
    assert steps["rewind"]["restored"] == ["main.py"], steps["rewind"]
    assert (root / "main.py").read_bytes() == ORIGINAL
    assert steps["buffer_after_rewind"][2] == 'greeting = "hello"'

"""``waymark.patch`` with ``encoding``, as read, edit, replace and write take it: a patch of
a legacy-encoded file whose bytes do not tell their encoding applies to its decoded text and
writes the file's own bytes back, a file it creates is written in that encoding, and an
unknown encoding is refused with nothing written; through the CLI and ``waymark mcp``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from helpers_mcp import call, connect

pytestmark = pytest.mark.timeout(300)

# Too short for detection to tell: read without `encoding`, the € is an escaped byte.
PRICE = "Total: 12,50 €\nTVA: 20 %\n".encode("cp1252")
PATCH = (
    "--- a/price.txt\n+++ b/price.txt\n@@ -1,2 +1,2 @@\n-Total: 12,50 €\n+Total: 15 € (déjà payé)\n"
    " TVA: 20 %\n"
    "--- /dev/null\n+++ b/note.txt\n@@ -0,0 +1 @@\n+Reçu — merci\n"
)
PATCHED = "Total: 15 € (déjà payé)\nTVA: 20 %\n".encode("cp1252")
NOTE = "Reçu — merci\n".encode("cp1252")


def waymark(workspace: Path, *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "waymark", *args, "--json"],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=60,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_cli_patch_writes_the_declared_encodings_bytes(workspace: Path) -> None:
    (workspace / "price.txt").write_bytes(PRICE)
    (workspace / "fix.diff").write_text(PATCH, encoding="utf-8")
    assert waymark(workspace, "snapshot", "t1")["ok"]

    undeclared = waymark(workspace, "patch", "fix.diff")
    assert undeclared["error"] == "patch_failed"
    unknown = waymark(workspace, "patch", "fix.diff", "--encoding", "ebcdic")
    assert (unknown["error"], unknown["details"]["field"]) == ("invalid_params", "encoding")
    assert (workspace / "price.txt").read_bytes() == PRICE
    assert not (workspace / "note.txt").exists()

    done = waymark(workspace, "patch", "fix.diff", "--encoding", "windows-1252")
    assert done["ok"], done
    assert done["paths"] == ["price.txt", "note.txt"]
    assert (workspace / "price.txt").read_bytes() == PATCHED
    assert (workspace / "note.txt").read_bytes() == NOTE

    assert waymark(workspace, "rewind", "t1")["ok"]
    assert (workspace / "price.txt").read_bytes() == PRICE
    assert not (workspace / "note.txt").exists()


def test_a_file_the_patch_creates_takes_the_projects_declaration(workspace: Path) -> None:
    (workspace / ".editorconfig").write_text("[*.txt]\ncharset = latin1\n", encoding="utf-8")
    (workspace / "new.diff").write_text(
        "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+Grüße\n", encoding="utf-8"
    )
    done = waymark(workspace, "patch", "new.diff")
    assert done["ok"], done
    assert (workspace / "new.txt").read_bytes() == "Grüße\n".encode("latin-1")


async def test_mcp_patch_writes_the_declared_encodings_bytes(workspace: Path) -> None:
    (workspace / "price.txt").write_bytes(PRICE)
    async with connect(workspace) as session:
        err, text = await call(session, "waymark_patch", patch=PATCH)
        assert err
        assert text.startswith("patch_failed: ")
        assert (workspace / "price.txt").read_bytes() == PRICE
        err, text = await call(session, "waymark_patch", patch=PATCH, encoding="windows-1252")
        assert not err, text
    assert (workspace / "price.txt").read_bytes() == PATCHED
    assert (workspace / "note.txt").read_bytes() == NOTE

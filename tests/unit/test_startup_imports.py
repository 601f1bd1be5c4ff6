"""What the long-lived doors load before their first call: the sed engine, the notebook
parser and the patch parser come with the first command that needs them, not with start-up
(issue 43: `waymark mcp` and `waymark-ls` start within a tenth of a bare SDK server)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

DEFERRED = (
    "waymark.engine.sed.invocation",
    "waymark.engine.sed.apply",
    "waymark.engine.notebook",
    "waymark.engine.edits.patch",
    "unidiff",
)


def _loaded_after(code: str) -> set[str]:
    code += "\nimport sys\nprint(' '.join(sorted(sys.modules)))\n"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return set(proc.stdout.split())


@pytest.mark.parametrize("door", ["waymark.doors.mcp_server", "waymark.doors.lsp.server"])
def test_a_door_starts_without_the_engines_it_has_not_used(door: str) -> None:
    assert _loaded_after(f"import {door}") & set(DEFERRED) == set()


def test_the_first_sed_call_loads_the_sed_engine_and_runs(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"one\ntwo\n")
    code = (
        "from waymark.doors.cli import main\n"
        f"try:\n    main(['sed', 'sed -i s/one/1/ a.txt', '--root', {str(tmp_path)!r}])\n"
        "except SystemExit:\n    pass\n"
    )
    assert "waymark.engine.sed.apply" in _loaded_after(code)
    assert (tmp_path / "a.txt").read_bytes() == b"1\ntwo\n"


def _served_with(code: str) -> str:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


# The door's serving loop, replaced by a report of the collector as the loop would find it.
_REPORT = "lambda *a: print(gc.isenabled(), gc.get_freeze_count() > 10_000)"


def test_waymark_ls_serves_with_the_collector_on_and_its_imports_frozen() -> None:
    code = (
        "import gc, sys\n"
        "import waymark.doors.lsp as door\n"
        "import waymark.doors.lsp.server as server\n"
        f"server.main = {_REPORT}\n"
        "door.main([])\n"
    )
    assert _served_with(code) == "True True"


def test_waymark_mcp_serves_with_the_collector_on_and_its_imports_frozen(tmp_path: Path) -> None:
    code = (
        "import gc, sys\n"
        "import waymark.doors.mcp_server as server\n"
        f"server.main = {_REPORT}\n"
        "from waymark.doors.launch import main\n"
        f"main(['mcp', '--workspace', {str(tmp_path)!r}])\n"
    )
    assert _served_with(code) == "True True"

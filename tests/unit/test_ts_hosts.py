"""The hosts the VS Code extension offers to set up are exactly the host table's."""

from __future__ import annotations

from pathlib import Path

from waymark.doors import hosts_export
from waymark.doors.hosts import HOSTS

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "vscode-extension" / "src" / "generated" / "hosts.ts"


def test_committed_module_is_regenerated() -> None:
    assert COMMITTED.read_text(encoding="utf-8") == hosts_export.typescript(), (
        f"{COMMITTED.relative_to(ROOT)} is stale: run `cd vscode-extension && npm run gen-spec` "
        f"(or `{hosts_export.REGENERATE}` from the repository root) and commit it."
    )


def test_every_host_is_offered_with_its_name() -> None:
    offered = hosts_export.init_hosts()
    assert [h["id"] for h in offered] == list(HOSTS)
    assert all(h["label"] and h["detail"] for h in offered), offered
    assert offered[0] == {
        "id": "claude-code",
        "label": "Claude Code",
        "detail": "MCP server, and hooks that back up its own edits and shell commands",
    }
    assert offered[-1]["detail"] == (
        "Hooks that back up its own edits and shell commands; its MCP server with "
        "waymark init cline --user"
    )


def test_the_cli_writes_the_same_bytes(tmp_path: Path) -> None:
    out = tmp_path / "generated" / "hosts.ts"
    assert hosts_export.main(["--ts", str(out)]) == 0
    assert out.read_bytes() == hosts_export.typescript().encode("utf-8")

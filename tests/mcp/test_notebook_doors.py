"""``waymark.notebookEdit`` through the MCP server (the SDK's client over stdio), the CLI and
the host hook: the same batch gives the same bytes on every door, refusals write nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import nbformat
import pytest
from test_mcp_protocol import call, connect

from helpers_commands import cli
from helpers_hooks import hook, pre_tool

pytestmark = pytest.mark.timeout(120)

FIXTURES = Path(__file__).parent.parent / "fixtures" / "notebooks"
OPS: list[dict[str, Any]] = [
    {"op": "replace_cell", "cell": 3, "source": "print('edited')"},
    {"op": "insert_cell", "source": "# Top", "cell_type": "markdown"},
    {"op": "delete_cell", "cell": 4},
    {"op": "insert_cell", "cell": 8, "source": "x = 1"},
]


def put(workspace: Path, name: str, fixture: str) -> Path:
    path = workspace / name
    shutil.copyfile(FIXTURES / fixture, path)
    return path


def valid(data: bytes) -> Any:
    nb = nbformat.reads(data.decode("utf-8"), as_version=nbformat.NO_CONVERT)
    nbformat.validate(nb)
    return nb


def without_new_ids(data: bytes) -> dict[str, Any]:
    """The notebook with the random ids of inserted cells blanked (the rest compared as is)."""
    nb = json.loads(data)
    for cell in nb["cells"]:
        if cell.get("id") not in {
            "2fcdfa53",
            "0bc81532",
            "bb687f78",
            "38f37a24",
            "a1f70963",
            "8206b3b9",
            "88d8965b",
            "34334c4f",
            "8b414a68",
        }:
            cell.pop("id", None)
    return dict(nb)


async def test_mcp_and_cli_give_the_same_notebook(workspace: Path) -> None:
    by_mcp = put(workspace, "mcp.ipynb", "jupyter-4.5.ipynb")
    by_cli = put(workspace, "cli.ipynb", "jupyter-4.5.ipynb")
    async with connect(workspace) as session:
        err, text = await call(session, "waymark_read", path="mcp.ipynb")
        assert not err
        assert text.startswith("Jupyter notebook mcp.ipynb: nbformat 4.5, 9 cells")
        assert (
            "\n## [3] id=38f37a24 code run 1\n     1\tfrom __future__ import annotations\n" in text
        )
        err, text = await call(session, "waymark_notebook_edit", path="mcp.ipynb", operations=OPS)
        assert not err, text
        answer = json.loads(text)
        assert answer["cells"][2] == {"op": "delete_cell", "cell": 4, "id": "a1f70963"}
        err, text = await call(
            session, "waymark_notebook_edit", path="mcp.ipynb", operations=[{"op": "x"}]
        )
        assert err and text.startswith(
            "invalid_params: operations[0].op must be one of replace_cell, insert_cell, "
            "delete_cell."
        )
    assert cli(workspace, "read", "cli.ipynb")["ok"]
    done = cli(workspace, "notebook-edit", "cli.ipynb", "--operations", json.dumps(OPS))
    assert done["ok"], done
    mcp_bytes, cli_bytes = by_mcp.read_bytes(), by_cli.read_bytes()
    valid(mcp_bytes)
    valid(cli_bytes)
    assert without_new_ids(mcp_bytes) == without_new_ids(cli_bytes)
    nb = valid(cli_bytes)
    assert [c.cell_type for c in nb.cells][:2] == ["markdown", "markdown"]
    assert nb.cells[4].source == "print('edited')" and nb.cells[4].outputs == []


def test_cli_refusals_write_nothing(workspace: Path) -> None:
    path = put(workspace, "nb.ipynb", "jupyter-4.4.ipynb")
    before = path.read_bytes()
    assert cli(workspace, "read", "nb.ipynb")["ok"]
    missing = cli(
        workspace, "notebook-edit", "nb.ipynb", "--ops", '[{"op": "delete_cell", "cell": "abc"}]'
    )
    assert missing["error"] == "cell_not_found"
    assert missing["message"] == (
        'operations[0].cell: "abc": this nbformat 4.4 notebook has no cell ids; use the '
        "cell's 0-based index"
    )
    overlap = cli(
        workspace,
        "notebook-edit",
        "nb.ipynb",
        "--ops",
        '[{"op": "delete_cell", "cell": 0}, {"op": "replace_cell", "cell": 0, "source": "a"}]',
    )
    assert overlap["error"] == "operations_overlap"
    assert path.read_bytes() == before


def test_hook_still_backs_up_the_hosts_own_notebook_edit(workspace: Path) -> None:
    path = put(workspace, "nb.ipynb", "jupyter-4.5.ipynb")
    before = path.read_bytes()
    hook(
        "claude-code",
        workspace,
        {"hook_event_name": "UserPromptSubmit", "prompt": "p", "prompt_id": "p1"},
    )
    pre = pre_tool("NotebookEdit", notebook_path=str(path), new_source="x", cell_id="38f37a24")
    assert hook("claude-code", workspace, pre)[0] is None
    path.write_bytes(before.replace(b'"print(\\"hello\\")"', b'"x"'))  # the host's own tool
    assert hook("claude-code", workspace, {**pre, "hook_event_name": "PostToolUse"})[0] is None
    assert path.read_bytes() != before
    assert cli(workspace, "rewind", "p1")["ok"]
    assert path.read_bytes() == before


# -- issue 38, class 9: a notebook keeps its line endings and holds only valid Unicode ------------


async def test_a_crlf_notebook_stays_crlf_on_every_door(workspace: Path) -> None:
    crlf = (FIXTURES / "jupyter-4.5.ipynb").read_bytes().replace(b"\n", b"\r\n")
    by_mcp, by_cli = workspace / "mcp.ipynb", workspace / "cli.ipynb"
    by_mcp.write_bytes(crlf)
    by_cli.write_bytes(crlf)
    async with connect(workspace) as session:
        assert not (await call(session, "waymark_read", path="mcp.ipynb"))[0]
        err, text = await call(session, "waymark_notebook_edit", path="mcp.ipynb", operations=OPS)
        assert not err, text
    assert cli(workspace, "read", "cli.ipynb")["ok"]
    assert cli(workspace, "notebook-edit", "cli.ipynb", "--ops", json.dumps(OPS))["ok"]
    for path in (by_mcp, by_cli):
        data = path.read_bytes()
        assert b"\n" not in data.replace(b"\r\n", b""), path.name
        valid(data)
    assert without_new_ids(by_mcp.read_bytes()) == without_new_ids(by_cli.read_bytes())


@pytest.mark.parametrize("ensure_ascii", [True, False])
@pytest.mark.parametrize(
    ("op", "field"),
    [
        ({"op": "insert_cell", "source": "a\ud800b"}, "source"),
        ({"op": "replace_cell", "cell": 3, "source": "\udce9"}, "source"),
        ({"op": "delete_cell", "cell": "x\udfff"}, "cell"),
    ],
)
def test_a_lone_surrogate_in_a_cell_is_refused_at_the_cli(
    workspace: Path, ensure_ascii: bool, op: dict[str, Any], field: str
) -> None:
    path = workspace / "nb.ipynb"
    nb = json.loads((FIXTURES / "jupyter-4.5.ipynb").read_bytes())
    # An ASCII notebook would take the surrogate as a "\ud800" escape; any other cannot hold it.
    path.write_text(json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=ensure_ascii) + "\n")
    before = path.read_bytes()
    assert cli(workspace, "read", "nb.ipynb")["ok"]
    done = cli(workspace, "notebook-edit", "nb.ipynb", "--ops", json.dumps([op]))
    assert (done["ok"], done["error"]) == (False, "invalid_params"), done
    assert done["message"].startswith(
        f"The parameter `--operations[0].{field}` holds a lone surrogate (U+"
    )
    assert done["message"].endswith("; send the text as valid Unicode.")
    assert path.read_bytes() == before

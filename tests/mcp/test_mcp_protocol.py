"""``waymark mcp`` through the MCP SDK's own client over stdio: a real server process."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession

from helpers_commands import cli
from helpers_mcp import connect
from waymark.commands.registry import tools

pytestmark = pytest.mark.timeout(120)


async def call(session: ClientSession, tool: str, **arguments: Any) -> tuple[bool, str]:
    """(is_error, the text the model reads)."""
    result = await session.call_tool(tool, arguments)
    assert result.structured_content is None
    assert [c.type for c in result.content] == ["text"]
    return bool(result.is_error), result.content[0].text  # type: ignore[union-attr]


async def ok(session: ClientSession, tool: str, **arguments: Any) -> None:
    err, text = await call(session, tool, **arguments)
    assert not err, text


def anchor(read_text: str, line: int) -> str:
    match = re.search(rf"^{line}#([0-9a-z.]+)~?\|", read_text, re.M)
    assert match, read_text
    return match.group(1)


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


async def test_tools_listed_with_the_one_specs_names_and_schemas(workspace: Path) -> None:
    async with connect(workspace) as session:
        listed = (await session.list_tools()).tools
    spec = tools()
    assert [t.name for t in listed] == [t["name"] for t in spec]
    for tool, want in zip(listed, spec, strict=True):
        assert tool.description == want["description"]
        assert tool.input_schema == want["inputSchema"]
        assert tool.output_schema is None


async def test_every_tool_called_and_both_rewinds_restore_bytes(workspace: Path) -> None:
    a = workspace / "a.py"
    b = workspace / "b.txt"
    a.write_bytes(b"def f():\n    return 1\r\n\nprint(f())\n")
    b.write_bytes(b"alpha\nbeta\n")
    before = tree(workspace)
    async with connect(workspace) as session:
        err, text = await call(session, "waymark_snapshot", promptId="t1", label="first")
        assert not err and json.loads(text)["promptId"] == "t1"
        err, text = await call(session, "waymark_read", path="a.py", hashes=True)
        assert not err and text.startswith("1#")
        err, text = await call(
            session,
            "waymark_edit",
            path="a.py",
            operations=[{"op": "replace_line", "hash": anchor(text, 2), "content": "    return 2"}],
        )
        assert not err and json.loads(text)["path"] == "a.py"
        assert a.read_bytes() == b"def f():\n    return 2\r\n\nprint(f())\n"
        err, text = await call(session, "waymark_sed", command="sed -i 's/beta/gamma/' b.txt")
        assert not err and json.loads(text)["simulated"] is True
        assert b.read_bytes() == b"alpha\ngamma\n"
        assert (await call(session, "waymark_read", path="b.txt"))[1] == (
            "     1\talpha\n     2\tgamma\n"
        )
        await ok(session, "waymark_replace", path="b.txt", old_string="alpha", new_string="one")
        pairs = [
            {"old_string": "one", "new_string": "uno"},
            {"old_string": "gamma", "new_string": "dos"},
        ]
        await ok(session, "waymark_multi_replace", path="b.txt", edits=pairs)
        assert b.read_bytes() == b"uno\ndos\n"
        await ok(session, "waymark_write", path="new/c.md", content="# c\n")
        assert (workspace / "new" / "c.md").read_bytes() == b"# c\n"
        err, text = await call(session, "waymark_turns")
        assert not err and [t["promptId"] for t in json.loads(text)["turns"]] == ["t1"]
        err, text = await call(session, "waymark_diff_stats", promptId="t1")
        assert not err and "files" in json.loads(text)
        err, text = await call(session, "waymark_rewind", promptId="t1")
        assert not err, text
        assert tree(workspace) == before

    # The terminal in the same workspace sees the same turns and rewinds the same way.
    async with connect(workspace) as session:
        await call(session, "waymark_read", path="b.txt")
        await ok(session, "waymark_replace", path="b.txt", old_string="beta", new_string="BETA")
    turns = cli(workspace, "turns")["turns"]
    assert turns[0]["promptId"] == "t1"
    assert cli(workspace, "rewind", "t1")["ok"] is True
    assert tree(workspace) == before


async def test_rewind_of_chosen_files_conflicts_and_undo(workspace: Path) -> None:
    (workspace / "a.txt").write_bytes(b"a1\n")
    (workspace / "b.txt").write_bytes(b"b1\n")
    async with connect(workspace) as session:
        await ok(session, "waymark_snapshot", promptId="t1")
        for name in ("a", "b"):
            await ok(session, "waymark_read", path=f"{name}.txt")
            await ok(
                session,
                "waymark_replace",
                path=f"{name}.txt",
                old_string=f"{name}1",
                new_string="x",
            )
        (workspace / "b.txt").write_bytes(b"user\n")
        err, text = await call(session, "waymark_rewind", promptId="t1", paths=["a.txt", "b.txt"])
        assert not err, text
        result = json.loads(text)
        assert result["restored"] == ["a.txt"]
        assert result["conflicts"] == [{"path": "b.txt", "reason": "changed_since_agent_write"}]
        assert (workspace / "a.txt").read_bytes() == b"a1\n"
        assert (workspace / "b.txt").read_bytes() == b"user\n"
        err, text = await call(
            session, "waymark_rewind", promptId=result["undoPromptId"], paths=["a.txt"]
        )
        assert not err and json.loads(text)["restored"] == ["a.txt"], text
        assert (workspace / "a.txt").read_bytes() == b"x\n"
        err, text = await call(session, "waymark_rewind", promptId="t1", paths=["nope.txt"])
        assert err and text.startswith("invalid_params: nope.txt has no backup"), text


@pytest.mark.parametrize(
    ("tool", "arguments", "code"),
    [
        ("waymark_read", {}, "invalid_params"),
        ("waymark_read", {"path": "a.txt", "offset": 0}, "invalid_params"),
        ("waymark_read", {"path": "../outside.txt"}, "path_outside_workspace"),
        ("waymark_read", {"path": "missing.txt"}, "file_not_found"),
        ("waymark_edit", {"path": "a.txt", "operations": "nope"}, "invalid_params"),
        (
            "waymark_edit",
            {"path": "a.txt", "operations": [{"op": "delete_line", "hash": "abcdef"}]},
            "anchor_stale",
        ),
        (
            "waymark_replace",
            {"path": "a.txt", "old_string": "x", "new_string": ""},
            "read_required",
        ),
        ("waymark_write", {"path": "a.txt", "content": "x"}, "read_required"),
        ("waymark_rewind", {"promptId": "never"}, "unknown_prompt"),
        ("waymark_nonexistent", {}, "invalid_params"),
    ],
)
async def test_bad_calls_are_tool_errors_and_write_nothing(
    workspace: Path, tool: str, arguments: dict[str, Any], code: str
) -> None:
    (workspace / "a.txt").write_bytes(b"one\ntwo\n")
    before = tree(workspace)
    async with connect(workspace) as session:
        err, text = await call(session, tool, **arguments)
    assert err
    assert text.startswith(f"{code}: "), text
    assert tree(workspace) == before


async def test_a_refusal_names_the_next_step_as_a_tool(workspace: Path) -> None:
    (workspace / "a.txt").write_bytes(b"one\n")
    async with connect(workspace) as session:
        _, unread = await call(session, "waymark_write", path="a.txt", content="x")
        _, unknown = await call(session, "waymark_rewind", promptId="never")
    assert "read it with waymark_read first" in unread and "waymark.read" not in unread
    assert "list the turns with waymark_turns" in unknown

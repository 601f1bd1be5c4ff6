"""The command spec: one record per command feeds execute, the CLI and every tool door."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import attrs
import pytest

from waymark.commands.context import CommandContext, load_options
from waymark.commands.registry import COMMANDS, TOOLS, execute, tools
from waymark.commands.schema import is_hidden

# The tool names are a public contract (MCP hosts and the VS Code manifest key on them).
NAMES = [
    "waymark_read",
    "waymark_edit",
    "waymark_replace",
    "waymark_multi_replace",
    "waymark_write",
    "waymark_sed",
    "waymark_patch",
    "waymark_notebook_edit",
    "waymark_snapshot",
    "waymark_turns",
    "waymark_diff_stats",
    "waymark_rewind",
]


def test_tool_names_are_stable_and_unique() -> None:
    assert [t["name"] for t in tools()] == NAMES
    assert all(
        set(t) == {"name", "command", "description", "inputSchema", "mutating"} for t in tools()
    )
    assert all(t["description"].strip() for t in tools())


def test_every_schema_is_its_params_class() -> None:
    for name, command in TOOLS.items():
        schema = command.input_schema()
        visible = [f.name for f in attrs.fields(command.params) if not is_hidden(f)]
        assert schema["type"] == "object" and schema["additionalProperties"] is False, name
        assert list(schema["properties"]) == visible, name
        assert set(schema["required"]) <= set(visible), name


def _ctx(root: Path) -> CommandContext:
    options, _ = load_options({"historyDir": str(root / ".hist"), "sessionId": "spec"})
    return CommandContext.create([root], options)


@pytest.mark.parametrize("name", NAMES)
def test_a_missing_required_param_is_the_one_the_handler_names(name: str, tmp_path: Path) -> None:
    command = TOOLS[name]
    required = command.input_schema()["required"]
    result: dict[str, Any] = asyncio.run(execute(_ctx(tmp_path), command.id, {}))
    if required:
        assert result["error"] == "invalid_params"
        assert result["details"]["field"] in required
    else:
        assert result["ok"] is True


def test_mutating_flag_matches_what_the_command_does() -> None:
    mutating = {c.tool for c in TOOLS.values() if c.mutating}
    assert mutating == {
        "waymark_edit",
        "waymark_replace",
        "waymark_multi_replace",
        "waymark_write",
        "waymark_sed",
        "waymark_patch",
        "waymark_notebook_edit",
        "waymark_rewind",
    }
    assert (
        COMMANDS["waymark.applyPending"].mutating and COMMANDS["waymark.applyPending"].tool is None
    )


def test_read_and_edit_descriptions_carry_the_guidance() -> None:
    read = TOOLS["waymark_read"].description or ""
    edit = TOOLS["waymark_edit"].description or ""
    for text in (read, edit):
        assert "Line numbers are advisory; the hash is the identity." in text
        assert "must_refresh_from_line" in text
    assert "LINE#HASH~|" in read
    for op in (
        "replace_line",
        "replace_range",
        "insert_after",
        "insert_before",
        "delete_line",
        "delete_range",
        "occurrence",
        "anchor_low_entropy",
        "operations_overlap",
        "invalid_range_order",
        "auto_corrections",
        "anchor_stale",
        "one file at a time",
    ):
        assert op in edit or op in read, op
    assert "Several files" in edit


def test_edit_schema_enumerates_the_six_ops() -> None:
    item = TOOLS["waymark_edit"].input_schema()["properties"]["operations"]["items"]
    assert item["properties"]["op"]["enum"] == [
        "replace_line",
        "replace_range",
        "insert_after",
        "insert_before",
        "delete_line",
        "delete_range",
    ]


def test_other_descriptions_state_their_contracts() -> None:
    by_name = {t["name"]: t["description"] for t in tools()}
    assert "file_changed_since_read" in by_name["waymark_replace"]
    assert "read_required" in by_name["waymark_write"]
    assert "simulated:false" in by_name["waymark_sed"]
    assert "undoPromptId" in by_name["waymark_rewind"]
    assert "conflicts" in by_name["waymark_rewind"]

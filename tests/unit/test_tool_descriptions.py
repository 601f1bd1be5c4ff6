"""The single source of model-facing tool descriptions and schemas."""

from __future__ import annotations

from waymark.tool_descriptions import TOOLS, describe_tools

EXPECTED = {
    "waymark_read": ("waymark.read", ["path"], {"path", "hashes", "offset", "limit"}),
    "waymark_edit": ("waymark.edit", ["path", "operations"], {"path", "operations", "preview"}),
    "waymark_replace": (
        "waymark.replace",
        ["path", "old_string", "new_string"],
        {"path", "old_string", "new_string", "expected_replacements", "preview"},
    ),
    "waymark_multi_replace": (
        "waymark.multiReplace",
        ["path", "edits"],
        {"path", "edits", "preview"},
    ),
    "waymark_write": ("waymark.write", ["path", "content"], {"path", "content", "preview"}),
    "waymark_sed": ("waymark.sed", ["command"], {"command", "cwd", "preview"}),
    "waymark_snapshot": ("waymark.snapshot", ["promptId"], {"promptId", "label"}),
    "waymark_turns": ("waymark.turns", [], set()),
    "waymark_rewind": (
        "waymark.rewind",
        ["promptId"],
        {"promptId", "option", "preview", "force"},
    ),
}


def test_every_tool_has_its_name_command_and_schema() -> None:
    assert [t.name for t in TOOLS] == list(EXPECTED)
    for tool in TOOLS:
        command, required, properties = EXPECTED[tool.name]
        assert tool.command == command
        assert tool.input_schema["type"] == "object"
        assert tool.input_schema["required"] == required
        assert set(tool.input_schema["properties"]) == properties
        assert tool.description.strip()


def test_describe_tools_shape() -> None:
    described = describe_tools()
    assert [d["name"] for d in described] == list(EXPECTED)
    assert all(set(d) == {"name", "command", "description", "inputSchema"} for d in described)


def test_read_and_edit_descriptions_carry_the_guidance() -> None:
    read = TOOLS[0].description
    edit = TOOLS[1].description
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
    item = TOOLS[1].input_schema["properties"]["operations"]["items"]
    assert item["properties"]["op"]["enum"] == [
        "replace_line",
        "replace_range",
        "insert_after",
        "insert_before",
        "delete_line",
        "delete_range",
    ]


def test_other_descriptions_state_their_contracts() -> None:
    by_name = {t.name: t.description for t in TOOLS}
    assert "file_changed_since_read" in by_name["waymark_replace"]
    assert "read_required" in by_name["waymark_write"]
    assert "simulated:false" in by_name["waymark_sed"]
    assert "undoPromptId" in by_name["waymark_rewind"]
    assert "conflicts" in by_name["waymark_rewind"]

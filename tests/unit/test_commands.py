"""The command layer in-process: every error path answers its exact code and writes nothing."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from helpers_commands import Agent, put
from waymark.commands.context import CommandContext, load_options
from waymark.commands.registry import COMMANDS, Command, UnknownCommand, execute
from waymark.commands.sed import MAX_LINE_BYTES
from waymark.doors.lsp.edits import WorkspaceEdits, lsp_result


@pytest.fixture
def agent(workspace: Path, tmp_path: Path) -> Agent:
    return Agent(workspace, tmp_path / "history")


def assert_error(result: dict[str, Any], code: str) -> None:
    assert result["ok"] is False, result
    assert result["error"] == code, result
    assert result["message"].endswith("."), result


# -- read -------------------------------------------------------------------------------------


async def test_read_reports_lines_encoding_and_eol(agent: Agent) -> None:
    put(agent.root, "a.txt", b"\xef\xbb\xbfone\r\ntwo\r\nthree")
    result = await agent("read", path="a.txt", offset=2, limit=1)
    assert result["lines"] == [{"line": 2, "text": "two"}]
    assert result["text"] == "     2\ttwo\n"
    assert (result["totalLines"], result["encoding"], result["bom"]) == (3, "utf-8", True)
    assert (result["eol"], result["finalNewline"]) == ("crlf", False)


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({}, "path"),
        ({"path": 3}, "path"),
        ({"path": "a.txt", "offset": 0}, "offset"),
        ({"path": "a.txt", "limit": 0}, "limit"),
        ({"path": "a.txt", "hashes": "yes"}, "hashes"),
    ],
)
async def test_read_bad_params_name_the_field(
    agent: Agent, params: dict[str, Any], field: str
) -> None:
    put(agent.root, "a.txt", b"x\n")
    result = await agent("read", **params)
    assert_error(result, "invalid_params")
    assert result["details"]["field"] == field
    assert f"`{field}`" in result["message"]


async def test_read_errors(agent: Agent, tmp_path: Path) -> None:
    put(agent.root, "bin.dat", b"PK\x00\x01")
    (agent.root / "dir").mkdir()
    put(agent.root, ".git/config", b"[core]\n")
    outside = put(tmp_path, "outside.txt", b"secret\n")
    os.symlink(outside, agent.root / "link.txt")
    assert_error(await agent("read", path="missing.txt"), "file_not_found")
    assert_error(await agent("read", path="dir"), "is_directory")
    assert_error(await agent("read", path="bin.dat"), "binary_file")
    assert_error(await agent("read", path=".git/config"), "protected_path")
    assert_error(await agent("read", path="../outside.txt"), "path_outside_workspace")
    assert_error(await agent("read", path="link.txt"), "path_outside_workspace")
    assert_error(await agent("read", path=str(outside)), "path_outside_workspace")


async def test_file_too_large_uses_the_configured_limit(workspace: Path, tmp_path: Path) -> None:
    agent = Agent(workspace, tmp_path / "h", maxFileSize=10)
    put(workspace, "big.txt", b"x" * 11)
    result = await agent("read", path="big.txt")
    assert_error(result, "file_too_large")
    assert result["details"]["limit"] == 10


# -- replace / write: read-before-write and staleness ------------------------------------------


async def test_replace_requires_a_read_and_writes_nothing(agent: Agent) -> None:
    path = put(agent.root, "a.txt", b"alpha\nbeta\n")
    assert_error(
        await agent("replace", path="a.txt", old_string="beta", new_string="gamma"), "read_required"
    )
    assert path.read_bytes() == b"alpha\nbeta\n"


async def test_replace_after_an_external_change_is_refused(agent: Agent) -> None:
    path = put(agent.root, "a.txt", b"alpha\nbeta\n")
    await agent("read", path="a.txt")
    path.write_bytes(b"alpha\nbeta\nuser line\n")
    result = await agent("replace", path="a.txt", old_string="beta", new_string="gamma")
    assert_error(result, "file_changed_since_read")
    assert path.read_bytes() == b"alpha\nbeta\nuser line\n"


async def test_replace_keeps_crlf_and_counts_as_a_read(agent: Agent) -> None:
    path = put(agent.root, "a.txt", b"alpha\r\nbeta\r\n")
    await agent("read", path="a.txt")
    first = await agent("replace", path="a.txt", old_string="beta", new_string="gamma")
    assert first["ok"] and first["replacements"] == 1 and first["writer_type"] == "replace"
    second = await agent("replace", path="a.txt", old_string="alpha", new_string="ALPHA")
    assert second["ok"], second
    assert path.read_bytes() == b"ALPHA\r\ngamma\r\n"


async def test_write_creates_parents_and_overwrite_needs_a_read(agent: Agent) -> None:
    created = await agent("write", path="new/dir/b.txt", content="hello\n")
    assert created["ok"] and created["action"] == "created"
    assert (agent.root / "new/dir/b.txt").read_bytes() == b"hello\n"
    put(agent.root, "c.txt", b"old\r\n")
    assert_error(await agent("write", path="c.txt", content="new\n"), "read_required")
    await agent("read", path="c.txt")
    updated = await agent("write", path="c.txt", content="new\n")
    assert updated["action"] == "updated"
    assert (agent.root / "c.txt").read_bytes() == b"new\r\n"


async def test_text_that_cannot_be_encoded_is_invalid_params(agent: Agent) -> None:
    path = put(agent.root, "a.txt", b"alpha\n")
    await agent("read", path="a.txt")
    result = await agent("replace", path="a.txt", old_string="alpha", new_string="\ud800")
    assert_error(result, "invalid_params")
    assert result["details"]["field"] == "new_string"
    preview = await agent("replace", path="a.txt", old_string="alpha", new_string="b", preview=True)
    result = await agent("applyPending", token=preview["token"], newContent="x\ud800")
    assert_error(result, "invalid_params")
    assert path.read_bytes() == b"alpha\n"


async def test_reversed_range_is_swapped_only_on_the_text_the_agent_read(agent: Agent) -> None:
    path = put(agent.root, "a.py", b"def one():\n    return 1\n\ndef two():\n    return 2\n")
    lines = (await agent("read", path="a.py", hashes=True))["lines"]
    reversed_range = {
        "op": "replace_range",
        "start_hash": lines[1]["hash"],
        "end_hash": lines[0]["hash"],
        "content": "def one():\n    return 11",
    }
    done = await agent("edit", path="a.py", operations=[reversed_range])
    assert done["ok"], done
    assert [c["type"] for c in done["details"]["auto_corrections"]] == ["range_order_swapped"]
    lines = (await agent("read", path="a.py", hashes=True))["lines"]
    path.write_bytes(path.read_bytes() + b"# someone else\n")
    moved = {**reversed_range, "start_hash": lines[4]["hash"], "end_hash": lines[3]["hash"]}
    refused = await agent("edit", path="a.py", operations=[moved])
    assert_error(refused, "invalid_range_order")
    assert path.read_bytes().endswith(b"    return 2\n# someone else\n")


async def test_file_path_alias_warns_and_path_wins(agent: Agent) -> None:
    put(agent.root, "a.txt", b"alpha beta\n")
    put(agent.root, "b.txt", b"gamma delta\n")
    anchor = (await agent("read", path="a.txt", hashes=True))["lines"][0]["hash"]
    op = {"op": "replace_line", "hash": anchor, "content": "alpha gamma"}
    result = await agent("edit", path="a.txt", file_path="b.txt", operations=[op])
    assert result["ok"], result
    assert "deprecated" in result["warnings"][0]
    assert (agent.root / "a.txt").read_bytes() == b"alpha gamma\n"
    assert (agent.root / "b.txt").read_bytes() == b"gamma delta\n"
    missing = await agent("edit", operations=[op])
    assert_error(missing, "invalid_params")
    assert missing["details"]["field"] == "path"


# -- preview / applyPending / discardPending -----------------------------------------------------


async def test_preview_writes_nothing_and_apply_writes_the_proposal(agent: Agent) -> None:
    path = put(agent.root, "a.txt", b"alpha\nbeta\n")
    await agent("read", path="a.txt")
    preview = await agent(
        "replace", path="a.txt", old_string="beta", new_string="gamma", preview=True
    )
    assert "workspaceEdit" not in preview  # an LSP-door field: the door adds it
    preview = await lsp_result(preview, agent.ctx.pending, WorkspaceEdits(annotations=True))
    assert preview["preview"] is True and preview["token"]
    assert preview["diff"].startswith("--- a/a.txt\n+++ b/a.txt\n")
    assert preview["files"] == [
        {"path": "a.txt", "uri": path.as_uri(), "action": "updated", "newContent": "alpha\ngamma\n"}
    ]
    (change,) = preview["workspaceEdit"]["documentChanges"]
    assert change["textDocument"] == {"uri": path.as_uri(), "version": None}
    assert change["edits"] == [
        {
            "range": {"start": {"line": 1, "character": 0}, "end": {"line": 2, "character": 0}},
            "newText": "gamma\n",
            "annotationId": "waymark:a.txt",
        }
    ]
    assert preview["workspaceEdit"]["changeAnnotations"]["waymark:a.txt"]["needsConfirmation"]
    assert path.read_bytes() == b"alpha\nbeta\n"
    applied = await agent("applyPending", token=preview["token"])
    assert applied["ok"] and "preview" not in applied
    assert path.read_bytes() == b"alpha\ngamma\n"
    assert_error(await agent("applyPending", token=preview["token"]), "unknown_token")


async def test_apply_with_new_content_writes_the_users_text(agent: Agent) -> None:
    path = put(agent.root, "a.txt", b"alpha\r\nbeta\r\n")
    await agent("read", path="a.txt")
    preview = await agent(
        "replace", path="a.txt", old_string="beta", new_string="gamma", preview=True
    )
    applied = await agent("applyPending", token=preview["token"], newContent="alpha\r\ndelta\r\n")
    assert applied["ok"] and applied["editedByUser"] is True
    assert path.read_bytes() == b"alpha\r\ndelta\r\n"


async def test_apply_after_the_file_changed_is_refused(agent: Agent) -> None:
    path = put(agent.root, "a.txt", b"alpha\nbeta\n")
    await agent("read", path="a.txt")
    preview = await agent(
        "replace", path="a.txt", old_string="beta", new_string="gamma", preview=True
    )
    path.write_bytes(b"user\n")
    assert_error(await agent("applyPending", token=preview["token"]), "file_changed_since_read")
    assert path.read_bytes() == b"user\n"


async def test_discard_forgets_the_token(agent: Agent) -> None:
    put(agent.root, "a.txt", b"alpha\n")
    preview = await agent("write", path="b.txt", content="x\n", preview=True)
    assert (await agent("discardPending", token=preview["token"]))["ok"]
    assert_error(await agent("applyPending", token=preview["token"]), "unknown_token")
    assert not (agent.root / "b.txt").exists()


async def test_new_content_is_refused_for_a_multi_file_rewind(agent: Agent) -> None:
    await agent("snapshot", promptId="t1")
    await agent("write", path="a.txt", content="a\n")
    await agent("write", path="b.txt", content="b\n")
    preview = await agent("rewind", promptId="t1", preview=True)
    result = await agent("applyPending", token=preview["token"], newContent="x")
    assert_error(result, "invalid_params")
    assert result["details"]["field"] == "newContent"
    assert (agent.root / "a.txt").exists() and (agent.root / "b.txt").exists()


# -- sed -----------------------------------------------------------------------------------------


async def test_sed_simulates_and_history_can_undo_it(agent: Agent) -> None:
    path = put(agent.root, "a.txt", b"foo bar\r\nfoo\r\n")
    await agent("snapshot", promptId="t1")
    result = await agent("sed", command="sed -i 's/foo/baz/g' a.txt")
    assert result["simulated"] is True and result["writer_type"] == "sed"
    assert path.read_bytes() == b"baz bar\r\nbaz\r\n"
    rewound = await agent("rewind", promptId="t1")
    assert rewound["restored"] == ["a.txt"]
    assert path.read_bytes() == b"foo bar\r\nfoo\r\n"


async def test_sed_declines_without_writing(agent: Agent, tmp_path: Path) -> None:
    path = put(agent.root, "a.txt", b"foo\n")
    put(agent.root, "bin.dat", b"foo\x00\n")
    put(tmp_path, "outside.txt", b"foo\n")
    for line, code in [
        ("sed -i '1e date' a.txt", None),
        ("sed -i '1w ../outside.txt' a.txt", "path_outside_workspace"),
        ("sed -i 's/foo/x/' missing.txt", "file_not_found"),
        ("sed -i 's/foo/x/' a.txt missing.txt", "file_not_found"),
        ("sed -i 's/foo/x/' a.txt ./a.txt", None),
        ("sed -i 's/foo/x/' bin.dat", "binary_file"),
        ("sed -i 's/foo/x/' ../outside.txt", "path_outside_workspace"),
    ]:
        result = await agent("sed", command=line)
        assert result["ok"] is True and result["simulated"] is False, result
        assert result["reason"]
        assert result.get("error") == code
    assert path.read_bytes() == b"foo\n"


async def test_sed_on_several_files_with_backup_is_one_turn(agent: Agent) -> None:
    a = put(agent.root, "a.txt", b"foo\nkeep\n")
    b = put(agent.root, "b.txt", b"no match\n")
    await agent("snapshot", promptId="t1")
    result = await agent("sed", command="sed -i.bak -e '/keep/d' -e 's/foo/bar/' a.txt b.txt")
    assert result["simulated"] is True, result
    assert a.read_bytes() == b"bar\n" and b.read_bytes() == b"no match\n"
    # GNU renames each original to its backup name, changed or not.
    assert (agent.root / "a.txt.bak").read_bytes() == b"foo\nkeep\n"
    assert (agent.root / "b.txt.bak").read_bytes() == b"no match\n"
    rewound = await agent("rewind", promptId="t1")
    assert sorted(rewound["restored"]) == ["a.txt"]
    assert sorted(rewound["deleted"]) == ["a.txt.bak", "b.txt.bak"]
    assert a.read_bytes() == b"foo\nkeep\n"


async def test_sed_q_leaves_later_files_untouched(agent: Agent) -> None:
    a = put(agent.root, "a.txt", b"1\n2\n3\n")
    b = put(agent.root, "b.txt", b"x\n")
    result = await agent("sed", command="sed -i 2q a.txt b.txt")
    assert result["simulated"] is True, result
    assert a.read_bytes() == b"1\n2\n" and b.read_bytes() == b"x\n"


async def test_sed_declines_a_huge_single_line(agent: Agent) -> None:
    data = b"a" * (300 * 1024) + b"\n"
    path = put(agent.root, "one-line.csv", data)
    result = await agent("sed", command="sed -i 's/[^,]*,/x/' one-line.csv")
    assert result["simulated"] is False and result["error"] == "line_too_long"
    assert path.read_bytes() == data


@pytest.mark.parametrize(
    ("data", "declined"),
    [
        (b"x\n" * 200_000 + b"a" * MAX_LINE_BYTES + b"\n" + b"y\n" * 10, False),
        (b"x\n" * 200_000 + b"a" * (MAX_LINE_BYTES + 1) + b"\n" + b"y\n" * 10, True),
        (b"x\n" * 200_000 + b"a" * (MAX_LINE_BYTES + 1), True),
        (b"x\n" * 200_000 + b"a" * MAX_LINE_BYTES, False),
        (b"a" * (MAX_LINE_BYTES + 1) + b"\n" + b"x\n" * 200_000, True),
    ],
)
async def test_sed_line_length_limit_is_exact_anywhere_in_a_large_file(
    agent: Agent, data: bytes, declined: bool
) -> None:
    path = put(agent.root, "big.txt", data)
    result = await agent("sed", command="sed -i 's/y/z/' big.txt")
    assert (result.get("error") == "line_too_long") is declined, result
    assert result["simulated"] is not declined
    if declined:
        assert path.read_bytes() == data


async def test_sed_that_matches_nothing_does_not_rewrite(agent: Agent) -> None:
    path = put(agent.root, "a.txt", b"foo\n")
    before = path.stat()
    result = await agent("sed", command="sed -i 's/nothing/x/' a.txt")
    assert result["simulated"] is True and result["changed"] is False
    after = path.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


async def test_sed_cwd_resolves_the_file(agent: Agent) -> None:
    path = put(agent.root, "sub/a.txt", b"foo\n")
    result = await agent("sed", command="sed -i 's/foo/bar/' a.txt", cwd="sub")
    assert result["simulated"] is True, result
    assert path.read_bytes() == b"bar\n"


# -- history commands ----------------------------------------------------------------------


async def test_history_off_is_a_clear_error(workspace: Path, tmp_path: Path) -> None:
    agent = Agent(workspace, tmp_path / "h", checkpointing=False)
    result = await agent("snapshot", promptId="t1")
    assert_error(result, "invalid_params")
    assert result["details"]["field"] == "checkpointing"
    assert (await agent("write", path="a.txt", content="x\n"))["ok"]


async def test_rewind_bad_option_and_unknown_prompt(agent: Agent) -> None:
    await agent("snapshot", promptId="t1")
    result = await agent("rewind", promptId="t1", option="everything")
    assert_error(result, "invalid_params")
    assert result["details"]["field"] == "option"
    assert_error(await agent("rewind", promptId="nope"), "unknown_prompt")
    assert_error(await agent("diffStats", promptId="nope"), "unknown_prompt")


async def test_rewind_requires_a_fresh_read_before_string_edits(agent: Agent) -> None:
    path = put(agent.root, "a.txt", b"one\n")
    await agent("snapshot", promptId="t1")
    await agent("read", path="a.txt")
    await agent("replace", path="a.txt", old_string="one", new_string="two")
    await agent("rewind", promptId="t1")
    assert path.read_bytes() == b"one\n"
    assert_error(
        await agent("replace", path="a.txt", old_string="one", new_string="three"), "read_required"
    )


# -- the error boundary --------------------------------------------------------------------


async def test_unknown_command_is_not_a_result(agent: Agent) -> None:
    with pytest.raises(UnknownCommand):
        await execute(agent.ctx, "waymark.nope", {})


async def test_a_bug_becomes_internal_error(agent: Agent, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(ctx: CommandContext, params: Any) -> dict[str, Any]:
        raise RuntimeError("boom")

    monkeypatch.setitem(
        COMMANDS, "waymark.broken", Command("waymark.broken", dict, broken, mutating=False)
    )
    result = await execute(agent.ctx, "waymark.broken", {})
    assert result["error"] == "internal_error"
    assert result["details"] == {"exception": "RuntimeError"}


async def test_params_must_be_one_object(agent: Agent) -> None:
    result = await execute(agent.ctx, "waymark.turns", ["a"])
    assert_error(result, "invalid_params")


def test_invalid_options_are_reported_and_defaults_used() -> None:
    options, warnings = load_options({"approval": "sometimes", "maxSnapshots": "many", "bogus": 1})
    assert options.approval == "auto" and options.maxSnapshots == 100
    assert len(warnings) == 3


@pytest.mark.parametrize("operand", ["OUTSIDE/a.txt", "OUTSIDE/*.txt"])
async def test_sed_without_a_workspace_folder_declines_with_the_error(
    tmp_path: Path, operand: str
) -> None:
    opts, _ = load_options({"historyDir": str(tmp_path / "history"), "sessionId": "t"})
    ctx = CommandContext.create([], opts)
    path = put(tmp_path, "a.txt", b"foo\n")
    line = "sed -i 's/foo/x/' " + operand.replace("OUTSIDE", str(tmp_path))
    result = await execute(ctx, "waymark.sed", {"command": line})
    assert result["ok"] is True and result["simulated"] is False, result
    assert result["error"] == "path_outside_workspace"
    assert path.read_bytes() == b"foo\n"

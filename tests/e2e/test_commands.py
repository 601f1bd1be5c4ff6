"""Every command through the real ``waymark-ls`` process, approval ``auto``."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from .conftest import Session

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_read_edit_and_a_stale_anchor(auto: Session) -> None:
    path = auto.put("app.py", b"def f():\r\n    return 1\r\n")
    read = await auto("read", path="app.py", hashes=True)
    assert [line["text"] for line in read["lines"]] == ["def f():", "    return 1"]
    anchor = read["lines"][1]["hash"]
    op = {"op": "replace_line", "hash": anchor, "content": "    return 2"}
    edited = await auto("edit", path="app.py", operations=[op])
    assert edited["ok"], edited
    assert edited["details"]["writer_type"] == "edit"
    assert path.read_bytes() == b"def f():\r\n    return 2\r\n"
    stale = await auto("edit", path="app.py", operations=[op])
    assert stale["error"] == "anchor_stale"
    assert path.read_bytes() == b"def f():\r\n    return 2\r\n"


async def test_string_edits(auto: Session) -> None:
    path = auto.put("notes.txt", b"alpha\nbeta\ngamma\n")
    assert (await auto("replace", path="notes.txt", old_string="beta", new_string="B"))[
        "error"
    ] == "read_required"
    await auto("read", path="notes.txt")
    multi = await auto(
        "multiReplace",
        path="notes.txt",
        edits=[
            {"old_string": "alpha", "new_string": "A"},
            {"old_string": "gamma", "new_string": "G"},
        ],
    )
    assert multi["ok"] and multi["editsApplied"] == 2, multi
    assert path.read_bytes() == b"A\nbeta\nG\n"
    written = await auto("write", path="sub/new.txt", content="hi\n")
    assert written["action"] == "created"
    assert (auto.root / "sub/new.txt").read_bytes() == b"hi\n"


async def test_sed_simulated_and_declined(auto: Session) -> None:
    path = auto.put("cfg.ini", b"debug = true\n")
    done = await auto("sed", command="sed -i 's/true/false/' cfg.ini")
    assert done["simulated"] is True
    assert path.read_bytes() == b"debug = false\n"
    declined = await auto("sed", command="sed -i 's/false/true/' cfg.ini && echo done")
    assert declined["simulated"] is False and declined["reason"]
    assert path.read_bytes() == b"debug = false\n"


async def test_turns_stats_rewind_undo_and_notification(auto: Session) -> None:
    path = auto.put("turns.txt", b"v1\n")
    await auto("snapshot", promptId="r1", label="first")
    await auto("read", path="turns.txt")
    await auto("replace", path="turns.txt", old_string="v1", new_string="v2")
    await auto("snapshot", promptId="r2", label="second")
    await auto("replace", path="turns.txt", old_string="v2", new_string="v3")
    turns = await auto("turns")
    assert [t["promptId"] for t in turns["turns"]][-2:] == ["r1", "r2"]
    stats = await auto("diffStats", promptId="r1")
    entry = next(f for f in stats["files"] if f["path"] == "turns.txt")
    assert (entry["status"], entry["insertions"], entry["deletions"]) == ("modified", 1, 1)
    rewound = await auto("rewind", promptId="r1")
    assert "turns.txt" in rewound["restored"] and rewound["conflicts"] == []
    assert path.read_bytes() == b"v1\n"
    assert auto.editor.notifications[-1].promptId == "r1"
    undone = await auto("rewind", promptId=rewound["undoPromptId"])
    assert "turns.txt" in undone["restored"]
    assert path.read_bytes() == b"v3\n"


async def test_rewind_of_one_file_and_its_undo(auto: Session) -> None:
    one = auto.put("one.txt", b"1\n")
    two = auto.put("two.txt", b"2\n")
    await auto("snapshot", promptId="p1")
    for name, old in (("one.txt", "1"), ("two.txt", "2")):
        await auto("read", path=name)
        await auto("replace", path=name, old_string=old, new_string="changed")
    rewound = await auto("rewind", promptId="p1", paths=["two.txt"])
    assert rewound["restored"] == ["two.txt"] and rewound["conflicts"] == []
    assert (one.read_bytes(), two.read_bytes()) == (b"changed\n", b"2\n")
    assert auto.editor.notifications[-1].restored == ["two.txt"]
    undone = await auto("rewind", promptId=rewound["undoPromptId"], paths=["two.txt"])
    assert undone["restored"] == ["two.txt"]
    assert (one.read_bytes(), two.read_bytes()) == (b"changed\n", b"changed\n")


async def test_user_edited_proposal_and_stale_preview(auto: Session) -> None:
    path = auto.put("doc.md", b"# Title\n")
    await auto("read", path="doc.md")
    preview = await auto("replace", path="doc.md", old_string="Title", new_string="T", preview=True)
    assert path.read_bytes() == b"# Title\n"
    applied = await auto("applyPending", token=preview["token"], newContent="# Better\n")
    assert applied["ok"] and applied["editedByUser"]
    assert path.read_bytes() == b"# Better\n"
    await auto("read", path="doc.md")
    stale = await auto("replace", path="doc.md", old_string="Better", new_string="B", preview=True)
    path.write_bytes(b"# Someone else\n")
    assert (await auto("applyPending", token=stale["token"]))["error"] == "file_changed_since_read"
    assert path.read_bytes() == b"# Someone else\n"
    gone = await auto("discardPending", token=stale["token"])
    assert gone["error"] == "unknown_token"


async def test_dirty_buffer_is_edited_in_the_editor_not_on_disk(auto: Session) -> None:
    path = auto.put("open.txt", b"one\ntwo\n")
    uri = auto.editor.open(path, "one\ntwo\nunsaved\n")
    read = await auto("read", path="open.txt", hashes=True)
    assert [line["text"] for line in read["lines"]] == ["one", "two", "unsaved"]
    anchor = read["lines"][0]["hash"]
    before = len(auto.editor.requests)
    result = await auto(
        "edit",
        path="open.txt",
        operations=[{"op": "replace_line", "hash": anchor, "content": "ONE"}],
    )
    assert result["ok"], result
    assert len(auto.editor.requests) == before + 1
    (change,) = auto.editor.requests[-1].edit.document_changes or []
    assert isinstance(change, types.TextDocumentEdit) and change.text_document.version == 1
    assert auto.editor.buffers[uri][0] == "ONE\ntwo\nunsaved\n"
    assert path.read_bytes() == b"one\ntwo\n"
    auto.editor.close(uri)


async def test_buffer_moved_on_between_preview_and_apply(auto: Session) -> None:
    path = auto.put("moving.txt", b"a\nb\n")
    uri = auto.editor.open(path)
    await auto("read", path="moving.txt")
    preview = await auto("replace", path="moving.txt", old_string="b", new_string="B", preview=True)
    assert preview["workspaceEdit"]["documentChanges"][0]["textDocument"]["version"] == 1
    auto.editor.type(uri, "a\nb\nc\n")
    result = await auto("applyPending", token=preview["token"])
    assert result["error"] == "file_changed_since_read"
    assert path.read_bytes() == b"a\nb\n"
    auto.editor.close(uri)


async def test_describe_tools_and_bad_calls(auto: Session) -> None:
    tools = await auto("describeTools")
    assert {t["name"] for t in tools["tools"]} >= {"waymark_read", "waymark_edit", "waymark_rewind"}
    bad = await auto("read", path=7)
    assert bad["error"] == "invalid_params" and bad["details"]["field"] == "path"
    with pytest.raises(JsonRpcException):
        await auto.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="waymark.nope", arguments=[{}])
        )

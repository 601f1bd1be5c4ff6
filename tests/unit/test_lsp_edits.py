"""The LSP door's edits: text edits reproduce the target, WorkspaceEdits fit the client."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types

from helpers_commands import Agent, put
from waymark.doors.lsp.edits import WorkspaceEdits, lsp_result, text_edits
from waymark.doors.lsp.server import ClientEditor, WaymarkServer
from waymark.engine.diff import EditTarget
from waymark.engine.text import TextFile, split_lines

PIECES = ["a", "b", "é", "😀", "\n", "x\n", "y\r\n", "\r", "\r\n", "\u2028"]
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


def _lines(text: str) -> list[str]:
    lines, eols = split_lines(text)
    return [line + eol for line, eol in zip(lines, eols, strict=True)]


def _utf16_offset(text: str, line: int, character: int) -> int:
    lines = _lines(text)
    offset = sum(len(x) for x in lines[:line])
    units = 0
    for index, char in enumerate(lines[line] if line < len(lines) else ""):
        if units >= character:
            return offset + index
        units += 2 if ord(char) > 0xFFFF else 1
    return offset + (len(lines[line]) if line < len(lines) else 0)


@settings(max_examples=400, deadline=None)
@given(texts, texts)
def test_text_edits_reproduce_the_target_exactly(before: str, after: str) -> None:
    text = before
    edits = text_edits(TextFile.from_text(before), TextFile.from_text(after))
    for edit in reversed(edits):
        start = _utf16_offset(before, **edit["range"]["start"])
        end = _utf16_offset(before, **edit["range"]["end"])
        text = text[:start] + edit["newText"] + text[end:]
    assert text == after


def _targets() -> list[EditTarget]:
    old, new = TextFile.from_text("a\n"), TextFile.from_text("b\n")
    return [
        EditTarget("file:///w/u.txt", "u.txt", old, new, 4),
        EditTarget("file:///w/c.txt", "c.txt", None, new, None),
        EditTarget("file:///w/d.txt", "d.txt", old, None, None),
    ]


def test_workspace_edit_shapes() -> None:
    edit = WorkspaceEdits(annotations=True).build(_targets(), "Label", confirm=True)
    kinds = [c.get("kind", "edit") for c in edit["documentChanges"]]
    assert kinds == ["edit", "create", "edit", "delete"]
    assert edit["documentChanges"][0]["textDocument"] == {"uri": "file:///w/u.txt", "version": 4}
    assert set(edit["changeAnnotations"]) == {"waymark:u.txt", "waymark:c.txt", "waymark:d.txt"}
    assert all(a["needsConfirmation"] for a in edit["changeAnnotations"].values())


def test_a_client_without_annotation_support_gets_the_same_edit_unannotated() -> None:
    annotated = WorkspaceEdits(annotations=True).build(_targets(), "Label", confirm=True)
    plain = WorkspaceEdits(annotations=False).build(_targets(), "Label", confirm=True)
    assert set(plain) == {"documentChanges"}

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k != "annotationId"}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    assert plain["documentChanges"] == strip(annotated["documentChanges"])


class _Client:
    """Stands in for the client's side of ``workspace/applyEdit``: applies and records."""

    def __init__(self) -> None:
        self.requests: list[types.ApplyWorkspaceEditParams] = []

    async def __call__(self, params: types.ApplyWorkspaceEditParams) -> Any:
        self.requests.append(params)
        return types.ApplyWorkspaceEditResult(applied=True)


async def _approve_in_editor(root: Path, history: Path, annotations: bool) -> types.WorkspaceEdit:
    """Replace a word with approval ``editor`` through the LSP door's editor; the edit sent."""
    server = WaymarkServer()
    server.edits = WorkspaceEdits(annotations=annotations)
    client = _Client()
    server.workspace_apply_edit_async = client
    agent = Agent(root, history, approval="editor")
    agent.ctx.editor = ClientEditor(server)
    path = put(root, "a.txt", b"alpha\nbeta\n")
    await agent("read", path="a.txt")
    result = await agent("replace", path="a.txt", old_string="beta", new_string="gamma")
    assert result["ok"], result
    assert path.read_bytes() == b"alpha\ngamma\n"
    (request,) = client.requests
    return request.edit


async def test_a_client_without_annotation_support_is_sent_no_annotations(
    workspace: Path, tmp_path: Path
) -> None:
    edit = await _approve_in_editor(workspace, tmp_path / "history", annotations=False)
    assert edit.change_annotations is None
    (change,) = edit.document_changes or []
    assert isinstance(change, types.TextDocumentEdit)
    assert all(not isinstance(e, types.AnnotatedTextEdit) for e in change.edits)


async def test_a_client_with_annotation_support_must_confirm_under_editor_approval(
    workspace: Path, tmp_path: Path
) -> None:
    edit = await _approve_in_editor(workspace, tmp_path / "history", annotations=True)
    assert edit.change_annotations is not None
    assert edit.change_annotations["waymark:a.txt"].needs_confirmation is True
    (change,) = edit.document_changes or []
    assert isinstance(change, types.TextDocumentEdit)
    assert [e.annotation_id for e in change.edits] == ["waymark:a.txt"]


async def test_only_a_preview_gets_a_workspace_edit(workspace: Path, tmp_path: Path) -> None:
    agent = Agent(workspace, tmp_path / "history")
    put(workspace, "a.txt", b"alpha\n")
    edits = WorkspaceEdits(annotations=False)
    read = await agent("read", path="a.txt")
    assert await lsp_result(read, agent.ctx.pending, edits) == read
    refused = await agent("replace", path="a.txt", old_string="x", new_string="y", preview=True)
    assert await lsp_result(refused, agent.ctx.pending, edits) == refused
    preview = await agent(
        "replace", path="a.txt", old_string="alpha", new_string="beta", preview=True
    )
    shaped = await lsp_result(preview, agent.ctx.pending, edits)
    assert shaped == {**preview, "workspaceEdit": shaped["workspaceEdit"]}
    (change,) = shaped["workspaceEdit"]["documentChanges"]
    assert change["edits"] == [
        {
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}},
            "newText": "beta\n",
        }
    ]

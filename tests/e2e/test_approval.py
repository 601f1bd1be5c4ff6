"""Approval ``editor``: the server asks the client with ``workspace/applyEdit``."""

from __future__ import annotations

import pytest
from lsprotocol import types

from .conftest import Session

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_approved_edit_is_on_disk_and_rewindable(editor_approval: Session) -> None:
    s = editor_approval
    path = s.put("a.txt", b"alpha\nbeta\n")
    await s("snapshot", promptId="t1")
    await s("read", path="a.txt")
    result = await s("replace", path="a.txt", old_string="beta", new_string="gamma")
    assert result["ok"], result
    request = s.editor.requests[-1]
    annotations = request.edit.change_annotations or {}
    assert [a.needs_confirmation for a in annotations.values()] == [True]
    assert path.read_bytes() == b"alpha\ngamma\n"
    rewound = await s("rewind", promptId="t1")
    assert rewound["restored"] == ["a.txt"]
    assert path.read_bytes() == b"alpha\nbeta\n"


async def test_declined_edit_changes_nothing(editor_approval: Session) -> None:
    s = editor_approval
    path = s.put("b.txt", b"keep me\n")
    await s("read", path="b.txt")
    s.editor.approve = False
    try:
        result = await s("replace", path="b.txt", old_string="keep", new_string="lose")
    finally:
        s.editor.approve = True
    assert result["error"] == "declined"
    assert path.read_bytes() == b"keep me\n"


async def test_new_file_through_the_editor(editor_approval: Session) -> None:
    s = editor_approval
    result = await s("write", path="fresh.txt", content="new\n")
    assert result["ok"], result
    kinds = [type(c).__name__ for c in s.editor.requests[-1].edit.document_changes or []]
    assert kinds == ["CreateFile", "TextDocumentEdit"]
    assert (s.root / "fresh.txt").read_bytes() == b"new\n"


async def test_client_without_annotation_support_gets_plain_edits(plain_client: Session) -> None:
    s = plain_client
    path = s.put("c.txt", b"x\n")
    await s("read", path="c.txt")
    result = await s("replace", path="c.txt", old_string="x", new_string="y")
    assert result["ok"], result
    edit = s.editor.requests[-1].edit
    assert edit.change_annotations is None
    (change,) = edit.document_changes or []
    assert isinstance(change, types.TextDocumentEdit)
    assert all(type(e) is types.TextEdit for e in change.edits)
    assert path.read_bytes() == b"y\n"

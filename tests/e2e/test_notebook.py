"""``waymark.notebookEdit`` through the real ``waymark-ls``: auto-applied, and proposed to the
editor for approval (the edit it gets is the whole notebook's new text)."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest
from lsprotocol import types

from .conftest import Session
from .editor import apply_text_edits

pytestmark = pytest.mark.asyncio(loop_scope="module")

FIXTURE = Path(__file__).parent.parent / "fixtures" / "notebooks" / "jupyter-4.0.ipynb"
OPS = [
    {"op": "replace_cell", "cell": 0, "source": "# Renamed"},
    {"op": "insert_cell", "cell": 0, "source": "import os"},
    {"op": "delete_cell", "cell": 8},
]


def valid(data: bytes) -> nbformat.NotebookNode:
    nb = nbformat.reads(data.decode("utf-8"), as_version=nbformat.NO_CONVERT)
    nbformat.validate(nb)
    return nb


async def test_notebook_edit_rewinds_byte_for_byte(auto: Session) -> None:
    path = auto.root / "auto.ipynb"
    shutil.copyfile(FIXTURE, path)
    before = path.read_bytes()
    assert (await auto("snapshot", promptId="nb1"))["ok"]
    assert (await auto("read", path="auto.ipynb"))["notebook"]["nbformatMinor"] == 0
    done = await auto("notebookEdit", path="auto.ipynb", operations=OPS)
    assert done["ok"] and done["details"]["writer_type"] == "notebook", done
    nb = valid(path.read_bytes())
    assert [c.source for c in nb.cells[:2]] == ["# Renamed", "import os"]
    assert len(nb.cells) == 9
    assert (await auto("rewind", promptId="nb1"))["ok"]
    assert path.read_bytes() == before


async def test_notebook_edit_proposed_to_the_editor(editor_approval: Session) -> None:
    s = editor_approval
    path = s.root / "review.ipynb"
    shutil.copyfile(FIXTURE, path)
    before = path.read_bytes()
    await s("read", path="review.ipynb")
    s.editor.approve = False
    declined = await s("notebookEdit", path="review.ipynb", operations=OPS)
    assert declined["error"] == "declined"
    assert path.read_bytes() == before
    s.editor.approve = True
    applied = await s("notebookEdit", path="review.ipynb", operations=OPS)
    assert applied["ok"], applied
    request = s.editor.requests[-1]
    assert request.label == "Waymark: notebook edit"
    (change,) = request.edit.document_changes or []
    assert isinstance(change, types.TextDocumentEdit)
    assert change.text_document.uri == path.as_uri()
    assert apply_text_edits(before.decode(), list(change.edits)) == path.read_text("utf-8")
    valid(path.read_bytes())

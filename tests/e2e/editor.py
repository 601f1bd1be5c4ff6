"""A minimal editor for the e2e client: open buffers, and applying ``workspace/applyEdit``.

It does what VS Code and Neovim do with a server's edit: a document open in a buffer is
edited in the buffer (and the server hears ``didChange``); any other file is edited on disk.
Whether it applies or declines is up to the test.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import to_fs_path
from pytest_lsp import LanguageClient

from waymark.engine.text import split_lines


def _offset(text: str, position: types.Position) -> int:
    lines, eols = split_lines(text)
    offset = sum(len(lines[i]) + len(eols[i]) for i in range(min(position.line, len(lines))))
    if position.line < len(lines):
        units = 0
        for index, char in enumerate(lines[position.line]):
            if units >= position.character:
                return offset + index
            units += 2 if ord(char) > 0xFFFF else 1
        return offset + len(lines[position.line])
    return offset


def apply_text_edits(text: str, edits: list[Any]) -> str:
    spans = sorted(
        ((_offset(text, e.range.start), _offset(text, e.range.end), e.new_text) for e in edits),
        reverse=True,
    )
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


@dataclass
class Editor:
    client: LanguageClient
    approve: bool = True
    buffers: dict[str, tuple[str, int]] = field(default_factory=dict)
    requests: list[types.ApplyWorkspaceEditParams] = field(default_factory=list)
    notifications: list[Any] = field(default_factory=list)

    def open(self, path: Path, text: str | None = None) -> str:
        uri = path.as_uri()
        content = path.read_text(encoding="utf-8") if text is None else text
        self.buffers[uri] = (content, 1)
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="plaintext", version=1, text=content
                )
            )
        )
        return uri

    def type(self, uri: str, text: str) -> None:
        """The user changes the buffer (without saving)."""
        _, version = self.buffers[uri]
        self.buffers[uri] = (text, version + 1)
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version + 1),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    def close(self, uri: str) -> None:
        self.buffers.pop(uri, None)
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )

    def on_apply_edit(
        self, params: types.ApplyWorkspaceEditParams
    ) -> types.ApplyWorkspaceEditResult:
        self.requests.append(params)
        if not self.approve:
            return types.ApplyWorkspaceEditResult(applied=False, failure_reason="user declined")
        for change in params.edit.document_changes or []:
            if isinstance(change, types.CreateFile):
                Path(_path(change.uri)).touch()
            elif isinstance(change, types.DeleteFile):
                os.unlink(_path(change.uri))
            elif isinstance(change, types.TextDocumentEdit):
                uri = change.text_document.uri
                if uri in self.buffers:
                    self.type(uri, apply_text_edits(self.buffers[uri][0], list(change.edits)))
                else:
                    path = Path(_path(uri))
                    text = path.read_bytes().decode("utf-8", "surrogateescape")
                    new = apply_text_edits(text, list(change.edits))
                    path.write_bytes(new.encode("utf-8", "surrogateescape"))
        return types.ApplyWorkspaceEditResult(applied=True)


def _path(uri: str) -> str:
    path = to_fs_path(uri)
    assert path is not None
    return path


def attach(client: LanguageClient) -> Editor:
    editor = Editor(client)

    # pygls tags handlers with attributes, which bound methods do not take.
    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        return editor.on_apply_edit(params)

    @client.feature("waymark/didRewind")
    def did_rewind(params: Any) -> None:
        editor.notifications.append(params)

    return editor

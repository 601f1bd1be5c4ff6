"""The LSP door's responses go out byte for byte as pygls would write them, minus its copy."""

from __future__ import annotations

import enum
import json
import typing
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.protocol import JsonRPCResponseMessage, LanguageServerProtocol, default_converter
from pygls.protocol.language_server import _prepare_command_arguments

from waymark.doors.lsp.server import create_server
from waymark.doors.lsp.wire import Protocol


class Kind(enum.Enum):
    A = "a"


RESULTS: list[Any] = [
    None,
    [],
    {"ok": False, "error": "unknown_token", "message": "No such preview.", "details": {}},
    {
        "ok": True,
        "lines": [{"line": n, "text": f'é{n}\t"x"', "hash": "ab12cd"} for n in range(1, 50)],
        "diff": "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
        "anchoredDiff": ({"op": "replace_line", "line": 1},),
        "nothing": None,
        "counts": {"1": 2, "three": [1.5, True, None]},
    },
    {
        "kind": Kind.A,
        "edit": types.TextEdit(types.Range(types.Position(0, 0), types.Position(1, 0)), "x"),
    },
    [types.TextEdit(types.Range(types.Position(2, 1), types.Position(2, 4)), "\u2028")],
    types.InitializeResult(
        capabilities=types.ServerCapabilities(position_encoding=types.PositionEncodingKind.Utf16),
        server_info=types.ServerInfo("waymark-ls", "1"),
    ),
]


@pytest.mark.parametrize("result", RESULTS)
def test_a_response_is_serialized_as_pygls_would(result: Any) -> None:
    ours = create_server().protocol
    assert isinstance(ours, Protocol)
    theirs = LanguageServerProtocol(create_server(), default_converter())
    response = JsonRPCResponseMessage(id=7, jsonrpc="2.0", result=result)
    expected = json.dumps(response, default=theirs._serialize_message)
    assert json.dumps(response, default=ours._serialize_message) == expected


def test_other_messages_go_through_pygls() -> None:
    ours = create_server().protocol
    theirs = LanguageServerProtocol(create_server(), default_converter())
    notification = types.LogMessageNotification(
        params=types.LogMessageParams(types.MessageType.Info, "waymark: ready"), jsonrpc="2.0"
    )
    assert json.dumps(notification, default=ours._serialize_message) == json.dumps(
        notification, default=theirs._serialize_message
    )


ARGUMENTS: list[Any] = [
    None,
    [],
    [{"token": "t"}],
    [{"path": "a"}, {"path": "b"}],
    [[1, 2], "x", None],
]


@pytest.mark.parametrize("arguments", ARGUMENTS)
def test_command_arguments_reach_the_handler_as_pygls_passes_them_without_reading_hints(
    arguments: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = create_server()
    params = types.ExecuteCommandParams(command="waymark.discardPending", arguments=arguments)
    handler = server.protocol.fm.commands[params.command]
    expected = _prepare_command_arguments(handler, params, server.protocol._converter)[0]
    hints: list[object] = []
    real = typing.get_type_hints
    monkeypatch.setattr(typing, "get_type_hints", lambda *a, **k: hints.append(a) or real(*a, **k))
    steps = server.protocol.lsp_workspace__execute_command(params)
    called, args, _ = next(steps)
    assert called is handler
    assert tuple(args) == expected
    assert hints == []  # pygls evaluated the handler's type hints on every call
    with pytest.raises(StopIteration) as done:
        steps.send({"ok": True})
    assert done.value.value == {"ok": True}


def test_an_unknown_command_is_refused_as_pygls_refuses_it() -> None:
    params = types.ExecuteCommandParams(command="waymark.noSuchCommand", arguments=[{}])
    with pytest.raises(JsonRpcInvalidParams, match=r"'waymark\.noSuchCommand' is not defined"):
        next(create_server().protocol.lsp_workspace__execute_command(params))

"""Classes 4, 8 and 10 on a real server: bad session ids, unknown params, oversized requests.

The server must answer every request (an error at worst) and keep serving afterwards.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from waymark.edits.anchored import MAX_OPERATIONS
from waymark.wire_guard import MAX_DEPTH

from .wire import Wire


@pytest.fixture
def wire(workspace: Path, tmp_path: Path) -> Iterator[Wire]:
    server = Wire()
    yield server
    server.close()


@pytest.mark.parametrize("session_id", ["../../escape", "a/b", "bad\x00id", "x" * 129, ".."])
def test_an_unsafe_session_id_is_replaced_and_the_server_keeps_serving(
    wire: Wire, workspace: Path, tmp_path: Path, session_id: str
) -> None:
    history = tmp_path / "history"
    answer = wire.initialize(workspace, {"sessionId": session_id, "historyDir": str(history)})
    assert "result" in answer, answer
    (workspace / "a.txt").write_bytes(b"one\n")
    result = wire.command("waymark.read", {"path": "a.txt"})
    assert result["ok"] is True, result
    write = wire.command("waymark.write", {"path": "a.txt", "content": "two\n"})
    assert write["ok"] is True, write
    assert (workspace / "a.txt").read_bytes() == b"two\n"
    # Nothing was created beside the history dir, or outside the workspace and history.
    assert sorted(os.listdir(tmp_path)) == ["history", "ws"]


def test_a_misspelled_param_is_refused_naming_it(
    wire: Wire, workspace: Path, tmp_path: Path
) -> None:
    wire.initialize(workspace, {"historyDir": str(tmp_path / "history")})
    (workspace / "a.txt").write_bytes(b"one\n")
    result = wire.command("waymark.write", {"path": "a.txt", "content": "x\n", "preveiw": True})
    assert result["ok"] is False and result["error"] == "invalid_params", result
    assert result["details"]["field"] == "preveiw"
    assert "preview" in result["details"]["known"]
    assert (workspace / "a.txt").read_bytes() == b"one\n"


def test_deep_json_nesting_gets_an_error_answer(
    wire: Wire, workspace: Path, tmp_path: Path
) -> None:
    wire.initialize(workspace, {"historyDir": str(tmp_path / "history")})
    depth = 100_000
    body = (
        b'{"jsonrpc": "2.0", "id": 77, "method": "workspace/executeCommand", "params": '
        b'{"command": "waymark.read", "arguments": ' + b"[" * depth + b"]" * depth + b"}}"
    )
    wire.send_raw(body)
    answer = wire.response(77)
    assert answer["error"]["code"] == -32600, answer
    assert str(MAX_DEPTH) in answer["error"]["message"]
    (workspace / "a.txt").write_bytes(b"still\n")
    assert wire.command("waymark.read", {"path": "a.txt"})["ok"] is True


def test_too_many_operations_answer_invalid_params_and_others_are_served(
    wire: Wire, workspace: Path, tmp_path: Path
) -> None:
    wire.initialize(workspace, {"historyDir": str(tmp_path / "history")})
    lines = [f"line {i} = {i * 7919 % 100003}\n" for i in range(50_000)]
    big = workspace / "big.txt"
    big.write_text("".join(lines))
    read = wire.command("waymark.read", {"path": "big.txt", "hashes": True, "limit": 20_000})
    assert read["ok"], read
    anchors = [line["hash"] for line in read["lines"]]
    too_many = [{"op": "replace_line", "hash": anchors[0], "content": "x"}] * (MAX_OPERATIONS + 1)
    refused = wire.command("waymark.edit", {"path": "big.txt", "operations": too_many})
    assert refused["error"] == "invalid_params", refused
    assert refused["details"]["field"] == "operations"
    # A large batch on a large file is answered, and other requests meanwhile.
    ops = [
        {"op": "replace_line", "hash": anchors[i], "content": f"edited {i}"}
        for i in range(0, 4_000, 2)
    ]
    edit_id = wire.send(
        "workspace/executeCommand",
        {"command": "waymark.edit", "arguments": [{"path": "big.txt", "operations": ops}]},
    )
    (workspace / "small.txt").write_bytes(b"small\n")
    assert wire.command("waymark.read", {"path": "small.txt"})["ok"] is True
    assert edit_id is not None
    edited = wire.response(edit_id, timeout=120)["result"]
    assert edited["ok"] is True, {k: edited[k] for k in ("error", "message") if k in edited}
    text = big.read_text().splitlines()
    assert text[0] == "edited 0" and text[3_998] == "edited 3998"
    assert len(text) == 50_000

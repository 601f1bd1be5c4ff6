"""Requests a careless client can send: before initialize, and with several arguments."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.lsp.client import LanguageClient

from .conftest import Session

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_several_arguments_are_invalid_params(auto: Session) -> None:
    path = auto.put("edge.txt", b"keep\n")
    result = await auto.client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="waymark.write", arguments=[{"path": "edge.txt", "content": "x"}, {}]
        )
    )
    assert result["ok"] is False and result["error"] == "invalid_params"
    assert result["details"] == {"field": "arguments"}
    assert path.read_bytes() == b"keep\n"


async def test_a_command_before_initialize_is_refused(tmp_path: Path) -> None:
    client = LanguageClient("edge-test", "1")
    await client.start_io(sys.executable, "-m", "waymark", "serve")
    try:
        result = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(
                command="waymark.write",
                arguments=[{"path": str(tmp_path / "a.txt"), "content": "x"}],
            )
        )
    finally:
        client.exit(None)
        await client.stop()  # type: ignore[no-untyped-call]
    assert result["ok"] is False and result["error"] == "internal_error"
    assert "initialize" in result["message"]
    assert not (tmp_path / "a.txt").exists()

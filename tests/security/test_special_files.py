"""Class 7: a FIFO, socket or device is refused at once, and the server keeps answering."""

from __future__ import annotations

import asyncio
import os
import socket
from pathlib import Path

import pytest

from helpers_commands import Agent
from waymark.engine.errors import WaymarkError
from waymark.store import files


@pytest.mark.parametrize("verb", ["read", "sed"])
async def test_a_fifo_is_refused_without_blocking(agent: Agent, verb: str) -> None:
    os.mkfifo(agent.root / "pipe")
    params = {"path": "pipe"} if verb == "read" else {"command": "sed -i s/a/b/ pipe"}
    result = await asyncio.wait_for(agent(verb, **params), timeout=5)
    # sed answers "not simulated" (ok, with the reason's code) so the agent runs real sed.
    assert result["error"] == "not_regular_file", result
    assert result["ok"] is (verb == "sed"), result
    (agent.root / "a.txt").write_bytes(b"still served\n")
    assert (await asyncio.wait_for(agent("read", path="a.txt"), timeout=5))["ok"]


async def test_a_write_onto_a_fifo_is_refused(agent: Agent) -> None:
    os.mkfifo(agent.root / "pipe")
    result = await asyncio.wait_for(agent("write", path="pipe", content="x\n"), timeout=5)
    assert result["error"] == "not_regular_file", result
    assert (agent.root / "pipe").is_fifo()


async def test_a_socket_is_refused(agent: Agent) -> None:
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(agent.root / "sock"))
        result = await asyncio.wait_for(agent("read", path="sock"), timeout=5)
    finally:
        sock.close()
    assert result["error"] == "not_regular_file", result


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
def test_a_character_device_is_refused_by_every_primitive(device: str) -> None:
    for action in (
        lambda: files.read_state(Path(device)),
        lambda: files.atomic_write(Path(device), b"x"),
        lambda: files.delete_file(Path(device), expected="0"),
    ):
        with pytest.raises(WaymarkError) as info:
            action()
        assert info.value.code == "not_regular_file"
    assert Path(device).is_char_device()

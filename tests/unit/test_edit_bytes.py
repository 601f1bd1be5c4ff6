"""``waymark.edit`` writes the file's own bytes around the lines it changes, in any encoding."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers_commands import Agent, put


@pytest.fixture
def agent(workspace: Path, tmp_path: Path) -> Agent:
    return Agent(workspace, tmp_path / "history")


async def _anchor(agent: Agent, line: int, **read: str) -> str:
    result = await agent("read", path="a.txt", hashes=True, **read)
    anchor: str = result["lines"][line - 1]["hash"]
    return anchor


@pytest.mark.parametrize(
    ("encoding", "bom", "declared"),
    [
        ("utf-8", b"", None),
        ("utf-16-le", b"\xff\xfe", None),
        ("shift_jis", b"", "shift_jis"),
        ("windows-1252", b"", "windows-1252"),
    ],
)
async def test_an_edit_keeps_terminators_encoding_and_the_missing_final_newline(
    agent: Agent, encoding: str, bom: bytes, declared: str | None
) -> None:
    word = {"shift_jis": "日本", "windows-1252": "café"}.get(encoding, "naïve €")
    body = f"first {word}\r\nsecond\nthird {word}\rlast line".encode(encoding)
    put(agent.root, "a.txt", bom + body)
    read = {} if declared is None else {"encoding": declared}
    ops = [
        {"op": "replace_line", "hash": await _anchor(agent, 2, **read), "content": word},
        {"op": "insert_after", "hash": await _anchor(agent, 4, **read), "content": "tail"},
    ]
    result = await agent("edit", path="a.txt", operations=ops, **read)
    assert result["ok"], result
    # The new last line lacks a terminator; the old one gains the dominant one (CRLF: the
    # first seen of a three-way tie).
    want = f"first {word}\r\n{word}\nthird {word}\rlast line\r\ntail".encode(encoding)
    assert (agent.root / "a.txt").read_bytes() == bom + want


async def test_undecodable_bytes_outside_the_edit_stay_as_they_were(agent: Agent) -> None:
    put(agent.root, "a.txt", b"caf\xe9 \xff\xfe\nkeep me\nlast\xff")
    op = {"op": "delete_line", "hash": await _anchor(agent, 2)}
    result = await agent("edit", path="a.txt", operations=[op])
    assert result["ok"], result
    assert (agent.root / "a.txt").read_bytes() == b"caf\xe9 \xff\xfe\nlast\xff"


async def test_a_character_the_encoding_lacks_is_refused_and_nothing_written(
    agent: Agent,
) -> None:
    data = "caf\u00e9 one\nbeta two\ngamma three\n".encode("windows-1252")
    put(agent.root, "a.txt", data)
    read = {"encoding": "windows-1252"}
    op = {"op": "replace_line", "hash": await _anchor(agent, 3, **read), "content": "ok \u65e5"}
    result = await agent("edit", path="a.txt", operations=[op], **read)
    assert (result["ok"], result["error"]) == (False, "unrepresentable_character"), result
    assert result["details"]["codepoint"] == "U+65E5"
    assert (agent.root / "a.txt").read_bytes() == data

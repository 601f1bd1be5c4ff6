"""Every example in docs/protocol.md behaves as written.

An example is a fenced ``json`` block preceded by a marker comment holding JSON::

    <!-- example: {"files": {"a.txt": "one\\n"}, "steps": [...], "calls": [["waymark.read",
                   {"path": "a.txt"}]], "door": "lsp", "vary": ["token"]} -->

``files`` is the workspace before the example (text written as UTF-8; ``links`` maps a name to
a symlink target). ``steps`` run first, in order, and must succeed: ``["waymark.X", params]``
runs a command, ``{"disk": {path: text}}`` changes a file behind the session's back,
``{"backupFails": text}`` makes storing a backup of exactly that text fail with EACCES.
``calls`` run next, one per JSON object in the block, each answer compared with its object by
:func:`matches`. ``door: "lsp"`` answers as ``waymark-ls`` does (a preview gains its
``workspaceEdit``). A block that is a JSON-RPC ``workspace/executeCommand`` request is run as
that call and must succeed.

The matching rule: keys absent from the example are not compared; ``"…"`` matches any value;
``vary`` names keys whose value is random per run (a token, an undo id), which must be
present and of the example's type; ``file:///ws/`` stands for the workspace's URI; everything
else — codes, messages, diffs, hashes, lists — is compared exactly.
"""

from __future__ import annotations

import errno
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers_commands import Agent
from waymark.doors.lsp.edits import WorkspaceEdits, lsp_result
from waymark.store.history.blobs import BlobStore

ROOT = Path(__file__).resolve().parents[2]
MARKER = re.compile(r"<!-- example: (\{.*?\}) -->\n```json\n(.*?)\n```", re.S)
ANY = "…"


def examples(doc: str) -> Iterator[Any]:
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    for n, match in enumerate(MARKER.finditer(text), 1):
        line = text.count("\n", 0, match.start()) + 1
        yield pytest.param(json.loads(match[1]), match[2], id=f"{doc}:{line}#{n}")


def objects(block: str) -> list[Any]:
    """The JSON objects of a block, one after another."""
    decoder = json.JSONDecoder()
    found, at = [], 0
    while at < len(block):
        if block[at].isspace():
            at += 1
            continue
        value, at = decoder.raw_decode(block, at)
        found.append(value)
    return found


def matches(expected: Any, actual: Any, vary: set[str], uri: str, where: str = "") -> list[str]:
    """Where ``actual`` differs from the example ``expected`` (empty when it matches)."""
    if expected == ANY:
        return []
    if isinstance(expected, str) and isinstance(actual, str):
        expected = expected.replace("file:///ws/", uri)
    if isinstance(expected, dict) and isinstance(actual, dict):
        problems = []
        for key, value in expected.items():
            if key not in actual:
                problems.append(f"{where}.{key}: missing")
            elif key in vary:
                if type(actual[key]) is not type(value):
                    problems.append(f"{where}.{key}: {actual[key]!r} is not like {value!r}")
            else:
                problems += matches(value, actual[key], vary, uri, f"{where}.{key}")
        return problems
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        return [
            p
            for i, (e, a) in enumerate(zip(expected, actual, strict=True))
            for p in matches(e, a, vary, uri, f"{where}[{i}]")
        ]
    return [] if expected == actual else [f"{where}: {actual!r}, the doc shows {expected!r}"]


def _backup_fault(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    put = BlobStore.put

    def failing(self: BlobStore, digest: str, data: bytes) -> None:
        if data == text.encode():
            raise PermissionError(errno.EACCES, "Permission denied")
        put(self, digest, data)

    monkeypatch.setattr(BlobStore, "put", failing)


async def _call(agent: Agent, call: list[Any], door: str | None) -> dict[str, Any]:
    command, params = call
    result = await agent(command.removeprefix("waymark."), **params)
    if door == "lsp":
        result = await lsp_result(result, agent.ctx.pending, WorkspaceEdits(annotations=True))
    return result


@pytest.mark.parametrize(("spec", "block"), list(examples("protocol.md")))
async def test_protocol_example(
    spec: dict[str, Any], block: str, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, text in spec.get("files", {}).items():
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_bytes(text.encode())
    for name, target in spec.get("links", {}).items():
        (workspace / name).symlink_to(target)
    agent = Agent(workspace, tmp_path / "history")
    for step in spec.get("steps", []):
        if isinstance(step, list):
            done = await _call(agent, step, None)
            assert done["ok"], (step, done)
        elif "disk" in step:
            for name, text in step["disk"].items():
                (workspace / name).write_bytes(text.encode())
        else:
            _backup_fault(monkeypatch, step["backupFails"])
    shown = objects(block)
    if "calls" not in spec:  # a JSON-RPC request: the call it makes succeeds
        (request,) = shown
        assert request["method"] == "workspace/executeCommand"
        (params,) = request["params"]["arguments"]
        result = await _call(agent, [request["params"]["command"], params], None)
        assert result["ok"], result
        return
    assert len(shown) == len(spec["calls"])
    uri = workspace.as_uri() + "/"
    for call, expected in zip(spec["calls"], shown, strict=True):
        result = await _call(agent, call, spec.get("door"))
        assert matches(expected, result, set(spec.get("vary", [])), uri) == [], result


def test_every_json_block_in_protocol_md_is_an_example() -> None:
    """A result shown without a marker would go unchecked."""
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    assert text.count("```json\n") == len(list(examples("protocol.md")))

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

import ast
import errno
import json
import re
import subprocess
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
    spec: dict[str, Any],
    block: str,
    workspace: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
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


# -- docs/sed.md ------------------------------------------------------------------------------
#
# A comment ``<!-- simulated …`` or ``<!-- declined …`` holds one JSON object a line:
# ``{"example": "<text of the doc>", "line": "<the shell line>", "files": {…},
# "output": "<f afterwards>", "reason": "<the decline reason>", "gnu": "<line>"}``.
# Every line runs in a workspace holding SED_TREE updated by ``files`` (``null`` makes a
# directory, ``{"link": target}`` a symlink, ``{"text": t, "encoding": e}`` t in e,
# ``{"repeat": [text, n]}`` one line of text n times). Simulated: waymark.sed simulates it, and the
# tree is then byte for byte the one bash with GNU sed leaves in a copy (running ``gnu`` instead
# of the line when GNU reads the line otherwise, BSD's ``-i ''``); ``output`` is f's bytes then.
# Declined: not simulated, with exactly ``reason`` (``…`` in it stands for any text, a temp
# path) and ``error``, and no file changed. ``example`` ties a
# line to the doc: it is text of the table above the marker (of the prose for a marker under
# no table), and every row of that table has a line.

SED_TREE: dict[str, Any] = {"f": "a\nb\nc\n", "a.py": "a\n", "b.py": "b\n", "src/x": "a\n"}
SED_MARKER = re.compile(r"<!-- (simulated|declined)\b[^\n]*\n(.*?)\n-->", re.S)
GNU_ENV = {"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin", "HOME": "/nonexistent"}


def sed_markers() -> Iterator[tuple[str, str, list[dict[str, Any]]]]:
    """(kind, the table right above or "", its examples) per marker of sed.md."""
    text = (ROOT / "docs" / "sed.md").read_text(encoding="utf-8")
    for match in SED_MARKER.finditer(text):
        above = text[: match.start()].rstrip("\n").split("\n")
        table = []
        while above and above[-1].startswith("|"):
            table.insert(0, above.pop())
        cases = [json.loads(line) for line in match[2].split("\n") if line.strip()]
        yield match[1], "\n".join(table), cases


def sed_cases(kind: str) -> list[Any]:
    return [
        pytest.param(case, id=case["line"])
        for found, _, cases in sed_markers()
        if found == kind
        for case in cases
    ]


def _make_tree(root: Path, files: dict[str, Any]) -> None:
    for name, value in {**SED_TREE, **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if value is None:
            path.mkdir(exist_ok=True)
        elif isinstance(value, str):
            path.write_bytes(value.encode())
        elif "link" in value:
            path.symlink_to(value["link"])
        elif "encoding" in value:
            path.write_bytes(value["text"].encode(value["encoding"]))
        else:
            text, times = value["repeat"]
            path.write_bytes(text.encode() * times + b"\n")


def _tree(root: Path) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for path in sorted(root.rglob("*")):
        name = path.relative_to(root).as_posix()
        if path.is_symlink():
            found[name] = {"link": str(path.readlink())}
        elif path.is_file():
            found[name] = path.read_bytes()
    return found


def test_sed_examples_are_the_docs() -> None:
    text = (ROOT / "docs" / "sed.md").read_text(encoding="utf-8")
    prose = SED_MARKER.sub("", text)
    for _, table, cases in sed_markers():
        examples = {case["example"] for case in cases}
        assert [e for e in examples if e not in (table or prose)] == []
        rows = table.split("\n")[2:] if table else []
        assert [row for row in rows if not any(e in row for e in examples)] == []


@pytest.mark.parametrize("case", sed_cases("simulated"))
async def test_sed_doc_simulated(case: dict[str, Any], tmp_path: Path) -> None:
    ours, gnu = tmp_path / "ours", tmp_path / "gnu"
    for root in (ours, gnu):
        root.mkdir()
        _make_tree(root, case.get("files", {}))
    agent = Agent(ours, tmp_path / "history")
    result = await agent("sed", command=case["line"])
    assert result["ok"] and result["simulated"], result
    done = subprocess.run(
        ["bash", "-c", case.get("gnu", case["line"])],
        cwd=gnu,
        env=GNU_ENV,
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert _tree(ours) == _tree(gnu)
    if "output" in case:
        assert (ours / "f").read_bytes() == case["output"].encode()


@pytest.mark.parametrize("case", sed_cases("declined"))
async def test_sed_doc_declined(case: dict[str, Any], tmp_path: Path) -> None:
    _make_tree(tmp_path / "ws", case.get("files", {}))
    before = _tree(tmp_path / "ws")
    agent = Agent(tmp_path / "ws", tmp_path / "history")
    result = await agent("sed", command=case["line"])
    assert result["ok"] and result["simulated"] is False, result
    assert result.get("error") == case.get("error")
    shown = ".*".join(map(re.escape, case["reason"].split(ANY)))
    assert re.fullmatch(shown, result["reason"], re.S), result["reason"]
    assert _tree(tmp_path / "ws") == before


def test_sed_engine_example_runs_as_commented() -> None:
    """The ``python`` block of sed.md runs, and each ``expr  # value`` comment that starts
    with a Python literal is that expression's value."""
    text = (ROOT / "docs" / "sed.md").read_text(encoding="utf-8")
    (code,) = re.findall(r"```python\n(.*?)```", text, re.S)
    names: dict[str, Any] = {"old_a": b"foo_id = 1\n", "old_b": b"bar_id\n"}
    exec(compile(code, "sed.md", "exec"), names)
    assert names["new"] == [b"fooId = 1\n", b"barId\n"]
    checked = 0
    for expr, comment in re.findall(r"^(\S+)  # (.*)$", code, re.M):
        literal = re.match(r"""(\(.*?\)|'[^']*'|None)(?: |$)""", comment)
        if literal is not None:
            assert eval(expr, names) == ast.literal_eval(literal[1]), expr
            checked += 1
    assert checked == 3


async def test_protocol_prose_shapes(workspace: Path, tmp_path: Path) -> None:
    """The results protocol.md describes in its prose have the fields it names."""
    (workspace / "a.txt").write_bytes(b"a\n")
    agent = Agent(workspace, tmp_path / "history")
    typo = await agent("write", path="n.txt", content="x\n", preveiw=True)
    assert (typo["error"], typo["details"]["field"]) == ("invalid_params", "preveiw")
    assert "preview" in typo["details"]["known"]
    preview = await agent("write", path="n.txt", content="x\n", preview=True)
    discarded = await agent("discardPending", token=preview["token"])
    assert discarded == {"ok": True, "discarded": preview["token"]}
    again = await agent("applyPending", token=preview["token"])
    assert again["error"] == "unknown_token"
    snap = await agent("snapshot", promptId="t1")
    assert {"promptId", "label", "timestamp", "files"} <= snap.keys()
    sed = await agent("sed", command="sed -i s/a/b/ a.txt")
    assert (sed["simulated"], sed["details"]["writer_type"], sed["changed"]) == (True, "sed", True)
    assert sed["diff"].startswith("--- a/a.txt\n+++ b/a.txt\n")
    created = await agent("write", path="new/c.txt", content="c\n")
    assert created["action"] == "created"
    (turn,) = (await agent("turns"))["turns"]
    assert {"promptId", "label", "timestamp", "files", "edited", "canRestore", "changed"} <= (
        turn.keys()
    )
    stats = await agent("diffStats", promptId="t1")
    assert {"promptId", "filesChanged", "insertions", "deletions", "files"} <= stats.keys()
    plan = await agent("rewind", promptId="t1", preview=True)
    assert plan["promptId"] == "t1"
    assert sorted((p["path"], p["outcome"]) for p in plan["plan"]) == [
        ("a.txt", "restore"),
        ("new/c.txt", "delete"),
    ]
    tools = (await agent("describeTools"))["tools"]
    assert {"name", "command", "description", "inputSchema", "mutating"} == tools[0].keys()
    text = await agent("modelText", tool="waymark_write", result=created)
    assert isinstance(text["text"], str)

"""The editor bridge: a terminal agent's calls, made in another process, approved in the editor.

Two real ``waymark-ls`` processes (approval ``editor``) advertise workspaces A and B in a
private runtime dir; the agent is the real ``waymark`` CLI started in a workspace.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from mcp import ClientSession, StdioServerParameters, stdio_client
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from .conftest import Session, start

pytestmark = pytest.mark.asyncio(loop_scope="module")

# Unix socket paths are short (108 bytes): the runtime dir lives right under /tmp.
RUNTIME = Path(tempfile.mkdtemp(prefix="wm-bridge-"))
ENV = {**os.environ, "WAYMARK_RUNTIME_DIR": str(RUNTIME)}
ENV.pop("WAYMARK_BRIDGE", None)
SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "waymark", "serve"], server_env=ENV
)


async def _serve(
    client: LanguageClient, factory: pytest.TempPathFactory, name: str
) -> AsyncIterator[LanguageClient]:
    base = factory.mktemp(name)
    root = base / "ws"
    root.mkdir()
    options = {"historyDir": str(base / "history"), "approval": "editor"}
    client.waymark = await start(client, root, options, "visual-studio-code")  # type: ignore[attr-defined]
    # The server advertises its bridge after `initialized`: tests start once it has.
    for _ in range(100):
        if any(e["folders"] == [str(root)] for e in _entries()):
            break
        await asyncio.sleep(0.1)
    else:
        pytest.fail(f"the server on {root} never advertised its bridge in {RUNTIME}")
    yield client
    await client.shutdown_session()


@pytest_lsp.fixture(config=SERVER, scope="module")
async def editor_a(
    lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[LanguageClient]:
    async for client in _serve(lsp_client, tmp_path_factory, "bridge-a"):
        yield client


@pytest_lsp.fixture(config=SERVER, scope="module")
async def editor_b(
    lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[LanguageClient]:
    async for client in _serve(lsp_client, tmp_path_factory, "bridge-b"):
        yield client


@pytest.fixture(scope="module")
def a(editor_a: LanguageClient) -> Session:
    session: Session = editor_a.waymark  # type: ignore[attr-defined]
    return session


@pytest.fixture(scope="module")
def b(editor_b: LanguageClient) -> Session:
    session: Session = editor_b.waymark  # type: ignore[attr-defined]
    return session


async def agent(root: Path, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """One call of the real CLI in ``root``, as a terminal agent would make it."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "waymark",
        *args,
        "--root",
        str(root),
        "--session",
        "agent",
        "--history-dir",
        str(root.parent / "agent-history"),
        "--json",
        env=env or ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert out, err.decode()
    result: dict[str, Any] = json.loads(out)
    return result


@pytest.fixture(scope="module", autouse=True)
def _runtime_dir() -> Iterator[None]:
    yield
    shutil.rmtree(RUNTIME, ignore_errors=True)


def _entries() -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(RUNTIME.glob("ls-*.json"))]


async def test_discovery_is_private_and_per_workspace(a: Session, b: Session) -> None:
    assert stat.S_IMODE(RUNTIME.stat().st_mode) == 0o700
    # A server advertises itself once `initialized` has run, a moment after the handshake.
    for _ in range(100):
        folders = sorted(folder for e in _entries() for folder in e["folders"])
        if len(folders) == 2:
            break
        await asyncio.sleep(0.1)
    assert folders == sorted([str(a.root), str(b.root)])
    for path in RUNTIME.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path


async def test_the_editor_is_asked_both_times(a: Session) -> None:
    path = a.put("a.txt", b"alpha\nbeta\n")
    asked = len(a.editor.requests)
    read = await agent(a.root, "read", "a.txt")
    assert read["via"] == "editor"
    a.editor.approve = False
    try:
        declined = await agent(a.root, "replace", "a.txt", "beta", "gamma")
    finally:
        a.editor.approve = True
    assert (declined["ok"], declined["error"], declined["outcome"]) == (
        False,
        "declined",
        "declined",
    )
    assert path.read_bytes() == b"alpha\nbeta\n"
    applied = await agent(a.root, "replace", "a.txt", "beta", "delta")
    assert (applied["ok"], applied["via"], applied["outcome"]) == (True, "editor", "applied")
    assert path.read_bytes() == b"alpha\ndelta\n"
    assert len(a.editor.requests) == asked + 2
    annotations = a.editor.requests[-1].edit.change_annotations or {}
    assert [n.needs_confirmation for n in annotations.values()] == [True]


async def test_a_call_in_a_subfolder_reaches_the_editor(a: Session) -> None:
    sub = a.root / "pkg"
    path = a.put("pkg/m.py", b"x = 1\n")
    await agent(sub, "read", "m.py")
    result = await agent(sub, "replace", "m.py", "1", "2")
    assert (result["via"], result["outcome"]) == ("editor", "applied")
    assert path.read_bytes() == b"x = 2\n"


async def test_the_editors_unsaved_buffer_is_what_the_agent_reads_and_edits(a: Session) -> None:
    path = a.put("buf.txt", b"one\n")
    uri = a.editor.open(path)
    a.editor.type(uri, "one\ntwo\n")
    read = await agent(a.root, "read", "buf.txt")
    assert [line["text"] for line in read["lines"]] == ["one", "two"]
    result = await agent(a.root, "replace", "buf.txt", "two", "three")
    assert result["outcome"] == "applied"
    assert a.editor.buffers[uri][0] == "one\nthree\n"
    assert path.read_bytes() == b"one\n"  # never written under the user's unsaved buffer
    a.editor.close(uri)


async def test_two_workspaces_do_not_cross_talk(a: Session, b: Session) -> None:
    path = b.put("b.txt", b"bee\n")
    asked_a, asked_b = len(a.editor.requests), len(b.editor.requests)
    await agent(b.root, "read", "b.txt")
    result = await agent(b.root, "replace", "b.txt", "bee", "wasp")
    assert (result["via"], result["outcome"]) == ("editor", "applied")
    assert path.read_bytes() == b"wasp\n"
    assert (len(a.editor.requests), len(b.editor.requests)) == (asked_a, asked_b + 1)


async def test_no_editor_falls_back_to_local(tmp_path: Path) -> None:
    root = tmp_path / "alone"
    root.mkdir()
    (root / "f.txt").write_bytes(b"old\n")
    await agent(root, "read", "f.txt")
    result = await agent(root, "replace", "f.txt", "old", "new")
    assert (result["ok"], result["via"]) == (True, "local")
    assert "outcome" not in result
    assert (root / "f.txt").read_bytes() == b"new\n"


async def test_stale_entries_are_ignored_and_removed(tmp_path: Path) -> None:
    root = tmp_path / "stale"
    root.mkdir()
    (root / "f.txt").write_bytes(b"old\n")
    gone = subprocess.Popen(["true"])
    gone.wait()
    for pid, name in ((gone.pid, "ls-dead"), (os.getpid(), "ls-deaf")):
        socket = RUNTIME / f"{name}.sock"
        if name == "ls-deaf":
            socket.write_bytes(b"")  # exists, but nobody listens
        entry = {
            "pid": pid,
            "folders": [str(root)],
            "socket": str(socket),
            "token": "x" * 64,
            "version": "0",
        }
        fd = os.open(RUNTIME / f"{name}.json", os.O_WRONLY | os.O_CREAT, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(entry, f)
    await agent(root, "read", "f.txt")
    result = await agent(root, "replace", "f.txt", "old", "new")
    assert (result["ok"], result["via"]) == (True, "local")
    assert (root / "f.txt").read_bytes() == b"new\n"
    assert not list(RUNTIME.glob("ls-dead*")) and not list(RUNTIME.glob("ls-deaf*"))


async def test_bridge_off_runs_locally(a: Session) -> None:
    path = a.put("off.txt", b"old\n")
    asked = len(a.editor.requests)
    env = {**ENV, "WAYMARK_BRIDGE": "off"}
    await agent(a.root, "read", "off.txt", env=env)
    result = await agent(a.root, "replace", "off.txt", "old", "new", env=env)
    assert (result["via"], path.read_bytes()) == ("local", b"new\n")
    assert len(a.editor.requests) == asked


async def test_a_wrong_token_is_refused(a: Session) -> None:
    (entry,) = [e for e in _entries() if e["folders"] == [str(a.root)]]
    reader, writer = await asyncio.open_unix_connection(entry["socket"])
    request = {
        "token": "0" * 64,
        "command": "waymark.write",
        "params": {"path": str(a.root / "evil.txt"), "content": "x"},
    }
    writer.write(json.dumps(request).encode() + b"\n")
    await writer.drain()
    assert await asyncio.wait_for(reader.readline(), 10) == b""
    writer.close()
    assert not (a.root / "evil.txt").exists()


async def test_a_deeply_nested_line_drops_that_connection_only(a: Session) -> None:
    (entry,) = [e for e in _entries() if e["folders"] == [str(a.root)]]
    reader, writer = await asyncio.open_unix_connection(entry["socket"], limit=2**22)
    writer.write(b"[" * 100_000 + b"]" * 100_000 + b"\n")
    await writer.drain()
    assert await asyncio.wait_for(reader.readline(), 10) == b""
    writer.close()
    path = a.root / "after.txt"
    path.write_bytes(b"old\n")
    await agent(a.root, "read", "after.txt")
    result = await agent(a.root, "replace", "after.txt", "old", "new")
    assert result["via"] == "editor" and path.read_bytes() == b"new\n", result


def plain(value: Any) -> Any:
    """pygls hands a custom request's params over as namedtuples; the extension sees JSON."""
    if hasattr(value, "_asdict"):
        value = value._asdict()
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


class Reviewer:
    """What the VS Code extension does with ``waymark/review``: the user decides in a diff."""

    def __init__(self, client: LanguageClient) -> None:
        self.client = client
        self.asked: list[dict[str, Any]] = []
        self.decide: Callable[[dict[str, Any]], str | None] = lambda preview: None
        self.reject = False

        @client.feature("waymark/review")
        async def review(params: Any) -> dict[str, Any]:
            preview = plain(params)["preview"]
            self.asked.append({"preview": preview})
            if self.reject:
                await self.run("discardPending", token=preview["token"])
                return {"kind": "rejected"}
            arguments = {"token": preview["token"]}
            edited = self.decide(preview)
            if edited is not None:
                arguments["newContent"] = edited
            result = await self.run("applyPending", **arguments)
            return {"kind": "accepted" if result["ok"] else "failed", "result": result}

    async def run(self, verb: str, **params: Any) -> dict[str, Any]:
        result: dict[str, Any] = await self.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=f"waymark.{verb}", arguments=[params])
        )
        return result


@pytest_lsp.fixture(config=SERVER, scope="module")
async def vscode_like(
    lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[LanguageClient]:
    base = tmp_path_factory.mktemp("bridge-review")
    root = base / "ws"
    root.mkdir()
    lsp_client.reviewer = Reviewer(lsp_client)  # type: ignore[attr-defined]
    capabilities = client_capabilities("visual-studio-code")
    capabilities.experimental = {"waymarkReview": True}
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities,
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
            initialization_options={"historyDir": str(base / "history")},
        )
    )
    lsp_client.root = root  # type: ignore[attr-defined]
    for _ in range(100):
        if any(e["folders"] == [str(root)] for e in _entries()):
            break
        await asyncio.sleep(0.1)
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_the_user_edits_the_proposal_and_the_agent_gets_their_version(
    vscode_like: LanguageClient,
) -> None:
    reviewer: Reviewer = vscode_like.reviewer  # type: ignore[attr-defined]
    root: Path = vscode_like.root  # type: ignore[attr-defined]
    path = root / "greet.py"
    path.write_bytes(b"def greet():\n    return 'hi'\n\n\nX = 1\n")
    await agent(root, "read", "greet.py")
    reviewer.decide = lambda preview: preview["files"][0]["newContent"].replace("X = 2", "X = 3")
    result = await agent(root, "replace", "greet.py", "X = 1", "X = 2")
    assert (result["ok"], result["via"], result["outcome"]) == (
        True,
        "editor",
        "applied_with_user_changes",
    )
    final = "def greet():\n    return 'hi'\n\n\nX = 3\n"
    assert result["finalContent"] == {"greet.py": final}
    assert path.read_bytes() == final.encode()
    assert reviewer.asked[-1]["preview"]["files"][0]["newContent"].endswith("X = 2\n")
    # The agent's session knows the user's version: its next edit needs no re-read.
    again = await agent(root, "replace", "greet.py", "'hi'", "'hello'")
    assert (again["ok"], again["outcome"]) == (True, "applied"), again
    assert path.read_bytes() == final.replace("'hi'", "'hello'").encode()


async def test_a_rejected_hunk_stays_as_it_was(vscode_like: LanguageClient) -> None:
    reviewer: Reviewer = vscode_like.reviewer  # type: ignore[attr-defined]
    root: Path = vscode_like.root  # type: ignore[attr-defined]
    path = root / "two.txt"
    original = "a = 1\n" + "".join(f"keep {i}\n" for i in range(10)) + "b = 1\n"
    path.write_text(original)
    await agent(root, "read", "two.txt")

    def reject_first_hunk(preview: dict[str, Any]) -> str:
        proposed: str = preview["files"][0]["newContent"]
        return proposed.replace("a = 2\n", "a = 1\n", 1)

    reviewer.decide = reject_first_hunk
    edits = json.dumps(
        [
            {"old_string": "a = 1", "new_string": "a = 2"},
            {"old_string": "b = 1", "new_string": "b = 2"},
        ]
    )
    result = await agent(root, "multi-replace", "two.txt", "--edits", edits)
    assert result["outcome"] == "applied_with_user_changes", result
    assert path.read_text() == original.replace("b = 1", "b = 2")


async def test_a_rejected_review_writes_nothing(vscode_like: LanguageClient) -> None:
    reviewer: Reviewer = vscode_like.reviewer  # type: ignore[attr-defined]
    root: Path = vscode_like.root  # type: ignore[attr-defined]
    path = root / "no.txt"
    path.write_bytes(b"stay\n")
    await agent(root, "read", "no.txt")
    reviewer.reject = True
    try:
        result = await agent(root, "replace", "no.txt", "stay", "go")
    finally:
        reviewer.reject = False
    assert (result["ok"], result["error"], result["outcome"]) == (False, "declined", "declined")
    assert path.read_bytes() == b"stay\n"


async def test_waymark_mcp_changes_are_asked_in_the_editor(a: Session) -> None:
    """A separate ``waymark mcp`` in the workspace: the editor is asked both times."""
    path = a.put("mcp.txt", b"one\ntwo\n")
    asked = len(a.editor.requests)
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "waymark", "mcp"],
        cwd=str(a.root),
        env={**os.environ, "WAYMARK_RUNTIME_DIR": str(RUNTIME)},
    )
    async with stdio_client(server) as (read, write), ClientSession(read, write) as mcp:
        await mcp.initialize()
        read_result = await mcp.call_tool("waymark_read", {"path": "mcp.txt"})
        assert not read_result.is_error
        a.editor.approve = False
        try:
            declined = await mcp.call_tool(
                "waymark_replace", {"path": "mcp.txt", "old_string": "two", "new_string": "2"}
            )
        finally:
            a.editor.approve = True
        assert declined.is_error
        assert declined.content[0].text.startswith("declined: ")  # type: ignore[union-attr]
        assert path.read_bytes() == b"one\ntwo\n"
        applied = await mcp.call_tool(
            "waymark_replace", {"path": "mcp.txt", "old_string": "two", "new_string": "2"}
        )
        assert not applied.is_error
        text = json.loads(applied.content[0].text)  # type: ignore[union-attr]
        assert (text["via"], text["outcome"]) == ("editor", "applied")
    assert path.read_bytes() == b"one\n2\n"
    assert len(a.editor.requests) == asked + 2

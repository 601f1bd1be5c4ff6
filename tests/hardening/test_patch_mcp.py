"""Classes 11, 13 and 15 at the doors where they were found.

11: absurd hunk line numbers are answered fast (CLI and MCP, a few seconds at most).
13: ``waymark mcp`` answers every message it cannot take (too deep, too large, not JSON,
    not JSON-RPC) with a JSON-RPC error, logs one line, and keeps serving (raw stdio).
15: git's quoted file names in patches made by real ``git diff``, applied by ``waymark patch``
    (CLI and MCP) byte for byte as ``git apply`` does.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession

from helpers_mcp import connect
from security.wire import Wire
from waymark.engine.edits.patch import unquote_name

pytestmark = pytest.mark.timeout(300)

# The documented limits (docs/protocol.md), literal so this suite fails on a tree without them.
MAX_DEPTH = 64
MAX_MESSAGE_BYTES = 256 * 1024 * 1024

FAST = 10  # seconds: a patch of a 3-line file has no reason to take longer, even on a busy box


def run_cli(workspace: Path, *args: str, stdin: bytes | None = None) -> tuple[int, dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-m", "waymark", *args, "--json"],
        cwd=workspace,
        env=dict(os.environ),
        input=stdin,
        capture_output=True,
        timeout=FAST,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return done.returncode, result


async def mcp_patch(session: ClientSession, patch: str) -> tuple[bool, str]:
    """(is_error, the text the model reads) of one waymark_patch call, in a few seconds."""
    with anyio.fail_after(FAST):
        result = await session.call_tool("waymark_patch", {"patch": patch})
    return bool(result.is_error), result.content[0].text  # type: ignore[union-attr]


# --- class 11: absurd hunk line numbers -------------------------------------------------

ORIGINAL = b"one\ntwo\nthree\n"
HEADER = "--- a/a.txt\n+++ b/a.txt\n"
BIG = 99999999999999999999

# (hunk, what the file holds after, the error code or None, offsets reported)
ABSURD = {
    "start at 10^12": (
        "@@ -1000000000000,1 +1000000000000,1 @@\n-two\n+TWO\n",
        b"one\nTWO\nthree\n",
        None,
        [1 - (10**12 - 1)],
    ),
    "start at 10^20": (
        f"@@ -{BIG},1 +{BIG},1 @@\n-two\n+TWO\n",
        b"one\nTWO\nthree\n",
        None,
        [1 - (BIG - 1)],
    ),
    "start at 10^20, matching nowhere": (
        f"@@ -{BIG},1 +{BIG},1 @@\n-zzz\n+TWO\n",
        ORIGINAL,
        "patch_failed",
        None,
    ),
    "an insertion past the end": (
        "@@ -1000000000000,0 +1000000000001,1 @@\n+x\n",
        ORIGINAL,
        "patch_failed",
        None,
    ),
    "negative start": ("@@ --5,1 +-5,1 @@\n-two\n+TWO\n", ORIGINAL, "invalid_params", None),
    "count that overflows": (
        f"@@ -2,{BIG} +2,1 @@\n-two\n+TWO\n",
        ORIGINAL,
        "invalid_params",
        None,
    ),
}


@pytest.mark.parametrize("case", ABSURD)
def test_cli_answers_absurd_hunk_numbers_fast(workspace: Path, tmp_path: Path, case: str) -> None:
    hunk, after, error, offsets = ABSURD[case]
    (workspace / "a.txt").write_bytes(ORIGINAL)
    (tmp_path / "p.diff").write_text(HEADER + hunk)
    code, result = run_cli(workspace, "patch", str(tmp_path / "p.diff"))
    assert (workspace / "a.txt").read_bytes() == after
    if error is None:
        assert code == 0 and result["ok"] is True, result
        assert result["patched"] == [{"path": "a.txt", "status": "modified", "offsets": offsets}]
    else:
        assert code == 1 and result["error"] == error, result
        assert result["message"].endswith("."), result
        if error == "patch_failed":
            assert result["details"]["path"] == "a.txt", result


async def test_mcp_answers_absurd_hunk_numbers_fast(workspace: Path) -> None:
    target = workspace / "a.txt"
    async with connect(workspace) as session:
        for case, (hunk, after, error, offsets) in ABSURD.items():
            target.write_bytes(ORIGINAL)
            with anyio.fail_after(FAST):
                await session.call_tool("waymark_read", {"path": "a.txt"})
            err, text = await mcp_patch(session, HEADER + hunk)
            assert target.read_bytes() == after, case
            if error is None:
                assert not err, (case, text)
                assert json.loads(text)["patched"][0]["offsets"] == offsets, case
            else:
                assert err and text.startswith(f"{error}: "), (case, text)


# --- class 15: git's quoted names -------------------------------------------------------

# Names git quotes (a UTF-8 é and a Latin-1 one as octal bytes, a tab, a newline, a quote, a
# backslash) next to names it leaves alone (a space, plain ASCII), in one patch.
BEFORE: dict[bytes, bytes] = {
    b"caf\xc3\xa9.txt": b"one\ntwo\n",
    b"a b.txt": b"x\ny\n",
    b"tab\there.txt": b"p\nq\n",
    b"new\nline.txt": b"n\nm\n",
    b"plain.txt": b"plain\n",
    b"lat\xe9.txt": b"L\n",
    b"r\xc3\xa9 old.txt": b"r\ns\nt\nu\nv\n",
    b'gone "q".txt': b"bye\n",
    b"mv\\src.txt": b"same\nsame\nsame\n",
    b"sub/d\xc3\xa9p.txt": b"deep\n",
}


def plant(root: Path, files: dict[bytes, bytes]) -> None:
    for name, data in files.items():
        path = os.path.join(os.fsencode(root), name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)


def tree(root: Path) -> dict[bytes, bytes]:
    out = {}
    base = os.fsencode(root)
    for folder, dirs, files in os.walk(base):
        dirs[:] = [d for d in dirs if d != b".git"]
        for name in files:
            path = os.path.join(folder, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, base)] = f.read()
    return out


def git(repo: Path, *args: str) -> bytes:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo.parent)}
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "core.quotePath=true", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        timeout=60,
        check=True,
    )
    return done.stdout


@pytest.fixture
def git_patch(tmp_path: Path) -> tuple[bytes, dict[bytes, bytes]]:
    """A real ``git diff`` over quoted names, and the tree ``git apply`` makes of it."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", ".")
    plant(repo, BEFORE)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "before")
    base = os.fsencode(repo)
    for name in (b"caf\xc3\xa9.txt", b"a b.txt", b"tab\there.txt", b"new\nline.txt"):
        with open(os.path.join(base, name), "ab") as f:
            f.write(b"changed\n")
    for name in (b"plain.txt", b"lat\xe9.txt", b"sub/d\xc3\xa9p.txt"):
        with open(os.path.join(base, name), "ab") as f:
            f.write(b"more\n")
    os.rename(os.path.join(base, b"r\xc3\xa9 old.txt"), os.path.join(base, b"r\xc3\xa9 new.txt"))
    with open(os.path.join(base, b"r\xc3\xa9 new.txt"), "ab") as f:
        f.write(b"w\n")
    os.rename(os.path.join(base, b"mv\\src.txt"), os.path.join(base, b"mv\\dst.txt"))
    os.unlink(os.path.join(base, b'gone "q".txt'))
    plant(repo, {b'q"uote\\.txt': b"new\n", b"caf\xc3\xa9 copy.txt": b"one\ntwo\ncopy\n"})
    git(repo, "add", "-A")
    patch = git(repo, "diff", "--cached", "-M", "-C", "HEAD")
    # What git itself makes of the patch, on the tree it was made from.
    git(repo, "reset", "-q", "--hard", "HEAD")
    (tmp_path / "git.diff").write_bytes(patch)
    git(repo, "apply", str(tmp_path / "git.diff"))
    return patch, tree(repo)


def test_git_quotes_what_this_test_relies_on(git_patch: tuple[bytes, dict[bytes, bytes]]) -> None:
    patch, _ = git_patch
    for quoted in (
        b'+++ "b/caf\\303\\251.txt"',
        b'diff --git "a/lat\\351.txt" "b/lat\\351.txt"',
        b'"b/tab\\there.txt"',
        b'"b/new\\nline.txt"',
        b'rename from "r\\303\\251 old.txt"',
        b'rename from "mv\\\\src.txt"',
        b'copy to "caf\\303\\251 copy.txt"',
        b'"a/gone \\"q\\".txt"',
        b"+++ b/plain.txt",
    ):
        assert quoted in patch, quoted


def test_cli_applies_a_git_diff_with_quoted_names_as_git_apply_does(
    workspace: Path, tmp_path: Path, git_patch: tuple[bytes, dict[bytes, bytes]]
) -> None:
    patch, expected = git_patch
    plant(workspace, BEFORE)
    (tmp_path / "p.diff").write_bytes(patch)
    code, result = run_cli(workspace, "patch", str(tmp_path / "p.diff"))
    assert code == 0 and result["ok"] is True, result
    assert tree(workspace) == expected
    statuses = {entry["path"]: entry["status"] for entry in result["patched"]}
    assert statuses["café.txt"] == "modified"
    assert statuses["r\u00e9 new.txt"] == "renamed"
    assert statuses["mv\\dst.txt"] == "renamed"
    assert statuses["caf\u00e9 copy.txt"] == "copied"
    assert statuses['gone "q".txt'] == "deleted"
    assert statuses['q"uote\\.txt'] == "created"
    # A name that is not UTF-8 is reported with the surrogate escape that fsencodes back to it.
    assert statuses["lat\udce9.txt"] == "modified"


async def test_mcp_applies_a_git_diff_with_quoted_names_as_git_apply_does(
    workspace: Path, git_patch: tuple[bytes, dict[bytes, bytes]]
) -> None:
    patch, expected = git_patch
    plant(workspace, BEFORE)
    async with connect(workspace) as session:
        err, text = await mcp_patch(session, patch.decode("ascii"))
    assert not err, text
    assert tree(workspace) == expected
    paths = [entry["path"] for entry in json.loads(text)["patched"]]
    assert "lat\udce9.txt" in paths and "new\nline.txt" in paths and "tab\there.txt" in paths


def test_traditional_headers_with_one_quoted_name_keep_a_b_stripping(
    workspace: Path, tmp_path: Path
) -> None:
    """No ``diff --git`` lines: the names come from ---/+++ alone, one quoted, one not."""
    files = {b"caf\xc3\xa9.txt": b"one\ntwo\n", b"plain.txt": b"plain\n"}
    patch = (
        b'--- "a/caf\\303\\251.txt"\n+++ "b/caf\\303\\251.txt"\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n'
        b"--- a/plain.txt\n+++ b/plain.txt\n@@ -1 +1 @@\n-plain\n+PLAIN\n"
    )
    (tmp_path / "p.diff").write_bytes(patch)
    expected_root = tmp_path / "expected"
    expected_root.mkdir()
    plant(expected_root, files)
    git(expected_root, "init", "-q", ".")
    git(expected_root, "apply", str(tmp_path / "p.diff"))
    plant(workspace, files)
    code, result = run_cli(workspace, "patch", str(tmp_path / "p.diff"))
    assert code == 0, result
    assert tree(workspace) == tree(expected_root)
    assert tree(workspace)[b"caf\xc3\xa9.txt"] == b"one\nTWO\n"


@pytest.mark.parametrize(
    ("written", "name"),
    [
        ('"caf\\303\\251.txt"', "caf\u00e9.txt"),
        ('"lat\\351.txt"', "lat\udce9.txt"),
        ('"a\\tb\\nc\\\\d\\"e"', 'a\tb\nc\\d"e'),
        ('"caf\u00e9\\t.txt"', "caf\u00e9\t.txt"),
        ("plain name.txt", "plain name.txt"),
        # Not one well-formed quoted string: taken literally, as git and GNU patch do.
        ('"unclosed', '"unclosed'),
        ('"bad \\q escape"', '"bad \\q escape"'),
        ('"two" "names"', '"two" "names"'),
        ('"cut \\30"', '"cut \\30"'),
        ('"trailing \\"', '"trailing \\"'),
    ],
)
def test_quoted_names_are_unquoted_as_git_does(written: str, name: str) -> None:
    assert unquote_name(written) == name


# --- class 13: what the MCP door answers to messages it cannot take ---------------------


class RawMcp:
    """``waymark mcp`` driven with hand-made bytes on its stdin."""

    def __init__(self, workspace: Path, stderr: Path) -> None:
        self.stderr_path = stderr
        self.stderr = stderr.open("wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "waymark", "mcp"],
            cwd=workspace,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            env=dict(os.environ),
        )
        self.buffer = b""

    def send(self, body: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(body + b"\n")
        self.proc.stdin.flush()

    def request(self, request_id: int, method: str, params: dict[str, Any]) -> None:
        message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        self.send(json.dumps(message).encode())

    def answer(self, timeout: float = FAST) -> dict[str, Any]:
        """The next message the server writes."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError("waymark mcp did not answer in time")
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise EOFError("waymark mcp exited")
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        message: dict[str, Any] = json.loads(line)
        return message

    def initialize(self) -> None:
        self.request(
            1,
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"},
            },
        )
        assert "result" in self.answer()
        self.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')

    def read_tool(self, request_id: int, path: str) -> dict[str, Any]:
        self.request(
            request_id, "tools/call", {"name": "waymark_read", "arguments": {"path": path}}
        )
        return self.answer()

    def log(self) -> list[str]:
        self.stderr.flush()
        return self.stderr_path.read_text(errors="replace").splitlines()

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=FAST)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=FAST)
        self.stderr.close()


@pytest.fixture
def raw(workspace: Path, tmp_path: Path) -> Iterator[RawMcp]:
    (workspace / "a.txt").write_bytes(b"still here\n")
    server = RawMcp(workspace, tmp_path / "stderr.log")
    server.initialize()
    yield server
    server.close()


def assert_serving(raw: RawMcp, request_id: int) -> None:
    answer = raw.read_tool(request_id, "a.txt")
    assert answer["id"] == request_id, answer
    assert answer["result"]["isError"] is False, answer
    assert "still here" in answer["result"]["content"][0]["text"]


def nested(request_id: object, depth: int) -> bytes:
    """A tools/call nested ``depth`` levels in all (three of them are the call's own)."""
    inner = depth - 3
    head = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call"})[:-1]
    return (
        head.encode()
        + b', "params": {"name": "waymark_read", "arguments": {"path": '
        + b"[" * inner
        + b"]" * inner
        + b"}}}"
    )


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 200, 100_000])
def test_mcp_refuses_a_deep_message_like_the_lsp_door_and_keeps_serving(
    raw: RawMcp, depth: int
) -> None:
    raw.send(nested(7, depth))
    answer = raw.answer()
    assert answer["id"] == 7 and "result" not in answer, answer
    assert answer["error"]["code"] == -32600, answer
    assert f"nests deeper than {MAX_DEPTH} levels" in answer["error"]["message"]
    assert_serving(raw, 8)
    refused = [line for line in raw.log() if "refused" in line]
    assert len(refused) == 1 and "-32600" in refused[0], raw.log()


def test_mcp_serves_a_message_at_the_depth_limit(raw: RawMcp) -> None:
    raw.send(nested(7, MAX_DEPTH))
    answer = raw.answer()
    assert answer["id"] == 7 and answer["result"]["isError"] is True, answer
    assert answer["result"]["content"][0]["text"].startswith("invalid_params: ")


def test_mcp_answers_a_deep_notification_with_a_null_id(raw: RawMcp) -> None:
    """No id to read: JSON-RPC's answer to an invalid request whose id is unknown."""
    raw.send(
        b'{"jsonrpc": "2.0", "method": "notifications/x", "params": '
        + b"[" * 500
        + b"]" * 500
        + b"}"
    )
    answer = raw.answer()
    assert answer["id"] is None and answer["error"]["code"] == -32600, answer
    assert_serving(raw, 9)
    assert len([line for line in raw.log() if "refused" in line]) == 1, raw.log()


@pytest.mark.parametrize(
    ("body", "code", "request_id"),
    [
        (b"{not json", -32700, None),
        (b'{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {', -32700, None),
        (b"\xff\xfe", -32700, None),
        (b'{"jsonrpc": "2.0", "id": 5}', -32600, 5),
        (b'{"jsonrpc": "2.0", "id": "five", "method": 3}', -32600, "five"),
        (b"[1, 2]", -32600, None),
        (b"[" * 100_000 + b"]" * 100_000, -32600, None),
    ],
)
def test_mcp_answers_what_is_not_a_message_and_keeps_serving(
    raw: RawMcp, body: bytes, code: int, request_id: object
) -> None:
    raw.send(body)
    answer = raw.answer()
    assert answer == {"jsonrpc": "2.0", "id": request_id, "error": answer["error"]}, answer
    assert answer["error"]["code"] == code, answer
    assert answer["error"]["message"].endswith("."), answer
    assert_serving(raw, 10)
    assert len([line for line in raw.log() if "refused" in line]) == 1, raw.log()


def test_mcp_answers_a_lone_surrogate_in_a_path_with_invalid_params(
    raw: RawMcp, workspace: Path
) -> None:
    """Python's JSON takes "\\ud800", the SDK's parser drops the line: the door answers it."""
    raw.send(
        b'{"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": {"name": '
        b'"waymark_write", "arguments": {"path": "new\\ud800.txt", "content": "x"}}}'
    )
    answer = raw.answer()
    assert answer["id"] == 11 and answer["error"]["code"] == -32602, answer
    assert "lone surrogate" in answer["error"]["message"], answer
    assert_serving(raw, 12)
    assert sorted(os.listdir(workspace)) == ["a.txt"]


def test_mcp_refuses_an_oversized_message_reading_it_in_bounded_memory(
    raw: RawMcp, workspace: Path
) -> None:
    head = (
        b'{"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": {"name": '
        b'"waymark_write", "arguments": {"path": "big.txt", "content": "'
    )
    assert raw.proc.stdin is not None
    raw.proc.stdin.write(head)
    chunk = b"x" * (1 << 20)
    for _ in range(MAX_MESSAGE_BYTES // len(chunk) + 1):
        raw.proc.stdin.write(chunk)
    raw.send(b'"}}}')
    answer = raw.answer(timeout=120)
    assert answer["id"] == 11 and answer["error"]["code"] == -32600, answer
    assert f"over {MAX_MESSAGE_BYTES} bytes" in answer["error"]["message"]
    assert not (workspace / "big.txt").exists()
    assert_serving(raw, 12)
    # Held at most up to the limit (a message may be that large), never read whole.
    status = Path(f"/proc/{raw.proc.pid}/status")
    if status.exists():
        peak = next(x for x in status.read_text().splitlines() if x.startswith("VmHWM"))
        assert int(peak.split()[1]) * 1024 < MAX_MESSAGE_BYTES + (128 << 20), peak


def test_lsp_refuses_an_oversized_message_with_the_same_limit(
    workspace: Path, tmp_path: Path
) -> None:
    wire = Wire()
    try:
        wire.initialize(workspace, {"historyDir": str(tmp_path / "history")})
        head = (
            b'{"jsonrpc": "2.0", "id": 21, "method": "workspace/executeCommand", "params": '
            b'{"command": "waymark.write", "arguments": [{"path": "big.txt", "content": "'
        )
        tail = b'"}]}}'
        chunk = b"x" * (1 << 20)
        count = MAX_MESSAGE_BYTES // len(chunk) + 1
        assert wire.proc.stdin is not None
        length = len(head) + count * len(chunk) + len(tail)
        wire.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % length + head)
        for _ in range(count):
            wire.proc.stdin.write(chunk)
        wire.proc.stdin.write(tail)
        wire.proc.stdin.flush()
        answer = wire.response(21, timeout=120)
        assert answer["error"]["code"] == -32600, answer
        assert f"over {MAX_MESSAGE_BYTES} bytes" in answer["error"]["message"]
        assert not (workspace / "big.txt").exists()
        (workspace / "a.txt").write_bytes(b"still\n")
        assert wire.command("waymark.read", {"path": "a.txt"})["ok"] is True
    finally:
        wire.close()

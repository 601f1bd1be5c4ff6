"""Paths on every door: `..` after a symlinked directory, lone surrogates, and a private
state directory whatever the umask."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import mcp_types
import pytest

from helpers_mcp import call
from helpers_mcp import connect as mcp
from security.wire import Wire
from waymark.doors.entry import open_door
from waymark.doors.mcp_server import WaymarkMcp

pytestmark = pytest.mark.timeout(180)


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def run_cli(workspace: Path, *args: str, umask: int | None = None) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "waymark", *args, "--json"],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=None if umask is None else (lambda: os.umask(umask)),
    )
    assert "Traceback" not in done.stderr, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def hook(workspace: Path, event: dict[str, Any], *, umask: int | None = None) -> tuple[Any, str]:
    done = subprocess.run(
        [sys.executable, "-m", "waymark", "hook", "claude-code"],
        input=json.dumps({"cwd": str(workspace), "session_id": "s1", **event}),
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=None if umask is None else (lambda: os.umask(umask)),
    )
    assert done.returncode == 0, done.stderr
    return (json.loads(done.stdout) if done.stdout else None), done.stderr


# -- class 2: `..` after a symlinked directory ------------------------------------------------


@pytest.fixture
def linked(workspace: Path) -> Path:
    """``lib -> vendor/pkg/lib``: to the kernel ``lib/../config.txt`` is vendor/pkg's."""
    (workspace / "vendor" / "pkg" / "lib").mkdir(parents=True)
    (workspace / "vendor" / "pkg" / "config.txt").write_bytes(b"inner\n")
    (workspace / "config.txt").write_bytes(b"outer\n")
    (workspace / "lib").symlink_to("vendor/pkg/lib")
    assert (workspace / "lib" / ".." / "config.txt").read_bytes() == b"inner\n"
    return workspace


def test_cli_read_opens_the_file_the_kernel_opens(linked: Path) -> None:
    result = run_cli(linked, "read", "lib/../config.txt")
    assert result["ok"], result
    assert result["text"] == "     1\tinner\n"
    assert result["path"] == "vendor/pkg/config.txt"


def test_cli_replace_and_write_change_the_file_the_kernel_opens(linked: Path) -> None:
    assert run_cli(linked, "read", "lib/../config.txt")["ok"]
    result = run_cli(linked, "replace", "lib/../config.txt", "inner", "one")
    assert result["ok"], result
    assert result["path"] == "vendor/pkg/config.txt"
    assert (linked / "vendor/pkg/config.txt").read_bytes() == b"one\n"
    result = run_cli(linked, "write", "lib/../config.txt", "--content", "two\n")
    assert result["ok"], result
    assert (linked / "vendor/pkg/config.txt").read_bytes() == b"two\n"
    assert (linked / "config.txt").read_bytes() == b"outer\n"


def test_cli_write_through_a_link_into_git_is_protected(workspace: Path) -> None:
    (workspace / ".git" / "hooks").mkdir(parents=True)
    (workspace / ".git" / "config").write_bytes(b"[core]\n")
    (workspace / "g").symlink_to(".git/hooks")
    before = tree(workspace)
    result = run_cli(workspace, "write", "g/../config", "--content", "evil\n")
    assert result["error"] == "protected_path", result
    assert tree(workspace) == before


def test_cli_dotdot_out_of_a_missing_directory_is_refused(linked: Path) -> None:
    before = tree(linked)
    result = run_cli(linked, "write", "nowhere/../new.txt", "--content", "x\n")
    assert result["error"] == "invalid_params", result
    assert result["message"] == (
        "`nowhere/../new.txt` goes up (`..`) out of nowhere, which is not a directory, so "
        "the path names no file; name the file without `..`."
    )
    assert tree(linked) == before
    assert not (linked / "nowhere").exists()


async def test_mcp_read_and_write_use_the_file_the_kernel_opens(linked: Path) -> None:
    async with mcp(linked) as session:
        err, text = await call(session, "waymark_read", path="lib/../config.txt")
        assert not err and text == "     1\tinner\n", text
        err, text = await call(session, "waymark_write", path="lib/../config.txt", content="new\n")
        assert not err, text
        assert json.loads(text)["path"] == "vendor/pkg/config.txt"
    assert (linked / "vendor/pkg/config.txt").read_bytes() == b"new\n"
    assert (linked / "config.txt").read_bytes() == b"outer\n"


def test_hook_sed_operand_edits_what_gnu_sed_edits(linked: Path, tmp_path: Path) -> None:
    twin = tmp_path / "twin"
    shutil.copytree(linked, twin, symlinks=True)
    command = "sed -i 's/inner/changed/;s/outer/changed/' lib/../config.txt"
    subprocess.run(command, shell=True, cwd=twin, check=True, timeout=30)
    event = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    }
    answer, stderr = hook(linked, event)
    assert answer is not None, stderr
    assert answer["hookSpecificOutput"]["permissionDecision"] == "allow"
    assert "vendor/pkg/config.txt" in answer["hookSpecificOutput"]["updatedInput"]["command"]
    assert tree(linked) == tree(twin)
    assert (linked / "vendor/pkg/config.txt").read_bytes() == b"changed\n"


# -- class 20: lone surrogates and the umask ----------------------------------------------------


SURROGATE_CALLS = [
    ("waymark_write", {"path": "new\ud800.txt", "content": "x\n"}, "path"),
    ("waymark_read", {"path": "a\ud800.txt"}, "path"),
    ("waymark_replace", {"path": "a\ud800.txt", "old_string": "a", "new_string": "b"}, "path"),
    (
        "waymark_edit",
        {
            "path": "\ud800",
            "operations": [{"op": "insert_before", "hash": "1#abcdef", "content": "x"}],
        },
        "path",
    ),
    ("waymark_sed", {"command": "sed -i s/a/b/ a.txt", "cwd": "d\ud800"}, "cwd"),
]


async def test_mcp_lone_surrogate_in_a_path_is_invalid_params(workspace: Path) -> None:
    # The SDK's own JSON reader drops a line holding a "\\ud800" escape before any tool sees
    # it (a transport matter); what a tool call carrying one gets is decided by the door.
    (workspace / "a.txt").write_bytes(b"a\n")
    before = tree(workspace)
    door = WaymarkMcp(open_door(workspace))
    for tool, arguments, field in SURROGATE_CALLS:
        params = mcp_types.CallToolRequestParams(name=tool, arguments=arguments)
        result = await door.call_tool(None, params)  # type: ignore[arg-type]
        assert result.is_error, (tool, result)
        text = result.content[0].text  # type: ignore[union-attr]
        assert text.startswith(f"invalid_params: The parameter `{field}` holds a lone "), text
        assert "send the file name as valid Unicode" in text, text
    assert tree(workspace) == before


def test_cli_params_lone_surrogate_in_a_path_is_invalid_params(workspace: Path) -> None:
    raw = json.dumps({"path": "new\ud800.txt", "content": "x\n"})
    result = run_cli(workspace, "write", "--params", raw)
    assert result["error"] == "invalid_params", result
    # At the CLI a parameter is named as the user typed it: the PATH argument.
    assert result["message"] == (
        "The parameter `PATH` holds a lone surrogate (U+D800 at offset 3), which names no "
        "file; send the file name as valid Unicode."
    )
    assert os.listdir(workspace) == []


def test_lsp_lone_surrogate_in_a_path_is_invalid_params(workspace: Path) -> None:
    wire = Wire()
    try:
        wire.initialize(workspace, {"historyDir": str(workspace.parent / "history")})
        result = wire.command("waymark.write", {"path": "new\ud800.txt", "content": "x\n"})
        assert result["error"] == "invalid_params", result
        assert result["details"]["field"] == "path"
        # A name that is not UTF-8 (byte 0xE9) travels as a surrogate escape and still works.
        result = wire.command("waymark.write", {"path": "caf\udce9.txt", "content": "x\n"})
        assert result["ok"], result
    finally:
        wire.close()
    assert os.listdir(workspace) == ["caf\udce9.txt"]
    assert (workspace / os.fsdecode(b"caf\xe9.txt")).read_bytes() == b"x\n"


def test_state_is_private_under_umask_000(workspace: Path) -> None:
    state = Path(os.environ["XDG_STATE_HOME"])
    (workspace / "a.txt").write_bytes(b"one\n")
    subprocess.run(["git", "init", "-q", str(workspace)], check=True, timeout=30)
    assert run_cli(workspace, "read", "a.txt", umask=0)["ok"]
    assert run_cli(workspace, "replace", "a.txt", "one", "two", umask=0)["ok"]
    assert run_cli(workspace, "write", "sub/b.txt", "--content", "b\n", umask=0)["ok"]
    assert run_cli(workspace, "write", "c.txt", "--content", "c\n", "--session", "s2", umask=0)[
        "ok"
    ]
    shell = {"command": "echo z > a.txt; echo u > untracked.txt"}
    for name in ("PreToolUse", "PostToolUse"):
        event = {
            "hook_event_name": name,
            "tool_name": "Bash",
            "tool_input": shell,
            "tool_use_id": "t1",
        }
        hook(workspace, event, umask=0)
    # A second command leaves the shell cache (blobs, index) and its pending state behind.
    event = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": shell,
        "tool_use_id": "t2",
    }
    hook(workspace, event, umask=0)
    runtime = workspace.parent / "run" / "waymark"
    old = os.umask(0)
    try:
        wire = Wire({"WAYMARK_RUNTIME_DIR": str(runtime)})
    finally:
        os.umask(old)
    try:
        wire.initialize(workspace, {})
        assert wire.command("waymark.read", {"path": "a.txt"})["ok"]
        # The server advertises its bridge once `initialized` has run, a moment after the
        # handshake: a command may be answered before (on a loaded machine, it was).
        advertised = [runtime / f"ls-{wire.proc.pid}.{kind}" for kind in ("json", "sock")]
        for _ in range(300):
            if all(path.exists() for path in advertised):
                break
            time.sleep(0.1)
        else:
            pytest.fail(f"the server never advertised its bridge in {runtime}")
        registry = {
            p.name: stat.S_IMODE(p.lstat().st_mode) for p in [runtime.parent, *runtime.rglob("*")]
        }
        registry[runtime.name] = stat.S_IMODE(runtime.lstat().st_mode)
    finally:
        wire.close()
    assert registry == {
        "run": 0o700,
        "waymark": 0o700,
        f"ls-{wire.proc.pid}.json": 0o600,
        f"ls-{wire.proc.pid}.sock": 0o600,
    }
    done = subprocess.run(
        [sys.executable, "-m", "waymark", "run", "--", "sh", "-c", "echo y > a.txt"],
        cwd=workspace,
        capture_output=True,
        timeout=60,
        preexec_fn=lambda: os.umask(0),
    )
    assert done.returncode == 0, done.stderr
    modes = {
        p.relative_to(state).as_posix(): stat.S_IMODE(p.lstat().st_mode)
        for p in [state, *state.rglob("*")]
    }
    assert any("/shell/blobs/" in p for p in modes), modes
    assert any(p.endswith("cli-session.json") for p in modes), modes
    wrong = {p: oct(m) for p, m in modes.items() if m != (0o700 if (state / p).is_dir() else 0o600)}
    assert wrong == {}
    # The workspace's own new directories and files follow the umask, as any tool's do.
    assert stat.S_IMODE((workspace / "sub").stat().st_mode) == 0o777
    assert stat.S_IMODE((workspace / "sub" / "b.txt").stat().st_mode) == 0o666


# -- issue 38, class 11: the kind of file before its size -----------------------------------------

# Every command that reads or writes a path, each given the directory `d`.
ON_A_DIRECTORY = [
    ("waymark.read", {"path": "d"}),
    ("waymark.edit", {"path": "d", "operations": [{"op": "delete_line", "hash": "abcdef"}]}),
    ("waymark.replace", {"path": "d", "old_string": "a", "new_string": "b"}),
    ("waymark.multiReplace", {"path": "d", "edits": [{"old_string": "a", "new_string": "b"}]}),
    ("waymark.write", {"path": "d", "content": "x"}),
    ("waymark.notebookEdit", {"path": "d", "operations": [{"op": "insert_cell", "source": "x"}]}),
    ("waymark.patch", {"patch": "--- a/d\n+++ b/d\n@@ -1 +1 @@\n-a\n+b\n"}),
    ("waymark.patch", {"patch": "--- /dev/null\n+++ b/d\n@@ -0,0 +1 @@\n+b\n"}),
    ("waymark.sed", {"command": "sed -i s/a/b/ d"}),
]


@pytest.mark.parametrize(("command", "params"), ON_A_DIRECTORY)
def test_a_directory_is_is_directory_whatever_max_file_size(
    workspace: Path, command: str, params: dict[str, Any]
) -> None:
    """A directory's 4096 bytes are over a small maxFileSize: it was `file_too_large`."""
    (workspace / "d").mkdir()
    (workspace / "d" / "x.txt").write_bytes(b"a\n")
    before = tree(workspace)
    wire = Wire()
    try:
        wire.initialize(
            workspace, {"historyDir": str(workspace.parent / "history"), "maxFileSize": 1000}
        )
        result = wire.command(command, params)
    finally:
        wire.close()
    # sed declines what it cannot simulate, naming why (the shell then runs the real sed).
    assert result.get("error") == "is_directory", result
    assert "d is a directory; pass a file path." in (result.get("message") or result["reason"])
    assert tree(workspace) == before

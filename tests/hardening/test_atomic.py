"""A change of several files lands whole or not at all; a vanished workspace is refused.

Faults are real OS faults made in a private mount namespace (``unshare -rm``, ``unshare -m``
as root is the fallback), the way tests/unit/test_faults.py makes them: a read-only bind mount
of one directory of the workspace (EROFS) or a tiny tmpfs on it (ENOSPC). Only the Waymark
process runs inside the namespace; the rest of the workspace is the real directory the test
looks at afterwards. A concurrent change in the middle of a batch is injected in-process, at
the moment the first file has just been replaced on disk.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession

from helpers_commands import Agent, cli, put
from helpers_mcp import call, connect

pytestmark = pytest.mark.timeout(180)

SETUP_FAILED = 97
READ_ONLY = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1"'
# After the command, print what the fault directory holds (hex by name) as stderr's last line:
# a tmpfs lives only as long as the namespace, so the test cannot look at it afterwards.
DUMP = (
    "import json, os, sys; d = sys.argv[1]; "
    "print(json.dumps({n: open(os.path.join(d, n), 'rb').read().hex() for n in os.listdir(d)}))"
)


@cache
def _unshare() -> tuple[str, ...]:
    reasons = []
    for prefix in (("unshare", "-rm"), ("unshare", "-m")):
        if shutil.which(prefix[0]) is None:
            reasons.append(f"{prefix[0]} is not installed")
            continue
        probe = subprocess.run([*prefix, "true"], capture_output=True, text=True, timeout=30)
        if probe.returncode == 0:
            return prefix
        reasons.append(f"{' '.join(prefix)}: {probe.stderr.strip()}")
    # A fault test that cannot make its fault must not pass quietly.
    pytest.fail("no private mount namespace: " + "; ".join(reasons))


def namespaced(setup: str, directory: Path) -> list[str]:
    """An argv prefix: run the rest after ``setup`` (sh, ``$1`` = ``directory``) in a private
    mount namespace."""
    script = f'{setup} || exit {SETUP_FAILED}; shift; exec "$@"'
    return [*_unshare(), "sh", "-c", script, "sh", str(directory)]


def run(argv: list[str], cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        argv, cwd=cwd, input=stdin, capture_output=True, text=True, timeout=120, env=os.environ
    )
    assert done.returncode != SETUP_FAILED, f"could not set up the fault: {done.stderr}"
    return done


def waymark(*args: str) -> list[str]:
    return [sys.executable, "-m", "waymark", *args]


def tree(root: Path) -> dict[str, bytes | None]:
    """Every file (None: a directory) under ``root``, temp files included."""
    return {
        str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None)
        for p in sorted(root.rglob("*"))
    }


def no_edits(workspace: Path) -> None:
    """The history holds no write: no turn lists an edited file."""
    turns = cli(workspace, "turns")["turns"]
    assert all(t["edited"] == [] for t in turns), turns


# -- sed with several operands -------------------------------------------------------------------


def test_cli_sed_of_two_files_changes_neither_when_the_second_is_read_only(
    workspace: Path,
) -> None:
    put(workspace, "a.txt", b"alpha\r\nbeta\n")
    put(workspace, "ro/b.txt", b"alpha\n")
    before = tree(workspace)
    done = run(
        [
            *namespaced(READ_ONLY, workspace / "ro"),
            *waymark("sed", "sed -i 's/alpha/ALPHA/' a.txt ro/b.txt", "--json"),
        ],
        workspace,
    )
    result = json.loads(done.stdout)
    failed = str(workspace / "ro" / "b.txt")
    assert result == {
        "ok": False,
        "error": "io_error",
        "message": f"Could not write {failed}: Read-only file system (EROFS); nothing was "
        "changed, fix the cause and retry.",
        "details": {"errno": "EROFS", "path": failed},
        "via": "local",
    }
    assert tree(workspace) == before
    no_edits(workspace)


def test_cli_sed_of_two_files_changes_neither_when_the_second_fills_the_disk(
    workspace: Path, tmp_path: Path
) -> None:
    a = put(workspace, "a.txt", b"x\n" * 4)
    (workspace / "small").mkdir()
    original = tmp_path / "b.orig"
    original.write_bytes(b"x\n" * 4096)  # 8 KB, and 32 times more after the sed
    before = tree(workspace)
    fill = f'mount -t tmpfs -o size=64k waymark-enospc "$1" && cp {original} "$1/b.txt"'
    dump = ["sh", "-c", '"$@"; rc=$?; "$0" -c "$DUMP" small >&2; exit $rc', sys.executable]
    env = {**os.environ, "DUMP": DUMP}
    done = subprocess.run(
        [
            *namespaced(fill, workspace / "small"),
            *dump,
            *waymark("sed", "sed -i 's/x/" + "y" * 32 + "/' a.txt small/b.txt", "--json"),
        ],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode != SETUP_FAILED, done.stderr
    result = json.loads(done.stdout)
    failed = str(workspace / "small" / "b.txt")
    assert result["error"] == "io_error", result
    assert result["details"] == {"errno": "ENOSPC", "path": failed}
    assert result["message"].startswith(f"Could not write {failed}: No space left on device")
    # The tmpfs as the namespace saw it: the original, and no temp file left behind.
    assert json.loads(done.stderr.splitlines()[-1]) == {"b.txt": original.read_bytes().hex()}
    assert a.read_bytes() == b"x\n" * 4
    assert tree(workspace) == before
    no_edits(workspace)


def test_hook_sed_that_fails_on_the_second_file_leaves_the_host_one_clean_run(
    workspace: Path,
) -> None:
    a = put(workspace, "a.txt", b"one a\n")
    put(workspace, "ro/b.txt", b"an a\n")
    command = "sed -i 's/a/aa/' a.txt ro/b.txt"
    event = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "call-1",
        "cwd": str(workspace),
    }
    # The hook answers, then the host runs the real command unless the hook denied it.
    host = '"$@"; echo; echo "=== host runs the command"; ' + command + '; echo "sed exit $?"'
    done = run(
        [
            *namespaced(READ_ONLY, workspace / "ro"),
            "sh",
            "-c",
            host,
            "sh",
            *waymark("hook", "claude-code"),
        ],
        workspace,
        stdin=json.dumps(event),
    )
    answer, _, ran = done.stdout.partition("\n=== host runs the command\n")
    assert answer.strip() == "", answer  # no decision: the shell command runs as usual
    assert ran.endswith("sed exit 4\n"), done  # GNU sed, too, cannot write ro/b.txt
    assert "running the shell command as is" in done.stderr
    # Edited once, by the host's own sed: the failed simulation changed nothing.
    assert a.read_bytes() == b"one aa\n"
    assert (workspace / "ro" / "b.txt").read_bytes() == b"an a\n"


# -- patch of several files, over MCP ------------------------------------------------------------

PATCH = """\
--- a/a.txt
+++ b/a.txt
@@ -1,2 +1,2 @@
 keep
-old a
+new a
--- /dev/null
+++ b/new/c.txt
@@ -0,0 +1 @@
+created
diff --git a/d.txt b/d.txt
deleted file mode 100644
--- a/d.txt
+++ /dev/null
@@ -1 +0,0 @@
-doomed
diff --git a/e.txt b/f.txt
similarity index 50%
rename from e.txt
rename to f.txt
--- a/e.txt
+++ b/f.txt
@@ -1,2 +1,2 @@
 moved
-old e
+new e
--- a/{last}
+++ b/{last}
@@ -1 +1 @@
-old last
+new last
"""


def patch_workspace(workspace: Path, last: str) -> None:
    put(workspace, "a.txt", b"keep\r\nold a\r\n")
    put(workspace, "d.txt", b"doomed\n")
    put(workspace, "e.txt", b"moved\nold e\n")
    put(workspace, last, b"old last\n")


def mcp_server(workspace: Path, prefix: list[str]) -> AbstractAsyncContextManager[ClientSession]:
    return connect(workspace, [*prefix, *waymark("mcp")])


async def test_mcp_patch_that_creates_deletes_renames_and_fails_on_the_last_file_changes_nothing(
    workspace: Path,
) -> None:
    patch_workspace(workspace, "ro/z.txt")
    before = tree(workspace)
    async with mcp_server(workspace, namespaced(READ_ONLY, workspace / "ro")) as session:
        err, text = await call(session, "waymark_patch", patch=PATCH.format(last="ro/z.txt"))
    failed = str(workspace / "ro" / "z.txt")
    assert err
    assert text == (
        f"io_error: Could not write {failed}: Read-only file system (EROFS); nothing was "
        "changed, fix the cause and retry.\n"
        + json.dumps({"errno": "EROFS", "path": failed}, separators=(",", ":"))
    )
    assert tree(workspace) == before  # no new/ directory either
    no_edits(workspace)


# -- a concurrent change in the middle of the batch ----------------------------------------------


def change_when_replaced(
    monkeypatch: pytest.MonkeyPatch, first: str, victim: Path, data: bytes
) -> list[bool]:
    """Once ``first`` has been renamed into place, another process rewrites ``victim``."""
    real_rename = os.rename
    fired: list[bool] = []

    def rename(src: Any, dst: Any, *, src_dir_fd: Any = None, dst_dir_fd: Any = None) -> None:
        real_rename(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)
        if os.fspath(dst) == first and not fired:
            fired.append(True)
            victim.write_bytes(data)

    monkeypatch.setattr(os, "rename", rename)
    return fired


Call = Callable[[Agent], Any]


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(lambda agent: agent("patch", patch=PATCH.format(last="z.txt")), id="patch"),
        pytest.param(
            lambda agent: agent("sed", command="sed -i.bak 's/old/new/' a.txt d.txt e.txt z.txt"),
            id="sed-with-backups",
        ),
    ],
)
async def test_a_file_changed_during_the_batch_undoes_the_files_already_written(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: Call
) -> None:
    patch_workspace(workspace, "z.txt")
    os.chmod(workspace / "a.txt", 0o640)
    os.chmod(workspace / "d.txt", 0o600)
    agent = Agent(workspace, tmp_path / "history")
    before = tree(workspace)
    fired = change_when_replaced(monkeypatch, "a.txt", workspace / "z.txt", b"theirs\n")
    result = await command(agent)
    assert fired
    assert result == {
        "ok": False,
        "error": "file_changed_since_read",
        "message": "z.txt changed after this change was planned; read it again and redo the "
        "change against the current content.",
        "details": {"path": "z.txt", "suggested_action": "re-read_file"},
    }
    assert tree(workspace) == {**before, "z.txt": b"theirs\n"}
    assert [os.stat(workspace / n).st_mode & 0o777 for n in ("a.txt", "d.txt")] == [0o640, 0o600]
    assert all(t.edited == () for t in agent.ctx.history.turns())  # type: ignore[union-attr]


# -- the workspace directory renamed or deleted under a running `waymark mcp` ---------------------

READ_BEFORE = ("a.txt",)


def _moved(workspace: Path, elsewhere: Path) -> None:
    workspace.rename(elsewhere)


def _deleted(workspace: Path, elsewhere: Path) -> None:
    shutil.rmtree(workspace)


def _replaced(workspace: Path, elsewhere: Path) -> None:
    workspace.rename(elsewhere)
    workspace.mkdir()


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("waymark_write", {"path": "sub/new.txt", "content": "hello\n"}),
    ("waymark_write", {"path": "a.txt", "content": "overwritten\n"}),
    ("waymark_patch", {"patch": "--- /dev/null\n+++ b/p/new.txt\n@@ -0,0 +1 @@\n+made\n"}),
    ("waymark_replace", {"path": "a.txt", "old_string": "alpha", "new_string": "ALPHA"}),
    ("waymark_sed", {"command": "sed -i 's/alpha/ALPHA/' a.txt"}),
]


@pytest.mark.parametrize(
    "vanish", [_moved, _deleted, _replaced], ids=["moved", "deleted", "replaced"]
)
async def test_mcp_refuses_every_write_once_its_workspace_is_gone(
    workspace: Path, tmp_path: Path, vanish: Callable[[Path, Path], None]
) -> None:
    put(workspace, "a.txt", b"alpha\n")
    elsewhere = tmp_path / "moved-ws"
    async with mcp_server(workspace, []) as session:
        err, text = await call(session, "waymark_read", path="a.txt")
        assert not err, text
        vanish(workspace, elsewhere)
        kept = tree(elsewhere) if elsewhere.exists() else None
        answers = [await call(session, tool, **arguments) for tool, arguments in CALLS]
    for err, text in answers:
        assert err, text
        code, _, rest = text.partition(": ")
        message, _, details = rest.partition("\n")
        assert code == "workspace_gone", text
        how = (
            "is no longer the directory Waymark opened (that one was moved or deleted and "
            "another took its place)"
            if vanish is _replaced
            else "no longer exists (moved or deleted since Waymark opened it)"
        )
        assert message == (
            f"The workspace folder {workspace} {how}, so nothing was changed; restart Waymark "
            "(its MCP server, or the editor) in the workspace's current location."
        )
        reason = "replaced" if vanish is _replaced else "missing"
        assert json.loads(details) == {"folder": str(workspace), "reason": reason}
    if vanish is _replaced:
        assert tree(workspace) == {}
    else:
        assert not workspace.exists()  # never re-created
    if kept is not None:
        assert tree(elsewhere) == kept


# -- putting back fails too ----------------------------------------------------------------------


def test_hook_denies_the_real_sed_when_a_partial_write_cannot_be_undone(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from waymark.doors.entry import open_door
    from waymark.doors.hooks.handlers import simulate_sed
    from waymark.doors.hosts import HOSTS, read_call

    a = put(workspace, "a.txt", b"one a\n")
    b = put(workspace, "b.txt", b"an a\n")
    real_rename = os.rename
    renames_to_a: list[object] = []

    def rename(src: Any, dst: Any, *, src_dir_fd: Any = None, dst_dir_fd: Any = None) -> None:
        if os.fspath(dst) == "a.txt":
            renames_to_a.append(src)
            if len(renames_to_a) == 2:  # the rename that would put a.txt back
                raise OSError(5, "Input/output error")
        real_rename(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)
        if len(renames_to_a) == 1 and os.fspath(dst) == "a.txt":
            b.write_bytes(b"the user's b\n")

    monkeypatch.setattr(os, "rename", rename)
    door = open_door(workspace)
    command = "sed -i 's/a/aa/' a.txt b.txt"
    host = HOSTS["claude-code"]
    call = read_call(
        host,
        {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": command}},
    )
    answer = simulate_sed(door, host, call, command, str(workspace))
    assert answer is not None
    output = answer["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    assert output["permissionDecisionReason"] == (
        "Waymark applied only part of this sed -i: Could not write "
        f"{b} (file_changed_since_read), and could not put back {a}, which this change had "
        "already written (changed again meanwhile, or the disk refused); read them before "
        "changing them again. Do not run the command again; read those files and finish the "
        "change there."
    )
    assert a.read_bytes() == b"one aa\n"
    assert b.read_bytes() == b"the user's b\n"
    assert sorted(p.name for p in workspace.iterdir()) == ["a.txt", "b.txt"]  # no temp file
    # The history knows a.txt changed, so a rewind can undo it.
    monkeypatch.setattr(os, "rename", real_rename)
    turns = cli(workspace, "turns")["turns"]
    assert [t["edited"] for t in turns] == [["a.txt"]]
    assert cli(workspace, "rewind", turns[0]["promptId"])["ok"] is True
    assert a.read_bytes() == b"one a\n"

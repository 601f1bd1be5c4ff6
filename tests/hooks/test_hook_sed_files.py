"""A simulated ``sed -i`` that reads (``r``) or writes (``w``, ``s///w``) other files, through
the hook as a host runs it and through the CLI: exact bytes on disk, the exact text the model
reads, a rewind that undoes the w files, and declines that write nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from helpers_commands import cli
from helpers_hooks import hook, pre_tool

pytestmark = pytest.mark.timeout(120)


def _shown(workspace: Path, command: str) -> bytes:
    """What the model reads: the output of the command the hook put instead of the sed."""
    answer, _ = hook("claude-code", workspace, pre_tool("Bash", command=command))
    assert answer is not None
    rewritten = answer["hookSpecificOutput"]["updatedInput"]["command"]
    shown = subprocess.run(["sh", "-c", rewritten], capture_output=True, timeout=10)
    assert shown.returncode == 0
    return shown.stdout


def test_hook_writes_the_w_files_and_a_rewind_undoes_them(workspace: Path) -> None:
    app = workspace / "app.py"
    app.write_bytes(b"foo 1\nbar\nfoo 2")
    (workspace / "old.txt").write_bytes(b"old\n")
    hook(
        "claude-code",
        workspace,
        {"hook_event_name": "UserPromptSubmit", "prompt": "p", "prompt_id": "p1"},
    )
    command = "sed -i 's/foo/baz/w changes.txt\n/nothing/w old.txt\n/nothing/w empty.txt' app.py"
    assert _shown(workspace, command) == (
        b"Waymark applied this sed -i as a tracked edit (waymark_rewind undoes it). "
        b"The 4 files changed like this:\n"
        b"--- a/app.py\n+++ b/app.py\n@@ -1,3 +1,3 @@\n-foo 1\n+baz 1\n bar\n-foo 2\n"
        b"\\ No newline at end of file\n+baz 2\n\\ No newline at end of file\n"
        b"--- /dev/null\n+++ b/changes.txt\n@@ -0,0 +1,2 @@\n+baz 1\n+baz 2\n"
        b"\\ No newline at end of file\n"
        b"--- a/old.txt\n+++ b/old.txt\n@@ -1 +0,0 @@\n-old\n"
        # Created empty: no line to show, but the model is told it exists now.
        b"--- /dev/null\n+++ b/empty.txt\n"
    )
    assert app.read_bytes() == b"baz 1\nbar\nbaz 2"
    # GNU creates or truncates every w file, written to or not.
    assert (workspace / "changes.txt").read_bytes() == b"baz 1\nbaz 2"
    assert (workspace / "old.txt").read_bytes() == b""
    assert (workspace / "empty.txt").read_bytes() == b""
    assert cli(workspace, "rewind", "p1")["ok"] is True
    assert app.read_bytes() == b"foo 1\nbar\nfoo 2"
    assert (workspace / "old.txt").read_bytes() == b"old\n"
    assert not (workspace / "changes.txt").exists()
    assert not (workspace / "empty.txt").exists()


def test_hook_reads_the_r_file_and_ignores_a_missing_one(workspace: Path) -> None:
    app = workspace / "app.py"
    app.write_bytes(b"foo\nbar")
    (workspace / "snippet.txt").write_bytes(b"# added\n")
    command = "sed -i '/foo/r snippet.txt\n$r missing.txt' app.py"
    assert _shown(workspace, command) == (
        b"Waymark applied this sed -i as a tracked edit (waymark_rewind undoes it). "
        b"The file changed like this:\n"
        b"--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,3 @@\n foo\n-bar\n"
        b"\\ No newline at end of file\n+# added\n+bar\n"
    )
    # A missing r file reads as empty, yet completes the last line's newline, as in GNU.
    assert app.read_bytes() == b"foo\n# added\nbar\n"


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        (
            "sed -i 'w ../out.txt' app.py",
            "../out.txt resolves to {outside}, outside the workspace folders; Waymark works "
            "only on files inside the workspace folders.",
        ),
        (
            "sed -i '/a/r ../secret.txt' app.py",
            "../secret.txt resolves to {secret}, outside the workspace folders; Waymark works "
            "only on files inside the workspace folders.",
        ),
        (
            "sed -i 's/a/b/w .git/log' app.py",
            ".git/log is protected by the glob '.git/**' and is never written; choose another "
            "file or change protectedPaths.",
        ),
        (
            "sed -i 'w app.py' app.py",
            "the w file app.py is also a file the line edits or backs up, which is not simulated.",
        ),
        (
            "sed -i 'w nodir/out' app.py",
            "the w file nodir/out: its directory does not exist, so GNU sed fails to open it; "
            "create the directory first.",
        ),
    ],
)
def test_hook_declines_a_side_file_it_may_not_touch_and_writes_nothing(
    workspace: Path, command: str, reason: str
) -> None:
    app = workspace / "app.py"
    app.write_bytes(b"a\n")
    (workspace.parent / "secret.txt").write_bytes(b"secret\n")
    before = sorted(p.name for p in workspace.iterdir())
    answer, stderr = hook("claude-code", workspace, pre_tool("Bash", command=command))
    assert answer is None
    outside = (workspace.parent / "out.txt").resolve()
    secret = (workspace.parent / "secret.txt").resolve()
    expected = reason.format(outside=outside, secret=secret)
    assert f"waymark hook: running the shell command as is ({expected})" in stderr
    assert app.read_bytes() == b"a\n"
    assert sorted(p.name for p in workspace.iterdir()) == before
    assert not (workspace.parent / "out.txt").exists()


def test_cli_sed_writes_the_w_file(workspace: Path) -> None:
    (workspace / "app.py").write_bytes(b"foo 1\nbar\n")
    line = "sed -i '/foo/w out.txt' app.py"
    done = subprocess.run(
        [sys.executable, "-m", "waymark", "sed", line, "--root", str(workspace)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "--- /dev/null\n+++ b/out.txt\n@@ -0,0 +1 @@\n+foo 1\n"
    assert (workspace / "out.txt").read_bytes() == b"foo 1\n"
    assert (workspace / "app.py").read_bytes() == b"foo 1\nbar\n"

"""The CLI as a terminal agent uses it: real processes, JSON in and out, no pygls import."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any


def waymark(root: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "waymark", *args, "--root", str(root)],
        capture_output=True,
        text=True,
        input=stdin,
        timeout=60,
    )


def as_json(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def test_read_then_replace_across_invocations(workspace: Path) -> None:
    path = workspace / "a.txt"
    path.write_bytes(b"alpha\nbeta\n")
    refused = waymark(workspace, "replace", "a.txt", "beta", "gamma", "--json")
    assert refused.returncode == 1
    assert as_json(refused)["error"] == "read_required"
    assert waymark(workspace, "read", "a.txt").stdout == "     1\talpha\n     2\tbeta\n"
    done = waymark(workspace, "replace", "a.txt", "beta", "gamma")
    assert done.returncode == 0, done.stderr
    assert "+gamma" in done.stdout
    assert path.read_bytes() == b"alpha\ngamma\n"


def test_params_json_and_history_between_invocations(workspace: Path) -> None:
    assert waymark(workspace, "snapshot", "t1", "--label", "first").returncode == 0
    params = json.dumps({"path": "notes.md", "content": "hello\n"})
    assert waymark(workspace, "write", "--params", params, "--json").returncode == 0
    turns = as_json(waymark(workspace, "turns", "--json"))["turns"]
    assert [t["promptId"] for t in turns] == ["t1"] and turns[0]["label"] == "first"
    rewound = as_json(waymark(workspace, "rewind", "t1", "--json"))
    assert rewound["deleted"] == ["notes.md"]
    assert not (workspace / "notes.md").exists()


def test_sed_decline_is_not_a_failure(workspace: Path) -> None:
    (workspace / "a.txt").write_text("x\n")
    proc = waymark(workspace, "sed", "sed -i 's/x/y/e' a.txt")
    assert proc.returncode == 0
    assert proc.stdout.startswith("not simulated: ")


def test_errors_go_to_stderr_with_exit_1(workspace: Path) -> None:
    proc = waymark(workspace, "read", "missing.txt")
    assert proc.returncode == 1
    assert proc.stderr.startswith("error: file_not_found: ")


def test_describe_tools_prints_every_tool(workspace: Path) -> None:
    tools = as_json(waymark(workspace, "describe-tools", "--json"))["tools"]
    names = {t["name"] for t in tools}
    assert {"waymark_read", "waymark_edit", "waymark_sed", "waymark_rewind"} <= names
    assert all(t["description"] and t["inputSchema"]["type"] == "object" for t in tools)


def test_one_shot_commands_do_not_import_pygls(workspace: Path) -> None:
    (workspace / "a.txt").write_text("x\n")
    code = (
        "import sys\n"
        "from waymark.doors.cli import main\n"
        f"try:\n    main(['read', 'a.txt', '--root', {str(workspace)!r}])\n"
        "except SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol')))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.splitlines()[-1] == "[]", proc.stdout + proc.stderr


def test_flags_come_from_the_params_classes(workspace: Path) -> None:
    path = workspace / "a.txt"
    path.write_bytes(b"x x\ny\n")
    assert waymark(workspace, "read", "a.txt", "--offset", "2", "--limit", "1").stdout == (
        "     2\ty\n"
    )
    short = waymark(workspace, "replace", "a.txt", "x", "z", "--count", "2", "--json")
    assert as_json(short)["replacements"] == 2, short.stderr
    long = waymark(workspace, "replace", "a.txt", "z", "x", "--expected-replacements", "2")
    assert long.returncode == 0, long.stderr
    assert path.read_bytes() == b"x x\ny\n"
    assert waymark(workspace, "edit", "--file-path", "a.txt").returncode == 2  # hidden alias


def test_edit_diff_is_unified_and_anchored_hunks_have_their_own_key(workspace: Path) -> None:
    (workspace / "a.txt").write_bytes(b"one\ntwo\n")
    lines = as_json(waymark(workspace, "read", "a.txt", "--hashes", "--json"))["lines"]
    ops = json.dumps([{"op": "replace_line", "hash": lines[1]["hash"], "content": "TWO"}])
    for extra in (["--preview"], []):
        result = as_json(waymark(workspace, "edit", "a.txt", "--ops", ops, "--json", *extra))
        assert result["diff"] == "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n"
        assert isinstance(result["anchoredDiff"], list) and "unifiedDiff" not in result
    assert (workspace / "a.txt").read_bytes() == b"one\nTWO\n"


def test_patch_reads_a_file_or_stdin_byte_for_byte(workspace: Path, tmp_path: Path) -> None:
    (workspace / "a.txt").write_bytes(b"one\r\ntwo\r\n")
    patch = "--- a/a.txt\r\n+++ b/a.txt\r\n@@ -1,2 +1,2 @@\r\n one\r\n-two\r\n+TWO\r\n"
    (tmp_path / "fix.diff").write_bytes(patch.encode())
    done = waymark(workspace, "patch", str(tmp_path / "fix.diff"))
    assert done.returncode == 0, done.stderr
    assert "+TWO" in done.stdout
    assert (workspace / "a.txt").read_bytes() == b"one\r\nTWO\r\n"
    back = patch.replace("-two", "-TMP").replace("+TWO", "+two").replace("-TMP", "-TWO")
    undone = waymark(workspace, "patch", "--json", stdin=back)
    assert as_json(undone)["patched"] == [{"path": "a.txt", "status": "modified"}]
    assert (workspace / "a.txt").read_bytes() == b"one\r\ntwo\r\n"


def test_content_file_and_stdin_keep_crlf(workspace: Path, tmp_path: Path) -> None:
    (tmp_path / "body.txt").write_bytes(b"one\r\ntwo\r\n")
    done = waymark(workspace, "write", "a.txt", "--content-file", str(tmp_path / "body.txt"))
    assert done.returncode == 0, done.stderr
    assert (workspace / "a.txt").read_bytes() == b"one\r\ntwo\r\n"
    done = waymark(workspace, "write", "b.txt", "--content-file", "-", stdin="x\r\ny\r\n")
    assert done.returncode == 0, done.stderr
    assert (workspace / "b.txt").read_bytes() == b"x\r\ny\r\n"

"""Shell tracking misses, driven where a user meets them.

Each test runs ``waymark hook claude-code`` as the host does (PreToolUse, then the command
really run with bash in the workspace, then PostToolUse), or ``waymark run -- bash -c …``;
then ``waymark turns`` / ``waymark rewind`` in a terminal, and checks the bytes on disk.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.timeout(300)

GIT = [
    "git",
    "-c",
    "user.email=t@example.com",
    "-c",
    "user.name=t",
    "-c",
    "init.defaultBranch=main",
]


def git(cwd: Path, *args: str) -> None:
    subprocess.run([*GIT, *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def put(root: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)


def repo(root: Path, files: dict[str, bytes]) -> None:
    """A git repository at ``root`` holding ``files``, all committed."""
    root.mkdir(parents=True, exist_ok=True)
    put(root, files)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return Path(os.path.realpath(root))


def waymark(ws: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "waymark", *args],
        input=stdin,
        cwd=ws,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def hook(ws: Path, event: dict[str, Any]) -> dict[str, Any] | None:
    done = waymark(
        ws, "hook", "claude-code", stdin=json.dumps({"cwd": str(ws), "session_id": "s", **event})
    )
    assert done.returncode == 0 and "skipped" not in done.stderr, done.stderr
    return json.loads(done.stdout) if done.stdout else None


def prompt(ws: Path, prompt_id: str) -> None:
    hook(ws, {"hook_event_name": "UserPromptSubmit", "prompt": "p", "prompt_id": prompt_id})


def bash_call(ws: Path, command: str, call: str = "toolu_1") -> str:
    """Pre hook, the command run by bash in ``ws``, Post hook: what the model reads."""
    event = {"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": call}
    assert hook(ws, {**event, "hook_event_name": "PreToolUse"}) is None
    subprocess.run(["bash", "-c", command], cwd=ws, check=False, timeout=60)
    answer = hook(ws, {**event, "hook_event_name": "PostToolUse"})
    assert answer is not None
    context: str = answer["hookSpecificOutput"]["additionalContext"]
    return context


def rewind(ws: Path, prompt_id: str) -> dict[str, Any]:
    done = waymark(ws, "rewind", prompt_id, "--json")
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def unreached(ws: Path, prompt_id: str) -> dict[str, str]:
    done = waymark(ws, "turns", "--json")
    turns = {t["promptId"]: t for t in json.loads(done.stdout)["turns"]}
    return {u["path"]: u["reason"] for u in turns[prompt_id].get("unreached", [])}


def tree(root: Path) -> dict[str, bytes | str]:
    """Every entry under ``root`` but .git: bytes for files, "dir" or "link -> target"."""
    out: dict[str, bytes | str] = {}
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in dirs + files:
            path = Path(dirpath, name)
            rel = os.fspath(path.relative_to(root))
            if path.is_symlink():
                out[rel] = f"link -> {os.readlink(path)}"
            elif path.is_dir():
                out[rel] = "dir"
            elif name != ".git":
                out[rel] = path.read_bytes()
    return out


@pytest.fixture(params=["git", "plain"])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def setup(kind: str, ws: Path, files: dict[str, bytes]) -> None:
    if kind == "git":
        repo(ws, files)
    else:
        put(ws, files)


# -- 7. a directory replaced by a file, and the reverse ----------------------------------------


def test_directory_replaced_by_a_file_comes_back_byte_for_byte(kind: str, ws: Path) -> None:
    setup(kind, ws, {"d/a.txt": b"alpha\r\n", "d/sub/b.bin": b"\x00\xff\xfe", "k.txt": b"k\n"})
    before = tree(ws)
    prompt(ws, "p1")
    context = bash_call(ws, "rm -r d && echo x > d")
    assert context == (
        "Waymark tracked this command's file changes (rewindable): created d; "
        "deleted d/a.txt, d/sub/b.bin."
    )
    after = tree(ws)
    assert after["d"] == b"x\n"
    result = rewind(ws, "p1")
    assert (result["restored"], result["deleted"]) == (["d/a.txt", "d/sub/b.bin"], ["d"])
    assert (result["conflicts"], result["failed"]) == ([], [])
    assert tree(ws) == before
    # The rewind itself is undone just as exactly.
    undo = rewind(ws, result["undoPromptId"])
    assert (undo["restored"], undo["deleted"]) == (["d"], ["d/a.txt", "d/sub/b.bin"])
    assert tree(ws) == after


def test_file_replaced_by_a_directory_comes_back(kind: str, ws: Path) -> None:
    setup(kind, ws, {"f": b"file\n\xff", "k.txt": b"k\n"})
    before = tree(ws)
    prompt(ws, "p1")
    context = bash_call(ws, "rm f && mkdir -p f/sub && printf y > f/sub/x && printf z > f/z")
    assert context == (
        "Waymark tracked this command's file changes (rewindable): created f/sub/x, f/z; deleted f."
    )
    after = tree(ws)
    result = rewind(ws, "p1")
    assert (result["restored"], result["deleted"]) == (["f"], ["f/sub/x", "f/z"])
    assert (result["conflicts"], result["failed"], result.get("warnings")) == ([], [], None)
    assert tree(ws) == before
    undo = rewind(ws, result["undoPromptId"])
    assert (undo["restored"], undo["deleted"]) == (["f/sub/x", "f/z"], ["f"])
    assert tree(ws) == after


def test_symlink_replaced_by_a_directory_is_listed_and_its_files_rewound(
    kind: str, ws: Path
) -> None:
    setup(kind, ws, {"target.txt": b"t\n"})
    (ws / "link").symlink_to("target.txt")
    if kind == "git":
        git(ws, "add", "link")
        git(ws, "commit", "-qm", "link")
    prompt(ws, "p1")
    context = bash_call(ws, "rm link && mkdir link && printf y > link/x")
    assert context == (
        "Waymark tracked this command's file changes (rewindable): created link/x. "
        "Not rewindable (out of reach): link (a symbolic link (links are not restored))."
    )
    result = rewind(ws, "p1")
    assert (result["restored"], result["deleted"]) == ([], ["link/x"])
    assert not (ws / "link" / "x").exists()
    assert (ws / "target.txt").read_bytes() == b"t\n"

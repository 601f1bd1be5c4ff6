"""Shell tracking driven where a user meets it: ``waymark hook claude-code`` as the host runs
it around a Bash call (the command really run by bash in between), ``waymark turns`` and
``waymark rewind`` in a terminal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

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


def waymark(ws: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "waymark", *args],
        input=stdin,
        cwd=ws,
        # The host names the project to its hooks (the plain trees have no project marker).
        env={**os.environ, "CLAUDE_PROJECT_DIR": str(ws)},
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

"""Running ``waymark hook <host>`` as the hosts run it: a process, the hook JSON on stdin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any


def hook(
    host: str, workspace: Path, event: dict[str, Any] | str
) -> tuple[dict[str, Any] | None, str]:
    """(the JSON answer or None, stderr); the hook always exits 0."""
    done = subprocess.run(
        [sys.executable, "-m", "waymark", "hook", host],
        input=event if isinstance(event, str) else json.dumps({"cwd": str(workspace), **event}),
        cwd=workspace,
        # Both hosts name the project for their hooks (a bare temp folder is not trusted).
        env={**os.environ, "CLAUDE_PROJECT_DIR": str(workspace)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return (json.loads(done.stdout) if done.stdout else None), done.stderr


def pre_tool(tool: str, **tool_input: Any) -> dict[str, Any]:
    return {"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": tool_input}

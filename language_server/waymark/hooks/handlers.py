"""The hook events Waymark acts on, each run through the workspace's door."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import uuid
from pathlib import Path
from typing import Any

from ..commands.registry import execute
from ..doors import Door, open_door
from ..files import read_state
from .hosts import Host

LABEL_MAX = 60


def handle(host: Host, event: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON answer to one hook call, or ``None`` to let the host go on as usual."""
    name = event.get("hook_event_name")
    cwd = str(event.get("cwd") or os.getcwd())
    door = open_door(workspace_root(cwd))
    if name == "UserPromptSubmit":
        return open_turn(door, event)
    tool = event.get("tool_name")
    tool_input = event.get("tool_input") or {}
    if tool in host.shell and name == "PreToolUse":
        return simulate_sed(door, str(tool_input.get("command")), cwd)
    history = door.ctx.history
    if tool in host.editors and history is not None:
        target = tool_input.get(host.editors[tool])
        if not isinstance(target, str):
            raise ValueError(f"the {tool} call names no file")
        path = door.ctx.workspace.resolve(target, base=Path(cwd)).real
        if name == "PreToolUse":
            warn(history.track_edit(path))
        elif name == "PostToolUse":
            # What the host wrote is the agent's own write, so a rewind may undo it.
            history.record_write(path, read_state(path).digest)
    return None


def workspace_root(cwd: str) -> str:
    """The project the host runs in (where it also starts ``waymark mcp``)."""
    return os.environ.get("CLAUDE_PROJECT_DIR") or os.environ.get("QWEN_PROJECT_DIR") or cwd


def label_of(prompt: str) -> str:
    first = next((line.strip() for line in prompt.splitlines() if line.strip()), "")
    return first if len(first) <= LABEL_MAX else first[: LABEL_MAX - 1] + "…"


def last_user_prompt(transcript: object) -> tuple[str, str] | None:
    """(id, text) of the newest user message in a Qwen Code transcript (JSON lines)."""
    if not isinstance(transcript, str) or not os.path.isfile(transcript):
        return None
    found = None
    with open(transcript, encoding="utf-8") as lines:
        for line in lines:
            entry = json.loads(line)
            parts = (entry.get("message") or {}).get("parts") or []
            texts = [p["text"] for p in parts if isinstance(p, dict) and "text" in p]
            if entry.get("type") == "user" and texts:
                found = (str(entry.get("uuid")), "".join(texts))
    return found


def open_turn(door: Door, event: dict[str, Any]) -> dict[str, Any] | None:
    prompt = str(event.get("prompt") or "")
    prompt_id = event.get("prompt_id")
    if not prompt.strip():
        # Qwen Code sends no prompt, and fires this again before every model request of
        # the same prompt: its transcript names the prompt, whose turn opens only once.
        newest = last_user_prompt(event.get("transcript_path"))
        if newest is None:
            return None
        prompt_id, prompt = newest
    prompt_id = str(prompt_id or f"turn-{uuid.uuid4().hex[:12]}")
    history = door.ctx.history
    if history is not None and any(t.prompt_id == prompt_id for t in history.turns()):
        return None
    label = label_of(prompt)
    result = asyncio.run(
        execute(door.ctx, "waymark.snapshot", {"promptId": prompt_id, "label": label})
    )
    if not result.get("ok"):
        raise RuntimeError(f"{result.get('error')}: {result.get('message')}")
    warn(result.get("warnings", []))
    return {
        "hookSpecificOutput": {
            "hookEventName": "UserPromptSubmit",
            "additionalContext": f"Waymark opened turn {prompt_id} ({label!r}); "
            f"waymark_rewind with promptId={prompt_id} undoes this turn's file changes.",
        }
    }


def simulate_sed(door: Door, command: str, cwd: str) -> dict[str, Any] | None:
    result = asyncio.run(execute(door.ctx, "waymark.sed", {"command": command, "cwd": cwd}))
    door.save()
    if not result.get("ok") or not result.get("simulated"):
        why = result.get("reason") or result.get("message")
        print(f"waymark hook: running the shell command as is ({why})", file=sys.stderr)
        return None
    diff = result.get("unifiedDiff") or result.get("diff") or "(no change)\n"
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "Waymark already applied this sed -i as a tracked edit "
            "(so the shell did not run it; do not run it again). The file changed like this:\n"
            + diff,
        }
    }


def warn(warnings: list[str]) -> None:
    for warning in warnings:
        print(f"waymark hook: {warning}", file=sys.stderr)

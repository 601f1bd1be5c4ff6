"""The hook events Waymark acts on, each run through the workspace's door."""

from __future__ import annotations

import json
import os
import re
import sys
import uuid
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from waymark.commands.context import default_history_dir
from waymark.commands.tracking import after_host_write, before_host_write, open_prompt_turn
from waymark.doors.entry import Door, open_door
from waymark.doors.hooks import shell
from waymark.doors.hooks.answer import answer
from waymark.doors.hosts import Host
from waymark.engine.errors import WaymarkError
from waymark.store import once
from waymark.store.history import workspace_dir

LABEL_MAX = 60
# Only a command mentioning sed can be one Waymark simulates.
_MAYBE_SED = re.compile(r"\bsed\b")
PROMPT_SLACK_S = 30


def handle_once(host: Host, event: dict[str, Any], root: Path) -> str:
    """What to print for one hook call: acted on by its first delivery, replayed by others.

    The host names the call (``tool_use_id``, or for a prompt ``prompt_id``, else the
    ``timestamp`` Qwen Code stamps on each event); a call it does not name acts every time.
    """
    key = call_key(host, event)
    if key is None:
        return _printed(handle(host, event, root))
    # Failing here skips the hook: the tool then runs once, as without Waymark.
    claim = once.claim(workspace_dir(default_history_dir(), [root]) / "hook-calls", key)
    if claim.replay is not None:
        print("waymark hook: already handled this call; answering as then", file=sys.stderr)
        return claim.replay
    if claim.busy:
        print(
            "waymark hook: another delivery of this call is still at work; not acting twice",
            file=sys.stderr,
        )
        return ""
    printed = ""
    try:
        printed = _printed(handle(host, event, root))
    finally:
        # A delivery that failed answered nothing: the next one answers nothing too.
        try:
            once.settle(claim, printed)
        except (WaymarkError, OSError) as exc:
            # The answer still goes out: losing a sed's "already applied" would run it again.
            print(f"waymark hook: could not record this call's answer ({exc})", file=sys.stderr)
    return printed


def call_key(host: Host, event: dict[str, Any]) -> str | None:
    name = event.get("hook_event_name")
    named = event.get("prompt_id" if name == "UserPromptSubmit" else "tool_use_id")
    call = named or event.get("timestamp")
    if not isinstance(call, str) or not call:
        return None
    return json.dumps([host.name, event.get("session_id"), name, call])


def _printed(answer: dict[str, Any] | None) -> str:
    return "" if answer is None else json.dumps(answer, ensure_ascii=False)


def handle(host: Host, event: dict[str, Any], root: Path) -> dict[str, Any] | None:
    """The JSON answer to one hook call, or ``None`` to let the host go on as usual."""
    name = event.get("hook_event_name")
    cwd = str(event.get("cwd") or os.getcwd())
    door = open_door(root)
    if name == "UserPromptSubmit":
        return open_turn(door, event)
    tool = event.get("tool_name")
    tool_input = event.get("tool_input") or {}
    if tool in host.shell:
        if name == "PreToolUse":
            command = str(tool_input.get("command"))
            answer = simulate_sed(door, command, cwd) if _MAYBE_SED.search(command) else None
            # A command that runs after all: its file changes are tracked around it.
            if answer is None:
                shell.before(door.ctx, event)
            return answer
        return shell.after(door.ctx, event)
    if tool in host.editors:
        target = tool_input.get(host.editors[tool])
        if not isinstance(target, str):
            raise ValueError(f"the {tool} call names no file")
        if name == "PreToolUse":
            warn(before_host_write(door.ctx, target, Path(cwd)))
        elif name == "PostToolUse":
            after_host_write(door.ctx, target, Path(cwd))
    return None


def label_of(prompt: str) -> str:
    first = next((line.strip() for line in prompt.splitlines() if line.strip()), "")
    return first if len(first) <= LABEL_MAX else first[: LABEL_MAX - 1] + "…"


def last_user_prompt(transcript: object) -> tuple[str, str, str] | None:
    """(id, text, timestamp) of the newest user message in a Qwen Code transcript."""
    if not isinstance(transcript, str) or not os.path.isfile(transcript):
        return None
    found = None
    with open(transcript, encoding="utf-8") as lines:
        for line in lines:
            entry = json.loads(line)
            parts = (entry.get("message") or {}).get("parts") or []
            # Later parts are context hooks added (ours included), not what the user typed.
            texts = [p["text"] for p in parts if isinstance(p, dict) and "text" in p]
            if entry.get("type") == "user" and texts:
                found = (str(entry.get("uuid")), texts[0], str(entry.get("timestamp") or ""))
    return found


def _near_or_after(timestamp: str, sent: str) -> bool:
    """Whether a turn opened at ``timestamp`` belongs to a prompt sent at ``sent``.

    The first hook call may open the turn a moment before the host writes its transcript.
    """
    try:
        opened = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
        prompted = datetime.fromisoformat(sent.replace("Z", "+00:00"))
    except ValueError:
        return False
    return opened >= prompted - timedelta(seconds=PROMPT_SLACK_S)


def open_turn(door: Door, event: dict[str, Any]) -> dict[str, Any] | None:
    prompt = str(event.get("prompt") or "")
    prompt_id = event.get("prompt_id")
    history = door.ctx.history
    if not prompt.strip():
        # Qwen Code fires this again before every model request of one prompt, without the
        # prompt (and sometimes also the first time): its transcript names the prompt, whose
        # turn opens once.
        newest = last_user_prompt(event.get("transcript_path"))
        if newest is None or history is None:
            return None
        prompt_id, prompt, sent = newest
        if any(
            t.prompt_id == prompt_id
            or (t.label == label_of(prompt) and _near_or_after(t.timestamp, sent))
            for t in history.turns()
        ):
            return None
    prompt_id = str(prompt_id or f"turn-{uuid.uuid4().hex[:12]}")
    label = label_of(prompt)
    warn(open_prompt_turn(door.ctx, prompt_id, label))
    return answer(
        "UserPromptSubmit",
        context=f"Waymark opened turn {prompt_id} ({label!r}); "
        f"waymark_rewind with promptId={prompt_id} undoes this turn's file changes.",
    )


def simulate_sed(door: Door, command: str, cwd: str) -> dict[str, Any] | None:
    # The command spec (every command, the sed engine) is for prompts and sed lines only.
    import asyncio

    from waymark.commands.registry import execute

    result = asyncio.run(execute(door.ctx, "waymark.sed", {"command": command, "cwd": cwd}))
    door.save()
    if not result.get("ok") and (result.get("details") or {}).get("unrestored"):
        # Part of the line is on disk and could not be undone: the real sed would apply
        # that part a second time.
        return answer(
            "PreToolUse",
            deny=f"Waymark applied only part of this sed -i: {result.get('message')} "
            "Do not run the command again; read those files and finish the change there.",
        )
    if not result.get("ok") or not result.get("simulated"):
        why = result.get("reason") or result.get("message")
        print(f"waymark hook: running the shell command as is ({why})", file=sys.stderr)
        return None
    diff = result.get("unifiedDiff") or result.get("diff") or "(no change)\n"
    return answer(
        "PreToolUse",
        deny="Waymark already applied this sed -i as a tracked edit "
        "(so the shell did not run it; do not run it again). The file changed like this:\n" + diff,
    )


def warn(warnings: list[str]) -> None:
    for warning in warnings:
        print(f"waymark hook: {warning}", file=sys.stderr)

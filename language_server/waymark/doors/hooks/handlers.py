"""The hook events Waymark acts on, each run through the workspace's door."""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from waymark.commands import tracking
from waymark.commands.context import default_history_dir
from waymark.commands.tracking import after_host_write, before_host_write
from waymark.doors.entry import Door, open_door
from waymark.doors.hooks import shell
from waymark.doors.hosts import (
    POST_TOOL,
    POST_TOOL_FAILURE,
    PRE_TOOL,
    PROMPT,
    Call,
    Editor,
    Host,
    render,
)
from waymark.engine.errors import WaymarkError
from waymark.engine.text import one_line
from waymark.store import callbound, once
from waymark.store.history import workspace_dir

LABEL_MAX = 60
# Only a command mentioning sed can be one Waymark simulates.
_MAYBE_SED = re.compile(r"\bsed\b")
PROMPT_SLACK_S = 30
# What a simulated sed's result may take on a command line (the host runs it as printf).
RESULT_MAX = 16_000
# The files a Codex-style patch names: added, updated, deleted, or moved to.
_PATCH_TARGET = re.compile(r"^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+?)\s*$", re.M)


def handle_once(host: Host, call: Call, root: Path) -> str:
    """What to print for one hook call: acted on by its first delivery, replayed by others.

    The host names the call (``tool_use_id``, or for a prompt ``prompt_id``, else the
    ``timestamp`` Qwen Code stamps on each event); a call it does not name acts every time.
    """
    key = call_key(host, call)
    if key is None:
        return _printed(handle(host, call, root))
    # Failing here skips the hook: the tool then runs once, as without Waymark.
    claim = once.claim(workspace_dir(default_history_dir(), [root]) / "hook-calls", key)
    if claim.cut:
        print(
            "waymark hook: the process that began this call stopped before it answered; its "
            "changes may be on disk, so the call is not run again",
            file=sys.stderr,
        )
    elif claim.replay is not None:
        print("waymark hook: already handled this call; answering as then", file=sys.stderr)
    if claim.replay is not None:
        return claim.replay
    if claim.busy:
        print(
            "waymark hook: another delivery of this call is still at work; not acting twice",
            file=sys.stderr,
        )
        return ""
    cut = cut_answer(host, call)
    if cut:
        # Once this process may write, a delivery after it stopped must not run it again.
        callbound.on_first_act(lambda: once.begin(claim, cut))
    printed = ""
    try:
        printed = _printed(handle(host, call, root))
    finally:
        # A delivery that failed answered nothing: the next one answers nothing too.
        try:
            once.settle(claim, printed)
        except (WaymarkError, OSError) as exc:
            # The answer still goes out: losing a sed's "already applied" would run it again.
            print(f"waymark hook: could not record this call's answer ({exc})", file=sys.stderr)
    return printed


def call_key(host: Host, call: Call) -> str | None:
    named = (call.prompt_id if call.event == PROMPT else call.call_id) or call.timestamp
    if not named:
        return None
    return json.dumps([host.name, call.session, call.event_name, named])


def cut_answer(host: Host, call: Call) -> str:
    """What to answer for a call whose process began acting and stopped before answering
    (empty: the call is safe to run again, and another delivery does).

    A sed -i it simulates may be on disk already: the host must not run it again, and the
    model learns to look. Every other call only records: a Pre takes its baseline and
    backups afresh, a Post finds its Pre's record once (a second run records nothing), a
    prompt's turn opens once.
    """
    tool = call.tool or ""
    if call.event != PRE_TOOL or tool not in host.shell:
        return ""
    command, alone = shell.command_line(call.tool_input.get(host.shell[tool]))
    if not (alone and _MAYBE_SED.search(command)):
        return ""
    text = (
        "Waymark began applying this sed -i as a tracked edit but stopped before it could "
        "answer, so the shell did not run it: the change may already be in the files. Read "
        "them before running the command again (waymark_rewind undoes what was applied)."
    )
    return _printed(instead_of_sed(host, call, text, text))


def _printed(answer: dict[str, Any] | None) -> str:
    return "" if answer is None else json.dumps(answer, ensure_ascii=False)


def handle(host: Host, call: Call, root: Path) -> dict[str, Any] | None:
    """The JSON answer to one hook call, or ``None`` to let the host go on as usual."""
    cwd = call.cwd or os.getcwd()
    door = open_door(root)
    try:
        return _handle(door, host, call, cwd)
    finally:
        door.close()  # a resident server answers many calls: no descriptor may pile up


def _handle(door: Door, host: Host, call: Call, cwd: str) -> dict[str, Any] | None:
    if call.event == PROMPT:
        return open_turn(door, host, call)
    if call.event == PRE_TOOL and host.session_turns:
        open_session_turn(door, host, call)
    tool = call.tool or ""
    if tool in host.shell:
        if call.event == PRE_TOOL:
            command, alone = shell.command_line(call.tool_input.get(host.shell[tool]))
            # Of several commands only the sed would be replaced: they all run as they are.
            answer = (
                simulate_sed(door, host, call, command, cwd)
                if alone and _MAYBE_SED.search(command)
                else None
            )
            # A command that runs after all: its file changes are tracked around it.
            if answer is None:
                answer = shell.before(door.ctx, host, call, command)
            return answer
        if call.event in (POST_TOOL, POST_TOOL_FAILURE):
            return shell.after(door.ctx, host, call)
        return None
    if tool in host.editors:
        targets = editor_targets(host.editors[tool], tool, call.tool_input)
        for target in targets:
            if call.event == PRE_TOOL:
                warn(before_host_write(door.ctx, target, Path(cwd)))
            elif call.event in (POST_TOOL, POST_TOOL_FAILURE):
                after_host_write(door.ctx, target, Path(cwd))
    return None


def editor_targets(editor: Editor, tool: str, tool_input: dict[str, Any]) -> list[str]:
    """The files a host's own write tool call names."""
    if editor.patch is not None:
        patch = tool_input.get(editor.patch)
        if isinstance(patch, list):
            patch = "\n".join(str(part) for part in patch)
        if not isinstance(patch, str):
            raise ValueError(f"the {tool} call carries no patch")
        return list(dict.fromkeys(_PATCH_TARGET.findall(patch)))
    target = next((tool_input[k] for k in editor.path if isinstance(tool_input.get(k), str)), None)
    if target is None:
        raise ValueError(f"the {tool} call names no file")
    return [target]


def label_of(prompt: str) -> str:
    # The prompt's first line, without a "…" for the rest: hosts append context to prompts.
    first = next((line for line in prompt.splitlines() if line.strip()), "")
    return one_line(first, LABEL_MAX)


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


def open_turn(door: Door, host: Host, call: Call) -> dict[str, Any] | None:
    prompt = call.prompt
    prompt_id = call.prompt_id
    history = door.ctx.history
    if not prompt.strip():
        # Qwen Code fires this again before every model request of one prompt, without the
        # prompt (and sometimes also the first time): its transcript names the prompt, whose
        # turn opens once.
        newest = last_user_prompt(call.transcript)
        if newest is None or history is None:
            return None
        prompt_id, prompt, sent = newest
        if any(
            t.prompt_id == prompt_id
            or (t.label == label_of(prompt) and _near_or_after(t.timestamp, sent))
            for t in history.turns()
        ):
            return None
    prompt_id = str(prompt_id or f"turn-{os.urandom(6).hex()}")
    label = label_of(prompt)
    warn(tracking.open_turn(door.ctx, prompt_id, label)[1])
    if host.answers.context is None:
        return None
    return render(
        host.answers.context,
        event=call.event_name,
        text=f"Waymark opened turn {prompt_id} ({label!r}); "
        f"waymark_rewind with promptId={prompt_id} undoes this turn's file changes.",
    )


def open_session_turn(door: Door, host: Host, call: Call) -> None:
    """Open the session's turn unless it is open already (or was, and a later one followed)."""
    history = door.ctx.history
    if not call.session or history is None:
        return
    if any(t.prompt_id == call.session for t in history.turns()):
        return
    label = label_of(f"{host.name} task {call.session}")
    warn(tracking.open_turn(door.ctx, call.session, label)[1])


def simulate_sed(
    door: Door, host: Host, call: Call, command: str, cwd: str
) -> dict[str, Any] | None:
    # The command spec (every command, the sed engine) is for sed lines only.
    import asyncio

    from waymark.commands.registry import execute

    result = asyncio.run(execute(door.ctx, "waymark.sed", {"command": command, "cwd": cwd}))
    door.save()
    if not result.get("ok") and (result.get("details") or {}).get("unrestored"):
        # Part of the line is on disk and could not be undone: the real sed would apply
        # that part a second time.
        return render(
            host.answers.deny,
            event=call.event_name,
            text=f"Waymark applied only part of this sed -i: {result.get('message')} "
            "Do not run the command again; read those files and finish the change there.",
        )
    stop = callbound.over()
    if stop is not None:
        raise stop  # the host runs the command itself: nothing more may be done for it
    if not result.get("ok") or not result.get("simulated"):
        why = result.get("reason") or result.get("message")
        print(f"waymark hook: running the shell command as is ({why})", file=sys.stderr)
        return None
    diff = result.get("unifiedDiff") or result.get("diff") or "(no change)\n"
    if len(diff) > RESULT_MAX:
        diff = diff[:RESULT_MAX] + "\n… (the diff goes on; read the files for the rest)\n"
    text = _applied(result.get("warnings") or [])
    shown = f"{_changed(result)} like this:\n{diff}"
    return instead_of_sed(
        host,
        call,
        text + shown,
        text + "The shell did not run it again; do not run it again. " + shown,
    )


def _changed(result: dict[str, Any]) -> str:
    """Which files the diff shows: a line writing ``w`` files changes several."""
    paths = result.get("paths") or []
    return f"The {len(paths)} files changed" if len(paths) > 1 else "The file changed"


def instead_of_sed(host: Host, call: Call, output: str, refusal: str) -> dict[str, Any]:
    """Answer a sed -i call instead of running it: ``output`` as what the command printed
    where the host can rewrite a shell call, else ``refusal`` as why it did not run."""
    if host.answers.simulated == "rewrite" and host.answers.rewrite is not None:
        # The shell prints the result instead of running sed again: the model reads a
        # successful command's output. printf's first word is not sed, so a second
        # delivery of the rewritten call is never simulated again.
        return shell.rewritten(host, call, f"printf '%s' {shlex.quote(output)}")
    return render(host.answers.deny, event=call.event_name, text=refusal)


def _applied(warnings: list[str]) -> str:
    """How a simulated sed's answer opens: a rewind is promised only when one can undo it.

    A committed edit's warnings each say why part of it cannot be rewound (a backup that
    failed, a file over the size limit, a journal that could not be written): the model
    reads them, and so does the person at the terminal, on stderr.
    """
    if not warnings:
        return "Waymark applied this sed -i as a tracked edit (waymark_rewind undoes it). "
    warn(warnings)
    said = " ".join(warnings)
    return f"Waymark applied this sed -i, but waymark_rewind cannot undo all of it: {said} "


def warn(warnings: list[str]) -> None:
    for warning in warnings:
        print(f"waymark hook: {warning}", file=sys.stderr)

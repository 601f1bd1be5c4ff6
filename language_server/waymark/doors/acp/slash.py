"""The ACP door's own slash commands: ``/turns`` and ``/rewind``, answered without the agent.

They run the same command handlers as every door (``waymark.turns``, ``waymark.rewind``)
and answer with the text a model reads of their results (:mod:`waymark.commands.model_view`);
only which turn a bare ``/rewind`` or ``/rewind N`` means is decided here: the turns of this
ACP session, the newest last.
"""

from __future__ import annotations

import asyncio
from typing import Any

from waymark.commands.model_view import model_text
from waymark.commands.registry import execute
from waymark.doors.acp.turns import Recorder, turn_prefix

COMMANDS: list[dict[str, Any]] = [
    {
        "name": "rewind",
        "description": "Waymark: undo this session's last turn (or the Nth last, or a turn id) "
        "byte for byte",
        "input": {"hint": "[N | turn id]"},
    },
    {"name": "turns", "description": "Waymark: list this session's turns"},
]
NAMES = tuple(c["name"] for c in COMMANDS)


def slash_command(prompt: object) -> tuple[str, str] | None:
    """``(name, argument)`` when a prompt is one of our commands, else None."""
    if not isinstance(prompt, list) or not prompt:
        return None
    first = prompt[0]
    if not isinstance(first, dict) or first.get("type") != "text":
        return None
    words = str(first.get("text") or "").strip().split(maxsplit=1)
    if not words or words[0][:1] != "/" or words[0][1:] not in NAMES:
        return None
    return words[0][1:], words[1].strip() if len(words) > 1 else ""


def merged(agent_commands: list[Any]) -> list[Any]:
    """The agent's commands with ours; ours answer their names, so an agent's own go."""
    theirs = [c for c in agent_commands if not (isinstance(c, dict) and c.get("name") in NAMES)]
    return [*theirs, *COMMANDS]


def answer(recorder: Recorder, session: str, name: str, argument: str) -> str:
    """The text the editor shows for ``/name argument`` in ``session``."""
    found = recorder.session_door(session)
    if found is None:
        return str(recorder.untracked(session))
    door = found[0]
    door.reload()
    mine = turns_of(recorder, session)
    if name == "turns":
        result = asyncio.run(execute(door.ctx, "waymark.turns", {}))
        if result.get("ok"):
            result = {**result, "turns": [t for t in result["turns"] if t["promptId"] in mine]}
            result.pop("older", None)
            if not result["turns"]:
                return "No turn of this session changed a file yet."
        return model_text("waymark_turns", result)
    target = _target(mine, argument)
    if target is None:
        count = len(mine)
        return (
            f"This session has {count} turn{'' if count == 1 else 's'} that changed files; "
            "use /rewind, /rewind N (1 is the last) or /rewind TURN_ID from /turns."
        )
    result = asyncio.run(execute(door.ctx, "waymark.rewind", {"promptId": target}))
    door.save()
    return model_text("waymark_rewind", result)


def turns_of(recorder: Recorder, session: str) -> list[str]:
    """The ids of this session's turns still in the history, the newest last."""
    found = recorder.session_door(session)
    history = found[0].ctx.history if found is not None else None
    if history is None:
        return []
    prefix = turn_prefix(session)
    return [t.prompt_id for t in history.turns() if t.prompt_id.startswith(prefix)]


def _target(mine: list[str], argument: str) -> str | None:
    if not argument:
        return mine[-1] if mine else None
    if argument.isdigit():
        back = int(argument)
        return mine[-back] if 1 <= back <= len(mine) else None
    # Any turn id: another session's, or one `waymark turns` listed.
    return argument

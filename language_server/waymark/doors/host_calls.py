"""A hook call's JSON read through its host's :class:`~waymark.doors.hosts.Envelope`, and
an answer filled in from the host's templates (:class:`~waymark.doors.hosts.Answers`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from waymark.doors.hosts import Host


Template = Any
"""A JSON value in which the strings ``"$event"`` (the host's name of the event answered),
``"$text"`` (what the model should read) and ``"$input"`` (a tool's new input) stand for
those values; see :func:`fill`."""


def fill(template: Template, **values: Any) -> Any:
    """``template`` with each placeholder string replaced by its value (any JSON value)."""
    if isinstance(template, str) and template.startswith("$") and template[1:] in values:
        return values[template[1:]]
    if isinstance(template, dict):
        return {key: fill(item, **values) for key, item in template.items()}
    if isinstance(template, list):
        return [fill(item, **values) for item in template]
    return template


def render(template: Template, **values: Any) -> dict[str, Any]:
    """A hook's answer: ``template`` filled in, which must make a JSON object."""
    answer = fill(template, **values)
    if not isinstance(answer, dict):
        raise TypeError(f"an answer template makes {type(answer).__name__}, not an object")
    return answer


def _at(data: Any, path: str) -> Any:
    for key in path.split("."):
        if isinstance(data, list) and key.isdigit():
            data = data[int(key)] if int(key) < len(data) else None
        elif isinstance(data, dict):
            data = data.get(key)
        else:
            return None
    return data


def _first(data: dict[str, Any], paths: tuple[str, ...]) -> Any:
    return next((v for v in (_at(data, p) for p in paths) if v not in (None, "")), None)


@dataclass(frozen=True)
class Call:
    """One hook call read through its host's :class:`Envelope`: what handlers work on."""

    event: str | None  # canonical; None: an event Waymark does not act on
    event_name: str  # the host's own name, echoed in answers
    tool: str | None
    tool_input: dict[str, Any]
    call_id: str | None
    prompt: str
    prompt_id: str | None
    session: str | None
    cwd: str | None
    transcript: str | None
    timestamp: str | None


def read_call(host: Host, raw: dict[str, Any]) -> Call:
    """One hook call's JSON read through ``host``'s envelope."""
    env = host.envelope

    def text(paths: tuple[str, ...]) -> str | None:
        value = _first(raw, paths)
        return value if isinstance(value, str) else None

    name = text(env.event) or ""
    tool_input = _first(raw, env.tool_input)
    if isinstance(tool_input, str):
        try:
            tool_input = json.loads(tool_input)
        except ValueError:
            tool_input = None
    return Call(
        event=host.events.get(name),
        event_name=name,
        tool=text(env.tool),
        tool_input=tool_input if isinstance(tool_input, dict) else {},
        call_id=text(env.call_id),
        prompt=text(env.prompt) or "",
        prompt_id=text(env.prompt_id),
        session=text(env.session),
        cwd=text(env.cwd),
        transcript=text(env.transcript),
        timestamp=text(env.timestamp),
    )

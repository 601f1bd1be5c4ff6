"""The one shape of every hook answer: what the host shows the model, and its decision.

Claude Code and Qwen Code read the same ``hookSpecificOutput`` object; the handlers say what
to tell and whether to deny, and only this function knows how a host wants it written.
"""

from __future__ import annotations

from typing import Any


def answer(event: object, *, context: str | None = None, deny: str | None = None) -> dict[str, Any]:
    """The answer to hook ``event``: ``context`` for the model, or a denial with its reason."""
    out: dict[str, Any] = {"hookEventName": event}
    if deny is not None:
        out.update(permissionDecision="deny", permissionDecisionReason=deny)
    if context is not None:
        out["additionalContext"] = context
    return {"hookSpecificOutput": out}

"""``waymark.snapshot``, ``waymark.turns``, ``waymark.diffStats``, ``waymark.rewind``."""

from __future__ import annotations

from typing import Any

import attrs

from ..errors import InvalidParams
from ..files import read_state
from ..history import History, RewindPlan
from .changes import FileChange, Loaded, Proposal
from .context import CommandContext
from .params import require

REWIND_OPTIONS = ("code", "conversation", "both")


@attrs.define(kw_only=True)
class SnapshotParams:
    promptId: str
    label: str | None = None


@attrs.define(kw_only=True)
class TurnsParams:
    pass


@attrs.define(kw_only=True)
class DiffStatsParams:
    promptId: str


@attrs.define(kw_only=True)
class RewindParams:
    promptId: str
    option: str = "code"
    preview: bool = False
    force: bool = False


def _history(ctx: CommandContext) -> History:
    if ctx.history is None:
        raise InvalidParams(
            "File history is off for this session (checkpointing: false); turn it on to use "
            "snapshots and rewind.",
            {"field": "checkpointing"},
        )
    return ctx.history


def snapshot(ctx: CommandContext, params: SnapshotParams) -> dict[str, Any]:
    require(bool(params.promptId.strip()), "promptId", "must be a non-empty string")
    return {"ok": True, **_history(ctx).make_snapshot(params.promptId, params.label)}


def turns(ctx: CommandContext, params: TurnsParams) -> dict[str, Any]:
    return {"ok": True, "turns": _history(ctx).turns()}


def diff_stats(ctx: CommandContext, params: DiffStatsParams) -> dict[str, Any]:
    return {"ok": True, **_history(ctx).diff_stats(params.promptId)}


def rewind(ctx: CommandContext, params: RewindParams) -> Proposal:
    require(params.option in REWIND_OPTIONS, "option", "must be one of code, conversation, both")
    history = _history(ctx)
    # Only a preview needs the whole plan (and its bytes) up front; a direct rewind lets
    # history plan and restore file by file.
    plan = history.plan_rewind(params.promptId, force=params.force) if params.preview else None

    def apply(ctx: CommandContext) -> dict[str, Any]:
        outcome = history.rewind(
            params.promptId, option=params.option, force=params.force, plan=plan
        )
        for display in outcome.get("restored", []) + outcome.get("deleted", []):
            real = ctx.workspace.resolve(display).real
            ctx.session.note_rewind(real, read_state(real).digest)
        if ctx.editor is not None:
            ctx.editor.notify(
                "waymark/didRewind",
                {
                    "promptId": params.promptId,
                    "option": params.option,
                    "restored": outcome.get("restored", []),
                    "deleted": outcome.get("deleted", []),
                },
            )
        return {"ok": True, **outcome}

    if plan is None:
        return Proposal("rewind", "Waymark: rewind", [], {}, apply=apply)
    changes = [] if params.option == "conversation" else _plan_changes(ctx, plan)
    planned = [
        {"path": f.path, "outcome": f.outcome, **({"reason": f.reason} if f.reason else {})}
        for f in plan.files
    ]
    return Proposal("rewind", "Waymark: rewind", changes, {"plan": planned}, apply=apply)


def _plan_changes(ctx: CommandContext, plan: RewindPlan) -> list[FileChange]:
    """The files a rewind would write, as a previewable change set."""
    changes = []
    for item in plan.files:
        if item.outcome not in ("restore", "delete"):
            continue
        resolved = ctx.workspace.resolve(item.key)
        loaded = Loaded(resolved, item.current, item.current, None, resolved.lexical.as_uri())
        changes.append(FileChange(loaded, item.target if item.outcome == "restore" else None))
    return changes

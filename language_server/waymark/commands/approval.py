"""``waymark.applyPending`` and ``waymark.discardPending``: act on a preview's token."""

from __future__ import annotations

from typing import Any

import attrs

from waymark.commands.changes import Proposal, with_new_content
from waymark.commands.context import CommandContext


@attrs.define(kw_only=True)
class ApplyParams:
    token: str
    newContent: str | None = None


@attrs.define(kw_only=True)
class DiscardParams:
    token: str


def apply_pending(ctx: CommandContext, params: ApplyParams) -> Proposal:
    proposal: Proposal = ctx.pending.take(params.token)
    if params.newContent is not None:
        proposal = with_new_content(proposal, params.newContent)
    return proposal


def discard_pending(ctx: CommandContext, params: DiscardParams) -> dict[str, Any]:
    ctx.pending.take(params.token)
    return {"ok": True, "discarded": params.token}

"""Command ids → handlers, and :func:`execute`, the one entry point of the server and CLI."""

from __future__ import annotations

import asyncio
import logging
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import InternalError, WaymarkError
from . import approval, edit, history, read, replace, sed, tools
from .changes import Proposal, finish
from .context import CommandContext
from .params import structure

log = logging.getLogger(__name__)

Handler = Callable[[CommandContext, Any], "dict[str, Any] | Proposal"]


@dataclass(frozen=True)
class Command:
    id: str
    params: type[Any]
    handler: Handler


COMMANDS: dict[str, Command] = {
    c.id: c
    for c in (
        Command("waymark.read", read.ReadParams, read.read),
        Command("waymark.edit", edit.EditParams, edit.edit),
        Command("waymark.replace", replace.ReplaceParams, replace.replace),
        Command("waymark.multiReplace", replace.MultiReplaceParams, replace.multi_replace),
        Command("waymark.write", replace.WriteParams, replace.write),
        Command("waymark.sed", sed.SedParams, sed.sed),
        Command("waymark.applyPending", approval.ApplyParams, approval.apply_pending),
        Command("waymark.discardPending", approval.DiscardParams, approval.discard_pending),
        Command("waymark.snapshot", history.SnapshotParams, history.snapshot),
        Command("waymark.turns", history.TurnsParams, history.turns),
        Command("waymark.diffStats", history.DiffStatsParams, history.diff_stats),
        Command("waymark.rewind", history.RewindParams, history.rewind),
        Command("waymark.describeTools", tools.NoParams, tools.describe),
    )
}


class UnknownCommand(KeyError):
    """Not one of ours: the server answers with a JSON-RPC error, not a result object."""


async def execute(ctx: CommandContext, command_id: str, raw_params: object) -> dict[str, Any]:
    """Run one command; every failure becomes an ``ok: false`` result, never an exception."""
    command = COMMANDS.get(command_id)
    if command is None:
        raise UnknownCommand(command_id)
    try:
        # Parsing and planning run on a worker thread: a large request never stalls the
        # event loop that answers every other request (commits stay on the loop, in order).
        params = await asyncio.to_thread(structure, raw_params, command.params)
        outcome = await asyncio.to_thread(command.handler, ctx, params)
        if isinstance(outcome, Proposal):
            return await finish(ctx, outcome, preview=bool(getattr(params, "preview", False)))
        return outcome
    except WaymarkError as exc:
        return exc.to_result()
    except Exception as exc:  # a bug must not take the server down
        log.error("%s failed:\n%s", command_id, traceback.format_exc())
        return InternalError(
            f"{command_id} hit an internal error ({type(exc).__name__}); "
            "please report it with the server log.",
            {"exception": type(exc).__name__},
        ).to_result()

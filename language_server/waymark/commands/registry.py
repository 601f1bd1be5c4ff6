"""The command spec: one record per command, feeding every door.

``execute`` (LSP and CLI), the CLI's verbs and flags, ``waymark.describeTools``, the MCP tools
and the VS Code ``languageModelTools`` manifest all read :data:`COMMANDS`; nothing else lists
commands, tool names or schemas.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal, cast

import attrs

from waymark.commands import descriptions as text

# The families every session uses load with the spec; the others (sed, patch, notebook,
# history, model_view, approval) with the first use of their params or handler.
from waymark.commands import edit, read, replace, wording
from waymark.commands.changes import Proposal
from waymark.commands.commit import finish
from waymark.commands.context import CommandContext
from waymark.commands.params import structure
from waymark.commands.schema import object_schema
from waymark.engine.errors import InternalError, WaymarkError

log = logging.getLogger(__name__)

Handler = Callable[[CommandContext, Any], "dict[str, Any] | Proposal"]

Bridge = Literal["local", "editor", "review"]
"""Where a call made in a terminal (``waymark mcp``, the CLI) runs while an editor has the
workspace open (docs/editor-bridge.md): ``local`` always where it was made; ``editor`` in the
editor, as it is (a read then sees the unsaved buffer); ``review`` in the editor, shown to the
user for review first."""


@dataclass(frozen=True)
class Command:
    """One command. ``tool``/``description`` make it a model-facing tool (``title`` is its name
    in an IDE); ``verb`` a CLI verb whose positional arguments are ``args`` (every other field
    becomes a ``--flag``). ``tool_defaults`` are filled in by the IDE's language-model tools
    when the model leaves them out.

    ``bridge`` is where a terminal's call runs while an editor has the workspace open;
    ``path_params`` are the params naming a file or folder (a relative one means the caller's
    root, which need not be the editor's); ``cwd_param``, when absent, is the caller's root.

    ``params`` and ``handler`` are given as themselves, or as where they are in
    ``waymark.commands`` ("sed.sed"): that family is imported by their first use, so a door
    starts without the families its session may never call (issue 43, waymark-ls's start)."""

    id: str
    params_of: Any  # the params class, or where it is: "sed.SedParams" in waymark.commands
    handler_of: Any  # the handler, or where it is: "sed.sed"
    mutating: bool
    tool: str | None = None
    description: str | None = None
    verb: str | None = None
    args: tuple[str, ...] = ()
    title: str | None = None
    tool_defaults: Mapping[str, Any] = field(default_factory=dict)
    bridge: Bridge = "local"
    path_params: tuple[str, ...] = ()
    cwd_param: str | None = None

    @cached_property
    def params(self) -> type[Any]:
        return cast("type[Any]", _member(self.params_of))

    @cached_property
    def handler(self) -> Handler:
        return cast(Handler, _member(self.handler_of))

    def input_schema(self) -> dict[str, Any]:
        return object_schema(self.params)

    def describe(self) -> dict[str, Any]:
        """The tool as every door publishes it."""
        return {
            "name": self.tool,
            "command": self.id,
            "description": self.description,
            "inputSchema": self.input_schema(),
            "mutating": self.mutating,
        }


def _member(of: Any) -> Any:
    """``of`` itself, or the member of ``waymark.commands`` it names ("sed.sed"), imported."""
    if not isinstance(of, str):
        return of
    family, _, name = of.partition(".")
    return getattr(importlib.import_module(f"waymark.commands.{family}"), name)


@attrs.define
class NoParams:
    pass


def _describe_tools(ctx: CommandContext, params: NoParams) -> dict[str, Any]:
    return {"ok": True, "tools": tools()}


_SPEC = (
    Command(
        "waymark.read",
        read.ReadParams,
        read.read,
        mutating=False,
        tool="waymark_read",
        title="Read File with Line Anchors",
        # Anchored edits need the hashes, so a model reading through the IDE gets them.
        tool_defaults={"hashes": True},
        description=text.READ,
        verb="read",
        args=("path",),
        bridge="editor",
        path_params=("path",),
    ),
    Command(
        "waymark.edit",
        edit.EditParams,
        edit.edit,
        mutating=True,
        tool="waymark_edit",
        title="Anchored Edit",
        description=text.EDIT,
        verb="edit",
        args=("path",),
        bridge="review",
        path_params=("path", "file_path"),
    ),
    Command(
        "waymark.replace",
        replace.ReplaceParams,
        replace.replace,
        mutating=True,
        tool="waymark_replace",
        title="Replace String in File",
        description=text.REPLACE,
        verb="replace",
        args=("path", "old_string", "new_string"),
        bridge="review",
        path_params=("path",),
    ),
    Command(
        "waymark.multiReplace",
        replace.MultiReplaceParams,
        replace.multi_replace,
        mutating=True,
        tool="waymark_multi_replace",
        title="Multiple String Replacements",
        description=text.MULTI_REPLACE,
        verb="multi-replace",
        args=("path",),
        bridge="review",
        path_params=("path",),
    ),
    Command(
        "waymark.write",
        replace.WriteParams,
        replace.write,
        mutating=True,
        tool="waymark_write",
        title="Write File",
        description=text.WRITE,
        verb="write",
        args=("path",),
        bridge="review",
        path_params=("path",),
    ),
    Command(
        "waymark.sed",
        "sed.SedParams",
        "sed.sed",
        mutating=True,
        tool="waymark_sed",
        title="Simulated sed -i",
        description=text.SED,
        verb="sed",
        args=("command",),
        bridge="review",
        path_params=("cwd",),
        cwd_param="cwd",
    ),
    Command(
        "waymark.patch",
        "patch.PatchParams",
        "patch.patch",
        mutating=True,
        tool="waymark_patch",
        title="Apply Patch",
        description=text.PATCH,
        verb="patch",
        args=("patch",),
        bridge="review",
        path_params=("cwd",),
        cwd_param="cwd",
    ),
    Command(
        "waymark.notebookEdit",
        "notebook.NotebookEditParams",
        "notebook.notebook_edit",
        mutating=True,
        tool="waymark_notebook_edit",
        title="Edit Notebook Cells",
        description=text.NOTEBOOK_EDIT,
        verb="notebook-edit",
        args=("path",),
        bridge="review",
        path_params=("path",),
    ),
    Command(
        "waymark.snapshot",
        "history.SnapshotParams",
        "history.snapshot",
        mutating=False,
        tool="waymark_snapshot",
        title="Start Turn Snapshot",
        description=text.SNAPSHOT,
        verb="snapshot",
        args=("promptId",),
    ),
    Command(
        "waymark.turns",
        "history.TurnsParams",
        "history.turns",
        mutating=False,
        tool="waymark_turns",
        title="List Turns",
        description=text.TURNS,
        verb="turns",
    ),
    Command(
        "waymark.diffStats",
        "history.DiffStatsParams",
        "history.diff_stats",
        mutating=False,
        tool="waymark_diff_stats",
        title="Changes Since Turn",
        description=text.DIFF_STATS,
        verb="diff-stats",
        args=("promptId",),
    ),
    Command(
        "waymark.rewind",
        "history.RewindParams",
        "history.rewind",
        mutating=True,
        tool="waymark_rewind",
        title="Rewind to Turn",
        description=text.REWIND,
        verb="rewind",
        args=("promptId",),
        # Its per-file outcomes are confirmed through workspace/applyEdit, not a review.
        bridge="editor",
    ),
    Command(
        "waymark.applyPending", "approval.ApplyParams", "approval.apply_pending", mutating=True
    ),
    Command(
        "waymark.discardPending",
        "approval.DiscardParams",
        "approval.discard_pending",
        mutating=False,
    ),
    Command(
        "waymark.describeTools", NoParams, _describe_tools, mutating=False, verb="describe-tools"
    ),
    Command(
        "waymark.modelText",
        "model_view.ModelTextParams",
        "model_view.model_text_command",
        mutating=False,
    ),
)

COMMANDS: dict[str, Command] = {c.id: c for c in _SPEC}
"""Every command by id, in the order tools are listed."""

TOOLS: dict[str, Command] = {c.tool: c for c in _SPEC if c.tool is not None}
"""The model-facing commands by tool name."""


def tools() -> list[dict[str, Any]]:
    """``[{name, command, description, inputSchema, mutating}]`` for every tool, in order."""
    return [c.describe() for c in TOOLS.values()]


class UnknownCommand(KeyError):
    """Not one of ours: the server answers with a JSON-RPC error, not a result object."""


def _plan(
    ctx: CommandContext, command: Command, raw_params: object
) -> tuple[dict[str, Any] | Proposal, bool]:
    """Params structured, the handler's outcome and whether it is a preview: one hop to a
    worker thread for all of it (each hop costs a request a thread wake-up and the loop's)."""
    params = structure(raw_params, command.params)
    outcome = command.handler(ctx, params)
    preview = bool(getattr(params, "preview", False))
    if isinstance(outcome, Proposal) and (preview or outcome.apply is None):
        outcome.diffs  # noqa: B018 -- made here, off the loop, for the preview or the result
    return outcome, preview


async def execute(ctx: CommandContext, command_id: str, raw_params: object) -> dict[str, Any]:
    """Run one command; every failure becomes an ``ok: false`` result, never an exception."""
    command = COMMANDS.get(command_id)
    if command is None:
        raise UnknownCommand(command_id)
    try:
        if command.mutating:
            ctx.workspace.check_folders()
        # Parsing and planning run on a worker thread: a large request never stalls the
        # event loop that answers every other request (commits stay on the loop, in order).
        outcome, preview = await asyncio.to_thread(_plan, ctx, command, raw_params)
        if isinstance(outcome, Proposal):
            return await finish(ctx, outcome, preview=preview)
        return outcome
    except WaymarkError as exc:
        return wording.result(exc, ctx.names)
    except Exception as exc:  # a bug must not take the server down
        log.error("%s failed:\n%s", command_id, traceback.format_exc())
        return InternalError(
            f"{command_id} hit an internal error ({type(exc).__name__}); "
            "please report it with the server log.",
            {"exception": type(exc).__name__},
        ).to_result()

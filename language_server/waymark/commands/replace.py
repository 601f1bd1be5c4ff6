"""``waymark.replace``, ``waymark.multiReplace``, ``waymark.write`` (string edits)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

from waymark.commands.changes import FileChange, Loaded, Proposal, encode_as, load, load_path
from waymark.commands.context import CommandContext
from waymark.commands.descriptions import PATH, PREVIEW
from waymark.commands.params import require
from waymark.commands.schema import param
from waymark.engine.edits.replace import (
    ReplaceEdit,
    ReplaceResult,
    parse_edits,
    plan_multi_replace,
    plan_replace,
    plan_write,
)


@attrs.define(kw_only=True)
class ReplaceParams:
    path: str = param(PATH)
    old_string: str = param("Exact text to find.")
    new_string: str = param("Text to put instead.")
    expected_replacements: int = param(default=1, minimum=1, flags=("--count",))
    preview: bool = param(PREVIEW, default=False)


@attrs.define(kw_only=True)
class EditShape:
    """One item of ``edits`` as the schema shows it; :func:`parse_edits` checks it."""

    old_string: str
    new_string: str
    expected_replacements: int = param(default=1, minimum=1)


@attrs.define(kw_only=True)
class MultiReplaceParams:
    path: str = param(PATH)
    edits: Any = param(type="array", minItems=1, items=EditShape)
    preview: bool = param(PREVIEW, default=False)


@attrs.define(kw_only=True)
class WriteParams:
    path: str = param(PATH)
    content: str = param("The whole new file content.")
    preview: bool = param(PREVIEW, default=False)


def _read_guarded(ctx: CommandContext, loaded: Loaded) -> Loaded:
    assert loaded.digest is not None
    ctx.session.require_fresh_read(loaded.resolved.real, loaded.digest, loaded.resolved.display)
    return loaded


def _replace_in_file(
    ctx: CommandContext, path: str, plan: Callable[[str], ReplaceResult], field: str, label: str
) -> tuple[Proposal, ReplaceResult]:
    loaded = _read_guarded(ctx, load_path(ctx, path))
    tf = loaded.text_file()
    planned = plan(tf.text)
    result = {
        "snippet": planned.snippet,
        "replacements": planned.replacements,
        "warnings": list(planned.warnings),
    }
    change = FileChange(loaded, encode_as(tf, planned.text, field))
    return Proposal("replace", label, [change], result), planned


def replace(ctx: CommandContext, params: ReplaceParams) -> Proposal:
    require(params.expected_replacements >= 1, "expected_replacements", "must be 1 or more")
    edit = ReplaceEdit(params.old_string, params.new_string, params.expected_replacements)
    proposal, _ = _replace_in_file(
        ctx, params.path, lambda text: plan_replace(text, edit), "new_string", "Waymark: replace"
    )
    return proposal


def multi_replace(ctx: CommandContext, params: MultiReplaceParams) -> Proposal:
    edits = parse_edits(params.edits)
    proposal, planned = _replace_in_file(
        ctx,
        params.path,
        lambda text: plan_multi_replace(text, edits),
        "edits",
        "Waymark: multi-replace",
    )
    proposal.result["editsApplied"] = planned.edits_applied
    return proposal


def write(ctx: CommandContext, params: WriteParams) -> Proposal:
    resolved = ctx.workspace.resolve(params.path)
    loaded = load(ctx, resolved, must_exist=False)
    existing = None
    if loaded.exists:
        loaded = _read_guarded(ctx, load_path(ctx, params.path))
        existing = loaded.text_file()
    after = plan_write(existing, params.content)
    result = {"action": "updated" if loaded.exists else "created"}
    return Proposal("write", "Waymark: write", [FileChange(loaded, after)], result)

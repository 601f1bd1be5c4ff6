"""``waymark.edit``: anchored line edits (DESIGN.md section 3)."""

from __future__ import annotations

from typing import Any, Literal

import attrs

from waymark.commands.changes import FileChange, Proposal, encode_as, load_path
from waymark.commands.context import CommandContext
from waymark.commands.descriptions import ANCHOR, CONTENT, PATH, PREVIEW
from waymark.commands.schema import param
from waymark.engine.edits.anchored import parse_operations, plan_anchored_edit
from waymark.engine.errors import InvalidParams


@attrs.define(kw_only=True)
class OperationShape:
    """One item of ``operations`` as the schema shows it; :func:`parse_operations` checks it."""

    op: Literal[
        "replace_line",
        "replace_range",
        "insert_after",
        "insert_before",
        "delete_line",
        "delete_range",
    ]
    hash: str | None = param(ANCHOR, default=None)
    start_hash: str | None = param(ANCHOR, default=None)
    end_hash: str | None = param(ANCHOR, default=None)
    content: str | None = param(CONTENT, default=None)
    occurrence: int | None = param(
        "Single-line ops: which of several lines sharing the hash.", default=None, minimum=1
    )
    line: int | None = param(
        "Single-line ops: advisory line number (the hash wins).", default=None, minimum=1
    )


@attrs.define(kw_only=True)
class EditParams:
    # path is required; it has a default only so the deprecated alias can stand in.
    path: str | None = param(PATH, default=None, required=True)
    file_path: str | None = param(default=None, hidden=True)
    operations: Any = param(
        type="array",
        minItems=1,
        items=OperationShape,
        default=None,
        required=True,
        flags=("--ops",),
    )
    preview: bool = param(PREVIEW, default=False)


def edit(ctx: CommandContext, params: EditParams) -> Proposal:
    warnings: list[str] = []
    if params.file_path is not None:
        warnings.append(
            "`file_path` is deprecated; use `path`"
            + (" (both were given; `path` was used)." if params.path is not None else ".")
        )
    path = params.path if params.path is not None else params.file_path
    if path is None:
        raise InvalidParams("The parameter `path` is required.", {"field": "path"})
    operations = parse_operations(params.operations)
    loaded = load_path(ctx, path)
    real = loaded.resolved.real
    # A reversed range is only safely "meant the other way round" on the very text the agent
    # read; on a file that moved on, it may be a block someone else moved: refuse it.
    as_read = ctx.session.read_is_current(real, loaded.digest)
    ctx.session.observe(real, loaded.digest)
    plan = plan_anchored_edit(loaded.text_file(), operations, swap_reversed_ranges=as_read)
    details = dict(plan.details)
    details["baseline_continuity"] = ctx.session.continuity(real)
    details["writer_type"] = "edit"
    result: dict[str, Any] = {
        "details": details,
        "anchoredDiff": plan.diff,
        "warnings": warnings + list(plan.warnings),
    }
    after = encode_as(plan.text_file, plan.text_file.text, "operations")
    return Proposal("edit", "Waymark: anchored edit", [FileChange(loaded, after)], result)

"""``waymark.edit``: anchored line edits (DESIGN.md section 3)."""

from __future__ import annotations

from typing import Any

import attrs

from ..edits.anchored import parse_operations, plan_anchored_edit
from ..errors import InvalidParams
from .changes import FileChange, Proposal, encode_as, load_path
from .context import CommandContext


@attrs.define(kw_only=True)
class EditParams:
    path: str | None = None
    file_path: str | None = None  # deprecated alias of path
    operations: Any = None
    preview: bool = False


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
        "diff": plan.diff,
        "warnings": warnings + list(plan.warnings),
    }
    after = encode_as(plan.text_file, plan.text_file.text, "operations")
    return Proposal("edit", "Waymark: anchored edit", [FileChange(loaded, after)], result)

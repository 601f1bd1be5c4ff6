"""``waymark.describeTools``: every tool's name, model-facing description and schema."""

from __future__ import annotations

from typing import Any

import attrs

from ..tool_descriptions import describe_tools
from .context import CommandContext


@attrs.define
class NoParams:
    pass


def describe(ctx: CommandContext, params: NoParams) -> dict[str, Any]:
    return {"ok": True, "tools": describe_tools()}

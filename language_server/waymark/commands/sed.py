"""``waymark.sed``: a ``sed -i`` shell line performed as a tracked edit, or declined.

The server never runs a shell. A line whose effect cannot be proven equal to GNU sed — or a
file that cannot be edited here (missing, binary, outside the workspace, protected) —
answers ``simulated: false`` with the reason, and the agent runs its shell as before.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs

from ..errors import WaymarkError
from ..sed import SedDecline, apply_script, parse_command_line
from ..text import sniff_encoding
from ..tool_descriptions import PREVIEW
from .changes import FileChange, Proposal, load_path
from .context import CommandContext
from .schema import param


@attrs.define(kw_only=True)
class SedParams:
    command: str = param("The whole sed shell line.")
    cwd: str | None = param("Directory the command runs in.", default=None)
    preview: bool = param(PREVIEW, default=False)


# Python's backtracking regex can go quadratic on one huge line (e.g. `[^,]*,` with no comma);
# GNU's DFA does not, so such lines are left to the real sed.
MAX_LINE_BYTES = 256 * 1024


def _longest_line(data: bytes) -> int:
    if len(data) <= MAX_LINE_BYTES:
        return len(data)
    return max(map(len, data.split(b"\n")))


def _declined(reason: str, **details: Any) -> dict[str, Any]:
    return {"ok": True, "simulated": False, "reason": reason, **details}


def sed(ctx: CommandContext, params: SedParams) -> Proposal | dict[str, Any]:
    try:
        invocation = parse_command_line(params.command)
    except SedDecline as decline:
        return _declined(decline.reason)
    try:
        base = ctx.workspace.resolve(params.cwd).real if params.cwd else None
        loaded = load_path(ctx, invocation.path, base=base)
        assert loaded.data is not None
        encoding, _ = sniff_encoding(loaded.data)
        if encoding != "utf-8":
            return _declined(
                f"{invocation.path} is {encoding}; GNU sed edits its raw bytes, "
                "which Waymark does not simulate.",
                error="unsupported_encoding",
            )
    except WaymarkError as exc:
        return _declined(exc.message, error=exc.code)
    if _longest_line(loaded.data) > MAX_LINE_BYTES:
        return _declined(
            f"{invocation.path} has a line over {MAX_LINE_BYTES} bytes; a regex can take "
            "quadratic time on such a line, so Waymark does not simulate it.",
            error="line_too_long",
        )
    try:
        after = apply_script(invocation.script, loaded.data)
    except SedDecline as decline:
        return _declined(decline.reason)
    ctx.session.observe(loaded.resolved.real, loaded.digest)
    result = {"simulated": True, "details": {"writer_type": "sed"}}
    return Proposal(
        "sed", f"Waymark: {Path(invocation.path).name} (sed)", [FileChange(loaded, after)], result
    )

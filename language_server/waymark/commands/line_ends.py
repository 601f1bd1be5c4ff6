"""The refusal of an edit whose line endings would run together, worded for the wire."""

from __future__ import annotations

from waymark.engine.edits.line_ends import EndingsWouldMerge
from waymark.engine.errors import LineEndingsWouldMerge


def merge_refusal(exc: EndingsWouldMerge, path: str | None = None) -> LineEndingsWouldMerge:
    where = f"Line {exc.line}" + (f" of {path}" if path else "")
    return LineEndingsWouldMerge(
        f"{where} ends in a lone CR and the empty line after it in LF, so after this edit the "
        "two would read back as one line; include that empty line in the edit, or change one "
        "of their line endings first.",
        {"line": exc.line, **({"path": path} if path else {})},
    )

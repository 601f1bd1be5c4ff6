"""``waymark.notebookEdit``: notebook cells replaced, inserted, deleted (docs/notebooks.md).

The engine (``engine/notebook.py``) plans against the notebook as read and splices the new
cells into the file's own bytes; refusals are worded here.
"""

from __future__ import annotations

import re
import uuid
from typing import Any, Literal

import attrs

from waymark.commands.changes import FileChange, Proposal, load_path
from waymark.commands.context import CommandContext
from waymark.commands.descriptions import PATH, PREVIEW
from waymark.commands.params import BadFields, register_hook, structure_item
from waymark.commands.schema import param
from waymark.engine.errors import InvalidParams

MAX_OPERATIONS = 1_000
_SURROGATE = re.compile("[\ud800-\udfff]")
_OPS = ("replace_cell", "insert_cell", "delete_cell")
# Which fields each op takes, and which of them it needs.
_TAKES = {
    "replace_cell": ({"cell", "source", "cell_type"}, {"cell", "source"}),
    "insert_cell": ({"cell", "source", "cell_type"}, {"source"}),
    "delete_cell": ({"cell"}, {"cell"}),
}


@attrs.define(kw_only=True)
class CellOperation:
    op: Literal["replace_cell", "insert_cell", "delete_cell"] = param(
        "replace_cell: new source (and optionally cell_type) for `cell`; insert_cell: a new "
        "cell after `cell` (first when `cell` is omitted); delete_cell: remove `cell`."
    )
    cell: Any = param(
        "The cell's id (nbformat 4.5+) or its 0-based index in the notebook as read.",
        default=None,
        anyOf=[{"type": "string"}, {"type": "integer", "minimum": 0}],
    )
    source: str | None = param(
        "The cell's whole new source; one trailing \\n is dropped.", default=None
    )
    cell_type: Literal["code", "markdown", "raw"] | None = param(
        "code, markdown or raw; insert_cell defaults to code, replace_cell keeps the type.",
        default=None,
    )


@attrs.define(kw_only=True)
class NotebookEditParams:
    path: str = param(PATH)
    operations: list[CellOperation] = param(
        "The cell operations, all against the notebook as read; they land together or not at all.",
        minItems=1,
        flags=("--ops",),
    )
    preview: bool = param(PREVIEW, default=False)


def _refuse(field: str, problem: str) -> InvalidParams:
    return InvalidParams(f"{field} {problem}.", {"field": field})


def _structure_one(i: int, raw: object) -> CellOperation:
    where = f"operations[{i}]"
    if not isinstance(raw, dict):
        raise _refuse(where, "must be an object with op, cell, source and cell_type")
    op = raw.get("op")
    if op not in _OPS:
        raise _refuse(f"{where}.op", f"must be one of {', '.join(_OPS)}")
    takes, needs = _TAKES[op]
    for key in raw:
        if key != "op" and key not in takes:
            raise _refuse(f"{where}.{key}", f"is not a field of {op}")
    for key in sorted(needs - {k for k, v in raw.items() if v is not None}):
        raise _refuse(f"{where}.{key}", f"is required for {op}")
    cell = raw.get("cell")
    if cell is not None and not (
        (isinstance(cell, str) and cell) or (type(cell) is int and cell >= 0)
    ):
        raise _refuse(f"{where}.cell", "must be a cell id (a string) or a 0-based index")
    for key in ("cell", "source"):
        value = raw.get(key)
        found = _SURROGATE.search(value) if isinstance(value, str) else None
        if found is not None:
            # What passed the check of every param: U+DC80..U+DCFF, the bytes of a file name
            # that is not UTF-8, which JSON text cannot carry.
            raise InvalidParams(
                f"The parameter `{where}.{key}` holds a lone surrogate "
                f"(U+{ord(found.group()):04X} at offset {found.start()}), which no notebook "
                "can hold; send the text as valid Unicode.",
                {"field": f"{where}.{key}"},
            )
    try:
        return structure_item(raw, CellOperation)
    except BadFields as exc:
        name = exc.names[0]
        problem = "must be code, markdown or raw" if name == "cell_type" else "must be a string"
        raise _refuse(f"{where}.{name}", problem) from None


def structure_operations(raw: object) -> list[CellOperation]:
    if not isinstance(raw, list) or not raw:
        raise _refuse("operations", "must be a non-empty array of cell operations")
    if len(raw) > MAX_OPERATIONS:
        raise InvalidParams(
            f"operations has {len(raw)} entries, over the limit of {MAX_OPERATIONS}; split the "
            "change into several calls.",
            {"field": "operations", "count": len(raw), "limit": MAX_OPERATIONS},
        )
    return [_structure_one(i, item) for i, item in enumerate(raw)]


register_hook(list[CellOperation], structure_operations)


def _source(text: str | None) -> str | None:
    return None if text is None else text.removesuffix("\n")


def _fresh_id() -> str:
    # What Jupyter gives a new cell (nbformat.corpus.words.generate_corpus_id).
    return uuid.uuid4().hex[:8]


def notebook_edit(ctx: CommandContext, params: NotebookEditParams) -> Proposal:
    # Loaded with the first notebook edit, not at every door's start.
    from waymark.engine.notebook import CellOp, NotebookInvalid, plan_notebook_edit

    ops = [
        CellOp(i, o.op, o.cell, _source(o.source), o.cell_type)
        for i, o in enumerate(params.operations)
    ]
    loaded = load_path(ctx, params.path)
    display = loaded.resolved.display
    assert loaded.data is not None and loaded.digest is not None
    ctx.session.require_fresh_read(loaded.resolved.real, loaded.digest, display)
    try:
        plan = plan_notebook_edit(loaded.data, ops, _fresh_id)
    except NotebookInvalid as exc:
        raise NotebookInvalid(
            f"{display} cannot be edited cell by cell: {exc.message}. Read it with "
            "waymark.read and `raw` set, and repair the JSON with waymark.replace or "
            "waymark.write.",
            {"path": display, **exc.details},
        ) from None
    result: dict[str, Any] = {"cells": plan.cells, "details": {"writer_type": "notebook"}}
    return Proposal("notebook", "Waymark: notebook edit", [FileChange(loaded, plan.data)], result)

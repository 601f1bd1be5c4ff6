"""Jupyter notebooks (nbformat 4.x) edited cell by cell, every byte outside the edited cells kept.

A notebook is parsed once with ``json`` and once more by a small scanner that records where
each cell's JSON starts and ends in the text, and the whitespace between cells. An edit then
splices: untouched cells, the metadata and everything around the ``cells`` array stay the very
characters they were, and only the cells an operation touches are serialised again, in the
file's own style (indent, key order, separators, ``ensure_ascii``) as detected from the file.
For a notebook as Jupyter writes it (``json.dumps(nb, indent=1, sort_keys=True,
ensure_ascii=False)``) the result is exactly what Jupyter would write (docs/notebooks.md).

nbformat itself is not imported: it costs 120-370 ms to import here against about 10 ms for
``json`` and Waymark's hooks and MCP server start on every call. The structure checks below
are the subset of the nbformat 4 schema an edit can break or depends on; the tests validate
every result with nbformat.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, ClassVar

from waymark.engine.errors import WaymarkError
from waymark.engine.notebook_scan import scan_text
from waymark.engine.notebook_style import Style, dump, line_break, style_of

CELL_TYPES = ("code", "markdown", "raw")
_KNOWN_MINOR = 5
_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


class NotebookInvalid(WaymarkError):
    """The file is not an nbformat 4 notebook Waymark can edit cell by cell."""

    code: ClassVar[str] = "notebook_invalid"


class CellNotFound(WaymarkError):
    """An operation names a cell the notebook does not have."""

    code: ClassVar[str] = "cell_not_found"


class CellsOverlap(WaymarkError):
    """Two operations of one batch replace or delete the same cell."""

    code: ClassVar[str] = "operations_overlap"


@dataclass(frozen=True)
class Cell:
    value: dict[str, Any]
    start: int  # the cell's JSON is text[start:end]
    end: int

    @property
    def id(self) -> str | None:
        found = self.value.get("id")
        return found if isinstance(found, str) else None

    @property
    def cell_type(self) -> str:
        return str(self.value["cell_type"])


@dataclass(frozen=True)
class Notebook:
    text: str
    bom: bool
    major: int
    minor: int
    metadata: dict[str, Any]
    cells: list[Cell]
    # The cells array is text[open:close]: "[", opening whitespace, cells and separators,
    # closing whitespace, "]".
    open: int
    close: int
    separators: list[str]
    style: Style

    @property
    def has_ids(self) -> bool:
        return self.minor >= 5


def source_text(source: object) -> str:
    """A cell's or output's text, joined as Jupyter reads it."""
    return "".join(source) if isinstance(source, list) else str(source)


def _invalid(problem: str, **details: Any) -> NotebookInvalid:
    return NotebookInvalid(problem, {"problem": problem, **details})


def _check_cell(i: int, cell: object, minor: int, seen: set[str]) -> None:
    where = f"cell {i}"
    if not isinstance(cell, dict):
        raise _invalid(f"{where} is not a JSON object", cell=i)
    kind = cell.get("cell_type")
    # A later 4.x may add cell types; nbformat lets them through as unrecognized cells.
    if kind not in CELL_TYPES and not (minor > _KNOWN_MINOR and isinstance(kind, str)):
        raise _invalid(f"{where} has cell_type {kind!r}, not code, markdown or raw", cell=i)
    source = cell.get("source")
    if not isinstance(source, str) and not (
        isinstance(source, list) and all(isinstance(s, str) for s in source)
    ):
        raise _invalid(f"{where} has no source string or list of strings", cell=i)
    if not isinstance(cell.get("metadata"), dict):
        raise _invalid(f"{where} has no metadata object", cell=i)
    if kind == "code" and not isinstance(cell.get("outputs"), list):
        raise _invalid(f"{where} is a code cell without an outputs list", cell=i)
    if minor >= 5:
        ident = cell.get("id")
        if not isinstance(ident, str) or not _ID.match(ident):
            raise _invalid(f"{where} has no valid id (nbformat 4.5 and later require one)", cell=i)
        if ident in seen:
            raise _invalid(f'cells share the id "{ident}"', cell=i, id=ident)
        seen.add(ident)


def parse_notebook(data: bytes) -> Notebook:
    """``data`` as a notebook, or :class:`NotebookInvalid` saying what is wrong with it."""
    bom = data.startswith(codecs.BOM_UTF8)
    try:
        text = data[3 if bom else 0 :].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _invalid(f"it is not UTF-8 (byte {exc.start})", offset=exc.start) from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _invalid(
            f"it is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})",
            line=exc.lineno,
            column=exc.colno,
        ) from None
    if not isinstance(value, dict):
        raise _invalid("its JSON is not an object")
    major, minor = value.get("nbformat"), value.get("nbformat_minor")
    if type(major) is not int or type(minor) is not int or minor < 0:
        raise _invalid("it has no integer nbformat and nbformat_minor")
    if major != 4:
        raise _invalid(
            f"it is nbformat {major}; only nbformat 4 is edited cell by cell (upgrade it with "
            "`jupyter nbconvert --to notebook --inplace`)",
            nbformat=major,
        )
    if not isinstance(value.get("metadata"), dict):
        raise _invalid("it has no metadata object")
    cells = value.get("cells")
    if not isinstance(cells, list):
        raise _invalid("it has no cells array")
    seen: set[str] = set()
    for i, cell in enumerate(cells):
        _check_cell(i, cell, minor, seen)
    scan = scan_text(text)
    if scan.duplicate is not None:
        raise _invalid(f'the notebook has the key "{scan.duplicate}" twice', key=scan.duplicate)
    top = scan.keys
    sort_keys = top == sorted(top) and all(list(c) == sorted(c) for c in cells)
    style = style_of(text, scan.opening, scan.separator, scan.key_sep, sort_keys, cells)
    return Notebook(
        text=text,
        bom=bom,
        major=major,
        minor=minor,
        metadata=value["metadata"],
        cells=[Cell(c, s, e) for c, (s, e) in zip(cells, scan.cells, strict=True)],
        open=scan.open,
        close=scan.close,
        separators=scan.separators,
        style=style,
    )


@dataclass(frozen=True)
class CellOp:
    """One operation; ``index`` is its place in the batch."""

    index: int
    op: str  # replace_cell, insert_cell, delete_cell
    cell: int | str | None = None
    source: str | None = None
    cell_type: str | None = None


@dataclass(frozen=True)
class NotebookPlan:
    data: bytes
    cells: list[dict[str, Any]]  # per operation: {op, cell (its index before), id?}


def _resolve(nb: Notebook, op: CellOp) -> int:
    ref = op.cell
    if isinstance(ref, int):
        if 0 <= ref < len(nb.cells):
            return ref
        raise CellNotFound(
            f"operations[{op.index}].cell: there is no cell {ref}; the notebook has "
            f"{len(nb.cells)} cell(s), numbered from 0",
            {"operation": op.index, "cell": ref, "cells": len(nb.cells)},
        )
    for i, cell in enumerate(nb.cells):
        if cell.id == ref:
            return i
    why = (
        "no cell has that id"
        if nb.has_ids
        else f"this nbformat 4.{nb.minor} notebook has no cell ids; use the cell's 0-based index"
    )
    raise CellNotFound(
        f'operations[{op.index}].cell: "{ref}": {why}',
        {"operation": op.index, "cell": ref, "cells": len(nb.cells)},
    )


def _lines(source: str) -> list[str]:
    return source.splitlines(keepends=True)


def _with_source(like: object, source: str, split: bool) -> str | list[str]:
    if isinstance(like, list) or (like is None and split):
        return _lines(source)
    return source


def _replaced(old: dict[str, Any], op: CellOp) -> dict[str, Any] | None:
    """The cell after ``op``, or None when it changes nothing."""
    assert op.source is not None
    kind = op.cell_type or old["cell_type"]
    if kind == old["cell_type"] and source_text(old["source"]) == op.source:
        return None
    cell = dict(old)
    cell["cell_type"] = kind
    cell["source"] = _with_source(old["source"], op.source, split=False)
    if kind == "code":
        # New code has not run: its old outputs and count would pass for results of it.
        cell.pop("attachments", None)
        cell["execution_count"] = None
        cell["outputs"] = []
    else:
        cell.pop("execution_count", None)
        cell.pop("outputs", None)
    return cell


def _new_cell(
    nb: Notebook, op: CellOp, new_id: Callable[[], str], taken: set[str]
) -> dict[str, Any]:
    assert op.source is not None
    kind = op.cell_type or "code"
    cell: dict[str, Any] = {"cell_type": kind}
    if kind == "code":
        cell["execution_count"] = None
    if nb.has_ids:
        ident = new_id()
        while ident in taken or not _ID.match(ident):
            ident = new_id()
        taken.add(ident)
        cell["id"] = ident
    cell["metadata"] = {}
    if kind == "code":
        cell["outputs"] = []
    cell["source"] = _with_source(None, op.source, nb.style.split_source)
    return cell


def _overlaps(nb: Notebook, ops: Sequence[CellOp]) -> dict[int, CellOp]:
    """The replace or delete operation of each cell; two for one cell are refused."""
    claimed: dict[int, CellOp] = {}
    for op in ops:
        if op.op == "insert_cell":
            continue
        i = _resolve(nb, op)
        other = claimed.get(i)
        if other is not None:
            raise CellsOverlap(
                f"operations[{other.index}] and operations[{op.index}] both change cell {i}; "
                "merge them into one operation",
                {"operation": op.index, "conflicts_with": other.index, "cell": i},
            )
        claimed[i] = op
    return claimed


def _between(nb: Notebook, a: int | None, b: int | None) -> str:
    """The text between two cells of the result, given their places in the original."""
    if a is not None and b == a + 1:
        return nb.separators[a]
    if nb.separators:
        return nb.separators[0]
    return nb.style.item_sep + line_break(nb.style, 2)


def _splice(nb: Notebook, entries: list[tuple[str, int | None]]) -> bytes:
    """The notebook with its cells array made of ``entries`` (text, original place)."""
    if not entries:
        array = "[]"
    else:
        if nb.cells:
            opening = nb.text[nb.open + 1 : nb.cells[0].start]
            closing = nb.text[nb.cells[-1].end : nb.close - 1]
        else:
            opening, closing = line_break(nb.style, 2), line_break(nb.style, 1)
        parts = [entries[0][0]]
        for (_, a), (text, b) in pairwise(entries):
            parts += [_between(nb, a, b), text]
        array = "[" + opening + "".join(parts) + closing + "]"
    text = nb.text[: nb.open] + array + nb.text[nb.close :]
    return (codecs.BOM_UTF8 if nb.bom else b"") + text.encode("utf-8")


def plan_notebook_edit(
    data: bytes, ops: Sequence[CellOp], new_id: Callable[[], str]
) -> NotebookPlan:
    """The notebook's bytes after ``ops`` (all resolved against ``data``); ``new_id`` draws a
    candidate id for an inserted cell of a 4.5+ notebook (the caller owns the randomness)."""
    nb = parse_notebook(data)
    claimed = _overlaps(nb, ops)
    inserted: dict[int | None, list[CellOp]] = {}
    for op in ops:
        if op.op == "insert_cell":
            at = None if op.cell is None else _resolve(nb, op)
            inserted.setdefault(at, []).append(op)
    taken = {c.id for c in nb.cells if c.id is not None}
    report: list[dict[str, Any]] = [{} for _ in ops]
    entries: list[tuple[str, int | None]] = []

    def insert_after(at: int | None) -> None:
        for op in inserted.get(at, []):
            cell = _new_cell(nb, op, new_id, taken)
            entries.append((dump(cell, nb.style, 2), None))
            report[op.index] = {"op": op.op, "after": at, "id": cell.get("id")}

    insert_after(None)
    for i, cell in enumerate(nb.cells):
        claim = claimed.get(i)
        if claim is not None and claim.op == "delete_cell":
            report[claim.index] = {"op": claim.op, "cell": i, "id": cell.id}
        else:
            new = None if claim is None else _replaced(cell.value, claim)
            kept = nb.text[cell.start : cell.end]
            entries.append((kept if new is None else dump(new, nb.style, 2), i))
            if claim is not None:
                report[claim.index] = {
                    "op": claim.op,
                    "cell": i,
                    "id": cell.id,
                    "changed": new is not None,
                }
        insert_after(i)
    return NotebookPlan(_splice(nb, entries), report)

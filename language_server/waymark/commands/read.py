"""``waymark.read``: a file's lines, optionally with anchors, and the session's read record."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import attrs

from waymark.commands import line_indexes
from waymark.commands.changes import Loaded, load_path
from waymark.commands.context import CommandContext
from waymark.commands.descriptions import ENCODING, PATH
from waymark.commands.params import require
from waymark.commands.schema import param
from waymark.engine.anchors import (
    LineIndex,
    annotate_range,
    as_json,
    gc_paused,
    numbered,
    render,
)
from waymark.engine.encodings import Decision
from waymark.engine.text import TextFile

if TYPE_CHECKING:
    from waymark.engine.page import Page


@attrs.define(kw_only=True)
class ReadParams:
    path: str = param(PATH)
    hashes: bool = param(
        "true: add a LINE#HASH anchor and quality to every line (needed before waymark_edit).",
        default=False,
    )
    offset: int = param("First line to return (1-based).", default=1, minimum=1)
    limit: int | None = param("How many lines to return.", default=None, minimum=1)
    raw: bool = param(
        "true: a Jupyter notebook (.ipynb) as its raw JSON lines instead of its cells.",
        default=False,
    )
    encoding: str | None = param(ENCODING, default=None)


def read(ctx: CommandContext, params: ReadParams) -> dict[str, Any]:
    require(params.offset >= 1, "offset", "must be 1 or more (lines are numbered from 1)")
    require(params.limit is None or params.limit >= 1, "limit", "must be 1 or more")
    loaded = load_path(ctx, params.path, encoding=params.encoding)
    assert loaded.data is not None and loaded.digest is not None  # load() with must_exist
    real = loaded.resolved.real
    ctx.session.note_read(real, loaded.digest)
    if not params.raw and real.suffix.lower() == ".ipynb":
        cells = _notebook(loaded, params)
        if cells is not None:
            return cells
    # No file has sys.maxsize lines: past that a number means "past the end", and the
    # compiled core takes machine-sized ones.
    start = min(params.offset - 1, sys.maxsize)
    limit = None if params.limit is None else min(params.limit, sys.maxsize)
    paged = limit is not None or start > 0
    if paged and not (params.hashes and line_indexes.holds(real, loaded.digest)):
        # A page of a file without a kept index: split (and annotated) from its bytes. Its
        # module loads with the first page, not at every door's (or hook's) start.
        from waymark.engine.page import read_page

        stop = sys.maxsize if limit is None else min(start + limit, sys.maxsize)
        page = read_page(loaded.data, loaded.declared, start, stop, anchors=params.hashes)
        if page is not None:
            if page.anchored is not None:
                anchored = page.anchored
                return _result(loaded, page, page.total, as_json(anchored), render(anchored))
            rows, text = numbered(page.texts, start)
            return _result(loaded, page, page.total, rows, text)
    tf = loaded.text_file()
    stop = len(tf.lines) if limit is None else min(len(tf.lines), start + limit)
    lines: list[dict[str, Any]]
    if params.hashes:
        index = line_indexes.take(real, loaded.digest, tf)
        if index is None:
            with gc_paused():
                index = LineIndex(tf.lines)
        shown = annotate_range(tf, start, stop, index)
        lines = as_json(shown)
        text = render(shown)
        # Done with it: the next edit of these bytes starts from it (and from their lines,
        # when the index holds these very ones).
        written = (loaded.data, tf) if index.lines is tf.lines else None
        line_indexes.keep(real, loaded.digest, index, written)
    else:
        lines, text = numbered(tf.lines[start:stop], start)
    return _result(loaded, tf, len(tf.lines), lines, text)


def _result(
    loaded: Loaded, file: TextFile | Page, total: int, lines: list[dict[str, Any]], text: str
) -> dict[str, Any]:
    result = {
        "ok": True,
        "path": loaded.resolved.display,
        "lines": lines,
        "text": text,
        "totalLines": total,
        "encoding": file.encoding,
        "bom": file.bom,
        "eol": file.eol_style,
        "finalNewline": file.final_newline,
        "version": loaded.version,
        "contentHash": loaded.digest,
    }
    note = encoding_note(file.decision)
    if note is not None:
        result["encodingNote"] = note
    return result


_HOW = {"bom": "from its BOM", "declared": "as declared", "detected": "detected from its bytes"}


def encoding_note(decision: Decision | None) -> str | None:
    """How a file that is not plain UTF-8 was read, in a few words; None for plain UTF-8."""
    if decision is None:
        return None
    parts = []
    if decision.source == "undecided":
        parts.append(
            "not UTF-8 and no encoding is clear, so bytes that are not UTF-8 are kept and "
            "shown escaped; pass `encoding` to read it as one"
        )
    elif decision.encoding != "utf-8":
        parts.append(f"{decision.encoding}, {_HOW[decision.source]}")
    if decision.note is not None:
        parts.append(decision.note)
    return "; ".join(parts) or None


def _notebook(loaded: Loaded, params: ReadParams) -> dict[str, Any] | None:
    """The notebook's cells as a model reads them, paged by view lines; None: not a notebook
    that parses, read as text (its JSON may need repair)."""
    # Notebooks are few: their parser loads with the first one read, not at every start.
    from waymark.engine.notebook import NotebookInvalid, parse_notebook
    from waymark.engine.notebook_view import render_cells

    assert loaded.data is not None
    try:
        nb = parse_notebook(loaded.data)
    except NotebookInvalid:
        return None
    view, cells = render_cells(nb, loaded.resolved.display)
    start = params.offset - 1
    stop = len(view) if params.limit is None else min(len(view), start + params.limit)
    return {
        "ok": True,
        "path": loaded.resolved.display,
        "notebook": {"nbformat": nb.major, "nbformatMinor": nb.minor, "cells": cells},
        "lines": [{"line": i + 1, "text": view[i]} for i in range(start, stop)],
        "text": "".join(line + "\n" for line in view[start:stop]),
        "totalLines": len(view),
        "encoding": "utf-8",
        "bom": nb.bom,
        "version": loaded.version,
        "contentHash": loaded.digest,
    }

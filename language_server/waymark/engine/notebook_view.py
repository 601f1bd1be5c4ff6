"""A notebook as a model reads it: cells with numbered source lines and outputs in brief.

The raw JSON spends a model's context on escapes, ``"cell_type": …`` and base64: here every
cell is a header (index, id, type, execution count), its source lines numbered from 1 within
the cell, and each output in one line (text cut short, images as ``[image/png 12 KB]``).
"""

from __future__ import annotations

from typing import Any

from waymark.engine.notebook import Notebook, source_text

OUTPUT_CHARS = 200
OUTPUT_LINES = 3
OUTPUTS_PER_CELL = 8
_TEXT_KINDS = ("text/plain", "text/markdown", "text/html", "text/latex", "application/json")


def _size(n: int) -> str:
    return (
        f"{n} B"
        if n < 1024
        else f"{n / 1024:.0f} KB"
        if n < 1024 * 1024
        else f"{n / 1048576:.1f} MB"
    )


def _short(text: str) -> str:
    lines = text.strip("\n").split("\n")
    shown = "\n".join(lines[:OUTPUT_LINES])
    cut = len(lines) > OUTPUT_LINES
    if len(shown) > OUTPUT_CHARS:
        shown, cut = shown[:OUTPUT_CHARS], True
    shown = shown.replace("\n", "\n         ")
    return shown + (f" … ({len(lines)} lines, {len(text)} chars)" if cut else "")


def _bundle(data: dict[str, Any]) -> list[str]:
    """One text representation in brief (text/plain first), the others by kind and size;
    a binary one by its decoded size (base64 is 4 chars per 3 bytes)."""
    text = next((kind for kind in _TEXT_KINDS if kind in data), None)
    shown = [] if text is None else [f"{text}: {_short(source_text(data[text]))}"]
    for kind, value in data.items():
        body = source_text(value)
        if kind == text:
            continue
        if kind.startswith("image/") and kind != "image/svg+xml":
            shown.append(f"[{kind} {_size(len(body.replace(chr(10), '')) * 3 // 4)}]")
        else:
            shown.append(f"[{kind} {_size(len(body.encode('utf-8')))}]")
    return shown


def _output(output: object) -> str:
    if not isinstance(output, dict):
        return "(not an output object)"
    kind = output.get("output_type")
    if kind == "stream":
        return f"stream {output.get('name', '?')}: {_short(source_text(output.get('text', '')))}"
    if kind == "error":
        return f"error {output.get('ename', '?')}: {_short(str(output.get('evalue', '')))}"
    if kind in ("execute_result", "display_data"):
        data = output.get("data")
        parts = _bundle(data) if isinstance(data, dict) else []
        return f"{kind}: " + (" ".join(parts) if parts else "(empty)")
    return f"{kind}"


def _header(nb: Notebook, display: str) -> list[str]:
    kernel = nb.metadata.get("kernelspec")
    language = nb.metadata.get("language_info")
    about = [f"Jupyter notebook {display}: nbformat {nb.major}.{nb.minor}, {len(nb.cells)} cells"]
    if isinstance(kernel, dict) and kernel.get("name"):
        about.append(f"kernel {kernel.get('display_name') or kernel['name']}")
    elif isinstance(language, dict) and language.get("name"):
        about.append(f"language {language['name']}")
    ids = "id or 0-based index" if nb.has_ids else "0-based index"
    return [
        ", ".join(about) + ".",
        f"Change cells with waymark_notebook_edit (cell = its {ids}). Source lines are "
        "numbered within each cell; waymark_edit anchors address the raw JSON "
        "(waymark_read raw=true).",
    ]


def render_cells(nb: Notebook, display: str) -> tuple[list[str], list[dict[str, Any]]]:
    """The view's lines, and per cell ``{index, id, cellType, line}`` (``line``: where its
    header is in the view, 1-based, for paging with ``offset``)."""
    view = _header(nb, display)
    cells: list[dict[str, Any]] = []
    for i, cell in enumerate(nb.cells):
        value = cell.value
        head = [f"[{i}]"]
        if cell.id is not None:
            head.append(f"id={cell.id}")
        head.append(cell.cell_type)
        if cell.cell_type == "code":
            count = value.get("execution_count")
            head.append("not run" if count is None else f"run {count}")
        view.append("")
        view.append("## " + " ".join(head))
        cells.append({"index": i, "id": cell.id, "cellType": cell.cell_type, "line": len(view)})
        source = source_text(value.get("source", ""))
        lines = source.split("\n") if source else []
        view += [f"{n:6d}\t{line}" for n, line in enumerate(lines, 1)]
        if not lines:
            view.append("      (empty)")
        attachments = value.get("attachments")
        if isinstance(attachments, dict) and attachments:
            view.append("   attachments: " + ", ".join(sorted(attachments)))
        outputs = value.get("outputs")
        if isinstance(outputs, list) and outputs:
            view += [f"   out: {_output(o)}" for o in outputs[:OUTPUTS_PER_CELL]]
            if len(outputs) > OUTPUTS_PER_CELL:
                view.append(f"   out: … {len(outputs) - OUTPUTS_PER_CELL} more outputs")
    return view, cells

"""Notebooks cell by cell: every op on 4.0, 4.4 and 4.5 notebooks, checked with nbformat and
byte for byte (the engine), and the command through the in-process command layer."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import nbformat
import pytest

from helpers_commands import Agent
from waymark.engine.notebook import (
    CellNotFound,
    CellOp,
    CellsOverlap,
    NotebookInvalid,
    parse_notebook,
    plan_notebook_edit,
)

FIXTURES = Path(__file__).parent.parent / "fixtures" / "notebooks"
JUPYTER = ["jupyter-4.0.ipynb", "jupyter-4.4.ipynb", "jupyter-4.5.ipynb"]


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def ids() -> Any:
    counter = itertools.count()
    return lambda: f"new{next(counter)}"


def validated(data: bytes) -> Any:
    nb = nbformat.reads(data.decode("utf-8"), as_version=nbformat.NO_CONVERT)
    nbformat.validate(nb)
    return nb


def as_jupyter_writes(data: bytes) -> bytes:
    nb = nbformat.reads(data.decode("utf-8"), as_version=nbformat.NO_CONVERT)
    return (nbformat.writes(nb) + "\n").encode("utf-8")


def raw_cells(data: bytes) -> list[str]:
    """Each cell's JSON text as it stands in the file."""
    nb = parse_notebook(data)
    return [nb.text[c.start : c.end] for c in nb.cells]


def edit(data: bytes, *ops: dict[str, Any]) -> bytes:
    return plan_notebook_edit(data, [CellOp(i, **op) for i, op in enumerate(ops)], ids()).data


@pytest.mark.parametrize("name", JUPYTER)
def test_every_op_validates_and_is_what_jupyter_writes(name: str) -> None:
    data = fixture(name)
    assert as_jupyter_writes(data) == data
    before = raw_cells(data)
    after = edit(
        data,
        {"op": "replace_cell", "cell": 3, "source": "x = 1\nprint(x)"},
        {"op": "insert_cell", "cell": None, "source": "# Title", "cell_type": "markdown"},
        {"op": "delete_cell", "cell": 5},
        {"op": "insert_cell", "cell": 8, "source": "raw text", "cell_type": "raw"},
        {"op": "insert_cell", "cell": 1, "source": "y = 2\n"},
    )
    nb = validated(after)
    assert as_jupyter_writes(after) == after
    minor = nb.nbformat_minor
    assert (nb.nbformat, minor) == (4, int(name[-7]))
    assert nb.metadata == json.loads(data)["metadata"]
    cells = raw_cells(after)
    # Untouched cells are the same bytes, in their order, around the edited ones.
    kept = [0, 1, 2, 4, 6, 7, 8]
    assert [c for c in cells if c in before] == [before[i] for i in kept]
    assert nb.cells[0].source == "# Title" and nb.cells[0].cell_type == "markdown"
    assert nb.cells[3].source == "y = 2\n"
    assert nb.cells[5].source == "x = 1\nprint(x)"
    assert nb.cells[-1].cell_type == "raw"
    if minor >= 5:
        assert [nb.cells[i].id for i in (0, 3, 10)] == ["new0", "new1", "new2"]
    else:
        assert all("id" not in c for c in nb.cells)


def test_replaced_code_cell_loses_outputs_and_count_and_keeps_id_and_metadata() -> None:
    data = fixture("jupyter-4.5.ipynb")
    old = json.loads(data)["cells"][3]
    assert old["outputs"] and old["execution_count"] is not None
    after = json.loads(edit(data, {"op": "replace_cell", "cell": old["id"], "source": "z"}))
    cell = after["cells"][3]
    assert cell == {**old, "source": ["z"], "outputs": [], "execution_count": None}


def test_same_source_is_no_change_and_type_change_drops_code_fields() -> None:
    data = fixture("jupyter-4.5.ipynb")
    old = json.loads(data)["cells"][3]
    same = "".join(old["source"])
    assert edit(data, {"op": "replace_cell", "cell": 3, "source": same}) == data
    after = edit(data, {"op": "replace_cell", "cell": 3, "source": same, "cell_type": "markdown"})
    cell = validated(after).cells[3]
    assert cell.cell_type == "markdown" and "outputs" not in cell and cell.id == old["id"]


def test_base64_images_of_untouched_cells_are_the_same_bytes() -> None:
    data = fixture("nbformat-test4.ipynb")  # base64 stored as lists of lines
    png = [i for i, c in enumerate(raw_cells(data)) if "image/png" in c]
    assert png
    after = edit(data, {"op": "delete_cell", "cell": 0}, {"op": "insert_cell", "source": "a"})
    for i in png:
        assert raw_cells(data)[i] in raw_cells(after)
    validated(after)


def test_hand_formatted_notebook_keeps_its_formatting() -> None:
    data = fixture("hand-formatted.ipynb")
    first = raw_cells(data)[0]
    after = edit(
        data,
        {"op": "replace_cell", "cell": 1, "source": "café"},
        {"op": "insert_cell", "cell": 1, "source": "n = 1"},
    )
    validated(after)
    text = after.decode("ascii")  # ensure_ascii kept
    assert text.startswith(data.decode()[: data.decode().index('"cells"')])
    cells = raw_cells(after)
    assert cells[0] == first
    # Its own style: two-space indent, keys in the cell's order, source as a string.
    assert cells[1].startswith('{\n      "source": "caf\\u00e9",\n      "metadata"')
    assert cells[2] == (
        '{\n      "cell_type": "code",\n      "execution_count": null,\n      "id": "new0",\n'
        '      "metadata": {},\n      "outputs": [],\n      "source": "n = 1"\n    }'
    )
    assert not text.endswith("\n")
    assert data.decode()[-20:] == text[-20:]


def test_delete_every_cell_then_insert_into_an_empty_notebook() -> None:
    data = fixture("jupyter-4.5.ipynb")
    n = len(json.loads(data)["cells"])
    empty = edit(data, *({"op": "delete_cell", "cell": i} for i in range(n)))
    assert as_jupyter_writes(empty) == empty and b'"cells": [],' in empty
    one = edit(empty, {"op": "insert_cell", "source": "a"})
    assert as_jupyter_writes(one) == one
    validated(one)


@pytest.mark.parametrize("name", [*JUPYTER, "hand-formatted.ipynb"])
def test_a_crlf_notebook_stays_crlf(name: str) -> None:
    """Cells written anew get the file's line ending, as the cells kept do."""
    lf = fixture(name)
    crlf = lf.replace(b"\n", b"\r\n")
    n = len(json.loads(lf)["cells"])
    ops = (
        {"op": "insert_cell", "source": "top\nmore", "cell_type": "markdown"},
        {"op": "replace_cell", "cell": 1, "source": "x = 1\ny = 2"},
        {"op": "insert_cell", "cell": n - 1, "source": "last"},
    )
    assert edit(crlf, *ops) == edit(lf, *ops).replace(b"\n", b"\r\n")
    emptied = edit(crlf, *({"op": "delete_cell", "cell": i} for i in range(n)))
    refilled = edit(emptied, {"op": "insert_cell", "source": "a"})
    assert b"\n" not in refilled.replace(b"\r\n", b"")
    validated(refilled)


@pytest.mark.parametrize(
    ("ops", "error", "message"),
    [
        (
            [{"op": "delete_cell", "cell": 99}],
            CellNotFound,
            "operations[0].cell: there is no cell 99; the notebook has 9 cell(s), numbered from 0",
        ),
        (
            [{"op": "delete_cell", "cell": "nope"}],
            CellNotFound,
            'operations[0].cell: "nope": no cell has that id',
        ),
        (
            [{"op": "delete_cell", "cell": 2}, {"op": "replace_cell", "cell": 2, "source": "x"}],
            CellsOverlap,
            "operations[0] and operations[1] both change cell 2; merge them into one operation",
        ),
    ],
)
def test_refusals(ops: list[dict[str, Any]], error: type[Exception], message: str) -> None:
    with pytest.raises(error) as caught:
        edit(fixture("jupyter-4.5.ipynb"), *ops)
    assert str(caught.value) == message


def test_ids_on_a_notebook_without_ids_say_to_use_the_index() -> None:
    with pytest.raises(CellNotFound, match=r"4\.4 notebook has no cell ids; use the cell's"):
        edit(fixture("jupyter-4.4.ipynb"), {"op": "delete_cell", "cell": "2fcdfa53"})


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b'{"cells": [', "it is not valid JSON (Expecting value at line 1 column 12)"),
        (fixture("nbformat-test3.ipynb"), "it is nbformat 3; only nbformat 4"),
        (fixture("nbformat-invalid_unique_cell_id.ipynb"), 'cells share the id "'),
        (
            b'{"cells": [], "cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}',
            'the notebook has the key "cells" twice',
        ),
    ],
)
def test_broken_notebooks_are_refused(data: bytes, problem: str) -> None:
    with pytest.raises(NotebookInvalid) as caught:
        edit(data, {"op": "insert_cell", "source": "x"})
    assert str(caught.value).startswith(problem)


# The command through the command layer, as the server runs it.


@pytest.fixture
def agent(workspace: Path, tmp_path: Path) -> Agent:
    return Agent(workspace, tmp_path / "history")


async def test_command_needs_a_read_and_reads_show_cells(agent: Agent, workspace: Path) -> None:
    path = workspace / "nb.ipynb"
    data = fixture("jupyter-4.5.ipynb")
    path.write_bytes(data)
    op = {"op": "delete_cell", "cell": 0}
    refused = await agent("notebookEdit", path="nb.ipynb", operations=[op])
    assert refused["error"] == "read_required"
    read = await agent("read", path="nb.ipynb")
    assert read["text"].startswith(
        "Jupyter notebook nb.ipynb: nbformat 4.5, 9 cells, kernel Python 3 (ipykernel).\n"
    )
    assert (
        "\n## [0] id=2fcdfa53 markdown\n     1\t# nbconvert latex test — café ✓\n" in read["text"]
    )
    assert (
        "\n   out: execute_result: text/plain: <IPython.core.display.Image at 0x111275490> "
        "[image/png 9 KB]\n" in read["text"]
    )
    assert [c["id"] for c in read["notebook"]["cells"]][:2] == ["2fcdfa53", "0bc81532"]
    raw = await agent("read", path="nb.ipynb", raw=True)
    assert raw["totalLines"] == data.count(b"\n")
    done = await agent("notebookEdit", path="nb.ipynb", operations=[op])
    assert done["ok"] and done["cells"] == [{"op": "delete_cell", "cell": 0, "id": "2fcdfa53"}]
    assert path.read_bytes() == edit(data, op)


async def test_command_refusals_write_nothing(agent: Agent, workspace: Path) -> None:
    path = workspace / "nb.ipynb"
    data = fixture("jupyter-4.0.ipynb")
    path.write_bytes(data)
    await agent("read", path="nb.ipynb")
    cases = [
        ([{"op": "replace_cell", "cell": 0}], "invalid_params", "operations[0].source is required"),
        ([{"op": "delete_cell", "cell": -1}], "invalid_params", "operations[0].cell must be a"),
        ([{"op": "delete_cell", "cell": 1, "source": "x"}], "invalid_params", "operations[0]."),
        ([{"op": "delete_cell", "cell": 40}], "cell_not_found", "operations[0].cell: there is"),
        (
            [{"op": "delete_cell", "cell": 1}, {"op": "delete_cell", "cell": 1}],
            "operations_overlap",
            "operations[0] and operations[1] both change cell 1",
        ),
    ]
    for ops, code, message in cases:
        result = await agent("notebookEdit", path="nb.ipynb", operations=ops)
        assert (result["error"], result["message"][: len(message)]) == (code, message)
    path.write_bytes(b'{"cells": [')
    await agent("read", path="nb.ipynb")
    broken = await agent(
        "notebookEdit", path="nb.ipynb", operations=[{"op": "insert_cell", "source": "x"}]
    )
    assert broken["error"] == "notebook_invalid"
    assert broken["message"].startswith("nb.ipynb cannot be edited cell by cell: it is not valid")
    assert path.read_bytes() == b'{"cells": ['


async def test_history_rewinds_a_notebook_edit_byte_for_byte(agent: Agent, workspace: Path) -> None:
    path = workspace / "nb.ipynb"
    data = fixture("nbformat-test4.ipynb")
    path.write_bytes(data)
    assert (await agent("snapshot", promptId="t1"))["ok"]
    await agent("read", path="nb.ipynb")
    preview = await agent(
        "notebookEdit",
        path="nb.ipynb",
        operations=[{"op": "replace_cell", "cell": 2, "source": "print(1)"}],
        preview=True,
    )
    assert preview["ok"] and path.read_bytes() == data
    assert '+    "print(1)"' in preview["diff"]
    applied = await agent("applyPending", token=preview["token"])
    assert applied["ok"], applied
    assert path.read_bytes() != data
    validated(path.read_bytes())
    rewound = await agent("rewind", promptId="t1")
    assert rewound["ok"], rewound
    assert path.read_bytes() == data

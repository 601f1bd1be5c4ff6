"""The file an edit planned from the bytes wrote, kept as the file before it and the lines it
replaced (engine/edits/spliced_file.py, commands/line_indexes.py ``keep_spliced``): the
lines, terminators, hashes and prefixes made from it are those a fresh decode and index of
the new bytes give, through chains of edits, and a read or edit through it answers byte for
byte what one on a fresh index answers (issue 43: a full read after such an edit no longer
splits and hashes every line)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from helpers_splices import PythonSteps, file_bytes, same_file
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from waymark.commands import line_indexes, registry
from waymark.commands.context import load_options
from waymark.commands.edit_ops import parse_operations
from waymark.doors.entry import open_context
from waymark.engine import core
from waymark.engine.anchors import LineIndex, annotate, hash_lines
from waymark.engine.edits.from_bytes import plan_from_bytes
from waymark.engine.edits.spliced_file import SplicedFile
from waymark.engine.text import TextFile
from waymark.store.files import digest

pytestmark = pytest.mark.skipif(core.native is None, reason="the compiled core is not built")


_POOL = ["", "  ", "}", "{", "x = 1", "pass", "é = 2", "😀 y", "return None", "value = 919"]
# Plain lines, some repeated (the one call plans a replace of those), and a few the ladder
# or the steps decide.
_LINE = st.one_of(st.sampled_from(_POOL), st.integers(0, 60).map("v{0} = f({0})".format))
_KINDS = [
    "replace_line",
    "replace_range",
    "insert_after",
    "insert_before",
    "delete_line",
    "delete_range",
]
# Each edit: its kind, the lines its anchors pick (from the file's start or end), its content.
_EDIT = st.tuples(
    st.sampled_from(_KINDS),
    st.lists(st.integers(-3, 99), min_size=2, max_size=2),
    st.lists(_LINE, min_size=1, max_size=3),
)


def _op(rows: list[Any], edit: tuple[str, list[int], list[str]]) -> dict[str, Any]:
    kind, picks, content = edit
    a, b = sorted(rows[p % len(rows)].line - 1 for p in picks)
    op: dict[str, Any] = {"op": kind}
    if kind.endswith("_range"):
        op |= {"start_hash": rows[a].ref, "end_hash": rows[b].ref}
    else:
        op["hash"] = rows[a].ref
    if not kind.startswith("delete"):
        op["content"] = "\n".join(content)
    return op


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(_LINE, min_size=1, max_size=30),
    st.sampled_from(["\n", "\r\n", "mixed", "\r"]),
    st.booleans(),
    st.booleans(),
    st.lists(_EDIT, min_size=1, max_size=5),
    st.booleans(),
    st.booleans(),
)
def test_a_chain_of_edits_makes_the_file_a_fresh_decode_makes(
    lines: list[str],
    end: str,
    final: bool,
    bom: bool,
    edits: list[tuple[str, list[int], list[str]]],
    steps: bool,
    column: bool,
) -> None:
    data = file_bytes(lines, end, final, bom)
    tf = TextFile.decode(data)
    index = LineIndex(tf.lines)
    if column:
        index.prefix_column()
    kept: SplicedFile | None = None
    for edit in edits:
        rows = list(annotate(TextFile.decode(data)))
        if not rows:
            return
        ops = parse_operations([_op(rows, edit)])
        with core.using(PythonSteps(core.native) if steps else core.native):
            quick = plan_from_bytes(data, None, ops)
        if quick is None:
            return
        if kept is None:
            kept = SplicedFile(tf, index, quick.replaced, quick.after)
        else:
            kept = kept.then(quick.replaced, quick.after)
        data = quick.after
        fresh = TextFile.decode(data)
        same_file(kept.text_file, fresh)
        made = kept.index()
        assert made.lines is kept.text_file.lines
        assert made.hashes == hash_lines(fresh.lines)
        assert made.prefix_column() == LineIndex(fresh.lines).prefix_column()
        if column:
            assert made.column is not None  # handed on, not made afresh


@pytest.mark.parametrize("steps", [False, True], ids=["one call", "steps"])
@pytest.mark.parametrize(
    "where, content",
    [(0, "start = 0"), (9, "end = 9"), (4, "a = 1\nb = 2"), (5, "")],
)
def test_edits_at_the_ends_and_in_between(steps: bool, where: int, content: str) -> None:
    data = "".join(f"line_{i} = {i}\n" for i in range(10)).encode()
    tf = TextFile.decode(data)
    rows = list(annotate(tf))
    kept = None
    for n in range(3):
        op = {"op": "replace_line", "hash": rows[where].ref, "content": f"{content}{n}"}
        with core.using(PythonSteps(core.native) if steps else core.native):
            quick = plan_from_bytes(data, None, parse_operations([op]))
        assert quick is not None
        if kept is None:
            kept = SplicedFile(tf, LineIndex(tf.lines), quick.replaced, quick.after)
        else:
            kept = kept.then(quick.replaced, quick.after)
        data = quick.after
        same_file(kept.text_file, TextFile.decode(data))
        rows = list(annotate(TextFile.decode(data)))
        assert kept.index().hashes == hash_lines(kept.text_file.lines)


def _run(ctx: Any, command: str, params: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = asyncio.run(registry.execute(ctx, command, params))
    return result


class _Workspace:
    """A workspace holding ``f.py``; ``fresh``: every command finds nothing kept for it."""

    def __init__(self, root: Path, data: bytes, fresh: bool) -> None:
        root.mkdir()
        self.file = root / "f.py"
        self.file.write_bytes(data)
        options, _ = load_options({"sessionId": "t", "historyDir": str(root.parent / "h")})
        self.ctx, self.fresh = open_context([root], options), fresh
        self.real = self.file.resolve()

    def run(self, command: str, params: dict[str, Any]) -> dict[str, Any]:
        if self.fresh:
            with line_indexes._guard:
                for key in [k for k in line_indexes._indexes if k[0] == self.real]:
                    line_indexes._lines -= line_indexes._size(line_indexes._indexes.pop(key))
                    line_indexes._written.pop(key, None)
        return _run(self.ctx, command, {"path": "f.py", **params})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(_LINE, min_size=1, max_size=25),
    st.sampled_from(["\n", "\r\n", "mixed"]),
    st.booleans(),
    st.booleans(),
    st.lists(st.tuples(_EDIT, st.sampled_from(["full", "page", "none"])), min_size=1, max_size=4),
)
def test_reads_and_edits_answer_as_on_a_fresh_index(
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[str],
    end: str,
    final: bool,
    bom: bool,
    steps: list[tuple[tuple[str, list[int], list[str]], str]],
) -> None:
    data = file_bytes(lines, end, final, bom)
    where = tmp_path_factory.mktemp("ws")
    kept = _Workspace(where / "kept", data, fresh=False)
    fresh = _Workspace(where / "fresh", data, fresh=True)
    full = {"hashes": True}
    first = kept.run("waymark.read", full)
    assert first == fresh.run("waymark.read", full)
    rows: list[Any] = [_Row(r) for r in first["lines"]]
    for edit, then in steps:
        if not rows:
            return
        op = _op(rows, edit)
        done = kept.run("waymark.edit", {"operations": [op]})
        assert done == fresh.run("waymark.edit", {"operations": [op]})
        assert kept.file.read_bytes() == fresh.file.read_bytes()
        if then == "page":
            page = {"hashes": True, "offset": max(len(rows) // 2, 1), "limit": 5}
            assert kept.run("waymark.read", page) == fresh.run("waymark.read", page)
        if then == "full":
            read = kept.run("waymark.read", full)
            assert read == fresh.run("waymark.read", full)
            rows = [_Row(r) for r in read["lines"]]
        else:
            # The next anchors without a command: what is kept must come from the edits alone.
            rows = list(annotate(TextFile.decode(kept.file.read_bytes())))


class _Row:
    def __init__(self, row: dict[str, Any]) -> None:
        self.line, self.ref = row["line"], f"{row['line']}#{row['hash']}"


def test_a_read_after_an_edit_planned_from_the_bytes_uses_what_the_edit_kept(
    tmp_path: Path,
) -> None:
    data = "".join(f"value_{i} = {i}\n" for i in range(1, 201)).encode()
    ws = _Workspace(tmp_path / "ws", data, fresh=False)
    read = ws.run("waymark.read", {"hashes": True})
    op = {"op": "replace_line", "hash": read["lines"][99]["hash"], "content": "value_100 = 0"}
    assert ws.run("waymark.edit", {"operations": [op]})["ok"]
    after = ws.file.read_bytes()
    seen = line_indexes.known(ws.real, digest(after), after)
    assert seen is not None
    same_file(seen, TextFile.decode(after))
    index = line_indexes.take(ws.real, digest(after), seen)
    assert index is not None and index.column is not None
    assert index.prefix_column() == LineIndex(seen.lines).prefix_column()
    # Other bytes under that digest are a miss, never another file's lines.
    assert line_indexes.known(ws.real, digest(after), after + b"x = 1\n") is None


def test_edits_fold_into_one_splice_up_to_the_bound(tmp_path: Path) -> None:
    data = "".join(f"value_{i} = {i}\n" for i in range(1, 201)).encode()
    ws = _Workspace(tmp_path / "ws", data, fresh=False)
    anchor = ws.run("waymark.read", {"hashes": True})["lines"][99]["hash"]
    for n in range(line_indexes.MAX_SPLICED_EDITS + 1):
        op = {"op": "replace_line", "hash": anchor, "content": f"value_100 = -{n}"}
        done = ws.run("waymark.edit", {"operations": [op]})
        assert done["ok"], done
        anchor = done["anchoredDiff"][0]["lines"][-1]["hash"]
        after = ws.file.read_bytes()
        seen = line_indexes.known(ws.real, digest(after), after)
        if n < line_indexes.MAX_SPLICED_EDITS:
            assert seen is not None
            same_file(seen, TextFile.decode(after))
        else:
            # Past the bound the read after them indexes the file afresh.
            assert seen is None

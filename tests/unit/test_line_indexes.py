"""An edit planned on the index kept from the previous edit answers exactly as one planned
from scratch (commands/line_indexes.py), and a kept index is only used on its own lines."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from waymark.commands import line_indexes
from waymark.commands.edit import PlannedEdit, plan_edit
from waymark.commands.edit_ops import parse_operations
from waymark.engine.anchors import LineIndex, annotate, annotate_range, as_json
from waymark.engine.errors import WaymarkError
from waymark.engine.text import TextFile
from waymark.store.files import digest

# Repeated lines (their anchors need context hashes), blanks and near-duplicates.
_POOL = ["", "", "}", "pass", "x = 1", "return None", "value = 919", "value = 1993", "a = 1"]
_line = st.one_of(st.sampled_from(_POOL), st.from_regex(r"[a-c]{1,2} = [0-9]", fullmatch=True))
_OPS = ["replace_line", "insert_after", "insert_before", "delete_line", "replace_range"]
_REAL = Path("/w/file.py")
_examples = itertools.count()


def _outcome(tf: TextFile, raw: dict[str, Any], index: LineIndex | None) -> Any:
    try:
        plan = plan_edit(tf, parse_operations([raw]), index=index)
    except WaymarkError as exc:
        return None, (type(exc).__name__, str(exc), exc.details)
    return plan, (plan.text_file, plan.details, plan.diff, plan.warnings)


def _operation(data: st.DataObject, tf: TextFile) -> dict[str, Any]:
    rows = annotate(tf)
    op = data.draw(st.sampled_from(_OPS))
    first = data.draw(st.integers(0, len(rows) - 1))
    raw: dict[str, Any] = {"op": op, "content": data.draw(st.sampled_from(_POOL)) + "\n"}
    if op == "replace_range":
        last = data.draw(st.integers(first, len(rows) - 1))
        raw["start_hash"], raw["end_hash"] = rows[first].hash, rows[last].hash
    else:
        raw["hash"] = rows[first].hash
    if op == "delete_line":
        del raw["content"]
    return raw


@settings(max_examples=300, deadline=None)
@given(st.data(), st.lists(_line, min_size=2, max_size=30))
def test_a_chain_of_edits_on_kept_indexes_answers_as_from_scratch(
    data: st.DataObject, lines: list[str]
) -> None:
    # Each example edits its own file: the cache is the process's, and an earlier example may
    # have kept an index of the same bytes.
    real = _REAL.with_name(f"file{next(_examples)}.py")
    data_bytes = "".join(f"{line}\n" for line in lines).encode()
    kept: LineIndex | None = None
    for _ in range(4):
        tf = TextFile.decode(data_bytes)
        if not tf.lines:
            return
        raw = _operation(data, tf)
        fresh_plan, fresh = _outcome(tf, raw, None)
        taken = line_indexes.take(real, digest(data_bytes), tf)
        assert taken is kept
        kept_plan, from_kept = _outcome(tf, raw, taken)
        assert from_kept == fresh
        if kept_plan is None:
            return
        assert isinstance(kept_plan, PlannedEdit) and isinstance(fresh_plan, PlannedEdit)
        if data.draw(st.booleans()):
            kept_plan.index.ctx  # noqa: B018 (made before the release: reused next time)
        new_bytes = kept_plan.encode(data_bytes)
        kept_plan.index.release()
        line_indexes.keep(real, digest(new_bytes), kept_plan.index)
        kept, data_bytes = kept_plan.index, new_bytes
        if data.draw(st.booleans()):  # a read in between, on the kept index (as waymark.read)
            after = TextFile.decode(data_bytes)
            start = data.draw(st.integers(0, len(after.lines)))
            stop = data.draw(st.integers(start, len(after.lines)))
            assert line_indexes.take(real, digest(data_bytes), after) is kept
            page = as_json(annotate_range(after, start, stop, kept))
            assert page == as_json(annotate_range(after, start, stop))
            line_indexes.keep(real, digest(data_bytes), kept)


def test_a_kept_index_is_used_only_on_its_own_lines_and_once() -> None:
    data = "caf\xe9 = 1\nx = 2\n".encode("latin-1")
    as_latin1 = TextFile.decode(data, "latin-1")
    line_indexes.keep(_REAL, digest(data), LineIndex(as_latin1.lines))
    # The same bytes read in another encoding are other lines: a miss, and the entry is gone.
    assert line_indexes.take(_REAL, digest(data), TextFile.decode(data)) is None
    assert line_indexes.take(_REAL, digest(data), as_latin1) is None
    index = LineIndex(as_latin1.lines)
    line_indexes.keep(_REAL, digest(data), index)
    assert line_indexes.take(_REAL, digest(data), as_latin1) is index
    assert line_indexes.take(_REAL, digest(data), as_latin1) is None
    assert line_indexes.take(_REAL, None, as_latin1) is None


def test_an_edit_borrows_the_index_and_the_written_file_at_once() -> None:
    # commands/edit.py takes both in one go (line_indexes.lend), as take and known would.
    data = b"a = 1\nb = 2\n"
    tf = TextFile.decode(data)
    index = LineIndex(tf.lines)
    line_indexes.keep(_REAL, digest(data), index, (data, tf))
    lent = line_indexes.lend(_REAL, digest(data))
    assert lent is not None and lent[0] is index and lent[1] == (data, tf)
    assert line_indexes.lend(_REAL, digest(data)) is None
    assert line_indexes.known(_REAL, digest(data), data) is None
    assert line_indexes.fitting(index, tf) is index
    assert line_indexes.fitting(index, TextFile.decode(data, "latin-1")) is index
    assert line_indexes.fitting(index, TextFile.decode(b"a = 1\n")) is None
    line_indexes.keep(_REAL, digest(data), index)
    assert line_indexes.lend(_REAL, digest(data)) == (index, None)


def test_the_kept_indexes_are_bounded_oldest_out() -> None:
    tfs = [TextFile.from_text(f"n = {i}\n") for i in range(line_indexes.MAX_ENTRIES + 1)]
    for i, tf in enumerate(tfs):
        line_indexes.keep(Path(f"/w/{i}.py"), "d", LineIndex(tf.lines))
    assert line_indexes.take(Path("/w/0.py"), "d", tfs[0]) is None
    last = line_indexes.MAX_ENTRIES
    assert line_indexes.take(Path(f"/w/{last}.py"), "d", tfs[last]) is not None
    big = TextFile.from_text("x\n" * (line_indexes.MAX_LINES + 1))
    line_indexes.keep(Path("/w/big.py"), "d", LineIndex(big.lines))
    assert line_indexes.take(Path("/w/big.py"), "d", big) is None

"""An anchored edit's bytes, spliced into the original bytes, equal the whole new file encoded.

Files in every encoding Waymark writes (BOMs, legacy codecs, stray undecodable bytes), with
LF, CRLF, CR and mixed terminators and perhaps no final newline, take random batches of
anchored operations; ``AnchoredEdit.encode(data)`` must give exactly
``text_file.encode()`` of the same plan, or raise exactly what it raises.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anchors_reference as ref
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from waymark.commands.edit_ops import parse_operations
from waymark.engine.edits.anchored import plan_anchored_edit
from waymark.engine.edits.line_ends import EndingsWouldMerge
from waymark.engine.edits.operations import OperationsRefused
from waymark.engine.errors import WaymarkError
from waymark.engine.text import TextFile

# (encoding, BOM, declared, characters the file's lines may hold beyond ASCII)
_KINDS = [
    ("utf-8", b"", None, "éß€😀"),
    ("utf-8", b"\xef\xbb\xbf", None, "éß€😀"),
    ("utf-16-le", b"\xff\xfe", None, "éß€😀"),
    ("utf-16-be", b"\xfe\xff", None, "é€😀"),
    ("utf-32-le", b"\xff\xfe\x00\x00", None, "é€😀"),
    ("utf-16-le", b"", "utf-16le", "é€"),
    ("windows-1252", b"", "windows-1252", "éß€"),
    ("koi8-r", b"", "koi8-r", "жЖё"),
    ("shift_jis", b"", "shift_jis", "日本語ア"),
    ("gbk", b"", "gbk", "中文字"),
    ("euc-kr", b"", "euc-kr", "한국어"),
]
_ASCII = ["", "}", "pass", "x = 1", "x = 2", "return None", "value = 919", "item.update(v)"]
_EOL = st.sampled_from(["\n", "\n", "\r\n", "\r"])


@st.composite
def _file(draw: st.DrawFn) -> tuple[bytes, str | None, str]:
    encoding, bom, declared, extra = draw(st.sampled_from(_KINDS))
    words = st.one_of(st.sampled_from(_ASCII), st.text(st.sampled_from(f"ab= {extra}"), max_size=5))
    lines = draw(st.lists(words, min_size=1, max_size=30))
    uniform = draw(st.booleans())
    first_eol = draw(_EOL)
    eols = [first_eol if uniform else draw(_EOL) for _ in lines]
    if draw(st.booleans()):
        eols[-1] = ""
    data = bom + "".join(map(str.__add__, lines, eols)).encode(encoding)
    if encoding == "utf-8" and not bom and draw(st.booleans()):
        # A stray byte: the file is read as UTF-8 with that byte escaped.
        at = draw(st.integers(0, len(data)))
        data = data[:at] + b"\xff" + data[at:]
    return data, declared, extra


# A test function's ``data.draw``.
Draw = Callable[[st.SearchStrategy[Any]], Any]
_SINGLE = ["replace_line", "insert_after", "insert_before", "delete_line"]


def _content(draw: Draw, extra: str) -> str:
    # A character the file's encoding may not hold, or a lone surrogate, now and then.
    chars = st.sampled_from(f"xy= {extra}\u0416\u00e9\U0001f600\udcff")
    content = draw(st.lists(st.text(chars, max_size=4), min_size=1, max_size=3))
    eol: str = draw(st.sampled_from(["\n", "\r\n", ""]))
    end: str = draw(st.sampled_from(["", eol or "\n"]))
    return eol.join(content) + end


def _operations(draw: Draw, rows: list[ref.AnchoredLine], extra: str) -> list[dict[str, Any]]:
    """One to three operations on distinct lines whose anchors are good enough to use."""
    usable = [i for i, row in enumerate(rows) if row.quality != "low"]
    assume(usable)
    picked = sorted(draw(st.sets(st.sampled_from(usable), min_size=1, max_size=4)))
    ops: list[dict[str, Any]] = []
    while picked:
        first = picked.pop(0)
        op = draw(st.sampled_from([*_SINGLE, "replace_range", "delete_range"]))
        raw: dict[str, Any] = {"op": op}
        if op in _SINGLE or not picked:
            raw["op"] = op if op in _SINGLE else "replace_line"
            raw["hash"] = rows[first].hash
        else:
            raw["start_hash"], raw["end_hash"] = rows[first].hash, rows[picked.pop(0)].hash
        if not raw["op"].startswith("delete"):
            raw["content"] = _content(draw, extra)
        ops.append(raw)
    return ops


def _outcome(encode: Any) -> Any:
    try:
        return encode()
    except (WaymarkError, UnicodeEncodeError) as exc:
        return type(exc), str(exc)


@settings(max_examples=600, deadline=None)
@given(st.data(), _file())
def test_spliced_bytes_are_the_whole_new_file_encoded(
    data: st.DataObject, made: tuple[bytes, str | None, str]
) -> None:
    raw, declared, extra = made
    try:
        tf = TextFile.decode(raw, declared)
    except WaymarkError:
        assume(False)
    rows = ref.annotate(tf)
    ops = _operations(data.draw, rows, extra)
    try:
        plan = plan_anchored_edit(tf, parse_operations(ops))
    except (WaymarkError, OperationsRefused, EndingsWouldMerge):
        return  # refused batches write nothing
    assert _outcome(lambda: plan.encode(raw)) == _outcome(plan.text_file.encode)


@pytest.mark.parametrize("kind", _KINDS, ids=lambda k: f"{k[0]}{'+bom' if k[1] else ''}")
def test_an_edit_keeps_every_untouched_byte(kind: tuple[str, bytes, str | None, str]) -> None:
    encoding, bom, declared, extra = kind
    body = f"a = 1\r\n{extra}\rlast {extra}".encode(encoding)
    tf = TextFile.decode(bom + body, declared)
    rows = ref.annotate(tf)
    plan = plan_anchored_edit(
        tf, parse_operations([{"op": "insert_after", "hash": rows[2].hash, "content": "z"}])
    )
    # The new last line has no terminator; the old one gains the file's (CRLF, first seen).
    tail = "\r\nz".encode(encoding)
    assert plan.encode(bom + body) == bom + body + tail == plan.text_file.encode()


def _as_read(tf: TextFile) -> tuple[Any, ...]:
    return tf.lines, tf.eols, tf.encoding, tf.bom, tf.decision


def _told_its_ends(tf: TextFile) -> None:
    counted = TextFile(tf.lines, tf.eols)  # knows nothing: counts
    assert tf.same_end == counted.same_end
    assert tf.eol == counted.eol
    assert tf.text == "".join(map(str.__add__, tf.lines, tf.eols))


@settings(max_examples=600, deadline=None)
@given(st.data(), _file())
def test_a_plan_that_reads_back_is_what_its_bytes_decode_to(
    data: st.DataObject, made: tuple[bytes, str | None, str]
) -> None:
    # The edit's new file is taken from its plan, not decoded, when the plan says its bytes
    # read back as it (engine/edits/spliced_bytes.reads_back): it must be what decoding gives.
    raw, declared, extra = made
    try:
        tf = TextFile.decode(raw, declared)
    except WaymarkError:
        assume(False)
    ops = _operations(data.draw, ref.annotate(tf), extra)
    try:
        plan = plan_anchored_edit(tf, parse_operations(ops))
        new = plan.encode(raw)
    except (WaymarkError, OperationsRefused, EndingsWouldMerge, UnicodeEncodeError):
        return
    decoded = tf.decode_like(new, declared)
    if plan.reads_back:
        assert _as_read(tf.read_back(plan.text_file)) == _as_read(decoded)
    assert _as_read(tf.decode_like(new, declared, plan.text_file)) == _as_read(decoded)
    for each in (tf, plan.text_file, tf.read_back(plan.text_file)):
        _told_its_ends(each)
    # The next edit reads those bytes back, its lines taken from this one's file.
    written = tf.read_back(plan.text_file)
    again = TextFile.decode(new, declared, known=written)
    _told_its_ends(again)
    if plan.reads_back:  # then ``written`` is what these bytes decode to
        fresh = TextFile.decode(new, declared)
        assert _as_read(again) == _as_read(fresh)
        # Decided alike, the bytes are the file the edit wrote: that file itself, not a copy.
        assert (again is written) is (written.decision == fresh.decision)


@pytest.mark.parametrize(
    ("raw", "content", "reads_back"),
    [
        (b"a = 1\nb = 2\n", "b = 3", True),
        ("a = \u00e9\nb = 2\n".encode(), "b = \U0001f600", True),
        (b"a = 1\r\nb = 2", "b = 3", True),
        (b"a = \xff\nb = 2\n", "b = 3", False),  # read with the stray byte escaped
        (b"a = 1\nb = 2\n", "b = \udcff", False),  # written as the byte it stands for
        (b"\xef\xbb\xbfa = 1\nb = 2\n", "b = 3", False),  # a BOM: decoded as it was
    ],
)
def test_which_plans_read_back(raw: bytes, content: str, reads_back: bool) -> None:
    tf = TextFile.decode(raw)
    anchor = ref.annotate(tf)[1].hash
    ops = [{"op": "replace_line", "hash": anchor, "content": content}]
    plan = plan_anchored_edit(tf, parse_operations(ops))
    assert plan.reads_back is reads_back


@settings(max_examples=300, deadline=None)
@given(st.data(), _file(), st.integers(2, 5))
def test_chained_edits_splice_from_where_the_last_one_wrote(
    data: st.DataObject, made: tuple[bytes, str | None, str], edits: int
) -> None:
    # Each edit's file, read back from its plan, knows where the lines it wrote start in its
    # bytes; the next edit measures from there (TextFile.line_starts): the same bytes.
    raw, declared, extra = made
    try:
        tf = TextFile.decode(raw, declared)
    except WaymarkError:
        assume(False)
    for _ in range(edits):
        rows = ref.annotate(tf)
        if not any(row.quality != "low" for row in rows):
            return
        ops = _operations(data.draw, rows, extra)
        try:
            plan = plan_anchored_edit(tf, parse_operations(ops))
        except (WaymarkError, OperationsRefused, EndingsWouldMerge):
            return
        expected = _outcome(plan.text_file.encode)
        assert _outcome(lambda: plan.encode(raw)) == expected  # noqa: B023
        if not isinstance(expected, bytes):
            return
        raw = expected
        written = tf.decode_like(raw, declared, plan.text_file)
        tf = TextFile.decode(raw, declared, known=written)

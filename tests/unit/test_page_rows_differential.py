"""A page's line dicts and text made by the compiled core in one call each, as a full read's
are (engine/shown_page.py; ``json_rows`` and ``render`` numbering from a page's first line;
``plain_rows`` for a read without anchors):
every page of a drawn file, at any offset and limit (the first line, the second, the last,
past the end, huge), answers exactly what the pure-Python path and the full read's slice
answer, from the bytes and from a kept index (issue 43: a page covering the whole file cost
~4x the full read, building an AnchoredLine, a dict and an f-string per line in Python; a
read without anchors formatted each line in Python, ~2/3 of its cost)."""

from __future__ import annotations

import json
from collections import OrderedDict
from pathlib import Path
from typing import Any

import pytest
from helpers_splices import file_bytes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from waymark.commands import line_indexes
from waymark.commands.context import CommandContext, load_options
from waymark.commands.read import ReadParams, read
from waymark.engine import core
from waymark.engine.anchors import HIGH, LOW, MEDIUM, LineIndex, annotate, as_json, render
from waymark.engine.line_index import line_hash
from waymark.engine.page import read_page
from waymark.engine.text import TextFile

pytestmark = pytest.mark.skipif(core.BUILT is None, reason="the compiled core is not built")

# Repeated texts (tokens from the ladder), blank and punctuation-only lines (low), short
# ones (medium), non-ASCII, and plain lines mostly unique.
_POOL = ["", "", "  ", "\t", "}", ");", "x = 1", "pass", "é = 2", "😀 y", "\u3000", "return None"]
_LINE = st.one_of(st.sampled_from(_POOL), st.integers(0, 300).map("v{0} = f({0})".format))
# Where a page starts and how long it is, by the file's line count n.
_OFFSETS = {
    "first": lambda n: 1,
    "second": lambda n: 2,
    "last": lambda n: max(1, n),  # an empty file has no last line: its first
    "just past": lambda n: n + 1,
    "far past": lambda n: n + 50,
    "huge": lambda n: 10**9,
    # Past what the compiled core's machine-sized numbers hold (was an internal_error).
    "past a machine word": lambda n: 2**64,
}
_LIMITS = {
    "none": lambda n, o: None,
    "one": lambda n, o: 1,
    "to the end": lambda n, o: max(1, n - o + 1),
    "past the end": lambda n, o: n - o + 4 if n - o + 4 >= 1 else 3,
    "as agents send": lambda n, o: 100_000,
    "huge": lambda n, o: 10**12,
    "past a machine word": lambda n, o: 2**63,
}


@pytest.fixture(autouse=True)
def _no_kept_indexes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(line_indexes, "_indexes", OrderedDict())
    monkeypatch.setattr(line_indexes, "_written", {})
    monkeypatch.setattr(line_indexes, "_lines", 0)


def _reads(root: Path, data: bytes, pages: list[dict[str, Any]]) -> list[Any]:
    """The full reads, then each page with and without hashes: from the bytes (nothing kept),
    and from the index a full read with hashes kept; each page's JSON text too (the bytes a
    door sends)."""
    root.mkdir()
    (root / "f.py").write_bytes(data)
    options, _ = load_options({"historyDir": str(root.parent / f"{root.name}.h"), "sessionId": "p"})
    ctx = CommandContext.create([root], options)
    out: list[Any] = [read(ctx, ReadParams(path="f.py", hashes=h)) for h in (True, False)]
    for page in pages:
        for hashes in (True, False):
            line_indexes._indexes.clear()
            got = read(ctx, ReadParams(path="f.py", hashes=hashes, **page))
            read(ctx, ReadParams(path="f.py", hashes=True))
            kept = read(ctx, ReadParams(path="f.py", hashes=hashes, **page))
            out += [got, json.dumps(got, ensure_ascii=False), kept]
    return out


def _sliced(full: dict[str, Any], offset: int, limit: int | None) -> dict[str, Any]:
    # A line's text holds no "\n" (nor "\r"): the full text's rows split on it alone.
    stop = None if limit is None else offset - 1 + limit
    rows = full["text"].split("\n")[:-1]
    text = "".join(row + "\n" for row in rows[offset - 1 : stop])
    return {**full, "lines": full["lines"][offset - 1 : stop], "text": text}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(_LINE, min_size=1, max_size=50),
    st.sampled_from(["\n", "\r\n", "\r", "mixed"]),
    st.booleans(),
    st.booleans(),
    st.lists(
        st.tuples(
            st.one_of(st.sampled_from(sorted(_OFFSETS)), st.integers(1, 60)),
            st.one_of(st.sampled_from(sorted(_LIMITS)), st.integers(1, 60)),
        ),
        min_size=1,
        max_size=3,
    ),
)
def test_every_page_answers_what_the_pure_path_and_the_full_read_do(
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[str],
    end: str,
    final: bool,
    bom: bool,
    drawn: list[tuple[str | int, str | int]],
) -> None:
    data = file_bytes(lines, end, final, bom)
    n = len(TextFile.decode(data).lines)
    pages = []
    for o, k in drawn:
        offset = _OFFSETS[o](n) if isinstance(o, str) else o
        limit = _LIMITS[k](n, offset) if isinstance(k, str) else k
        pages.append({"offset": offset} | ({} if limit is None else {"limit": limit}))
    where = tmp_path_factory.mktemp("ws")
    with core.using(None):
        pure = _reads(where / "pure", data, pages)
    with core.using(core.BUILT):
        native = _reads(where / "native", data, pages)
    assert native == pure
    for k, page in enumerate(pages):
        for j in range(2):
            expected = _sliced(native[j], page["offset"], page.get("limit"))
            got = native[2 + 6 * k + 3 * j : 2 + 6 * k + 3 * j + 3]
            assert got[0] == got[2] == expected, (page, j)


def test_a_page_of_the_whole_file_is_the_full_read() -> None:
    data = b"}\n" * 30 + b"return None\n" * 20 + "é\n".encode() + b"total = add(one, two)\n" * 3
    tf = TextFile.decode(data)
    with core.using(core.BUILT):
        whole = annotate(tf, LineIndex(tf.lines))
        page = read_page(data, None, 0, 100_000, anchors=True)
        assert page is not None and page.anchored is not None
        assert json.dumps(as_json(page.anchored)) == json.dumps(as_json(whole))
        assert render(page.anchored) == render(whole)
        assert {r["quality"] for r in as_json(page.anchored)} == {HIGH, LOW, MEDIUM}


def test_the_core_numbers_rows_and_text_from_a_page_s_first_line() -> None:
    native = core.BUILT
    assert native is not None
    lines = ["a", "}", "é b"]
    rows = native.json_rows(lines, None, [2], ["b1.2"], [1], [LOW], HIGH, 41)
    assert json.dumps(rows) == json.dumps(
        [
            {"line": 42, "text": "a", "hash": line_hash("a")[:6], "quality": HIGH},
            {"line": 43, "text": "}", "hash": line_hash("}")[:6], "quality": LOW},
            {"line": 44, "text": "é b", "hash": "b1.2", "quality": HIGH},
        ]
    )
    text = native.render(lines, [None, None, "b1.2"], b"\x00\x01\x00", 99)
    assert text == f"100#{line_hash('a')[:6]}|a\n101#{line_hash('}')[:6]}~|}}\n102#b1.2|é b\n"
    for call in (
        lambda: native.json_rows(lines, None, [], [], [], [], HIGH, -1),
        lambda: native.render(lines, [None] * 3, b"\x00" * 3, -1),
    ):
        with pytest.raises(ValueError, match="first must be 0 or more"):
            call()


@pytest.mark.parametrize("first", [0, 41, 999_990, 10**9])
def test_the_core_numbers_a_plain_read_as_python_formats_it(first: int) -> None:
    native = core.BUILT
    assert native is not None
    # One-byte, two-byte and four-byte strs: the text is built at the widest of them.
    lines = ["a = 1", "", "é", "\t}", "😀 y", "x" * 300] * 4
    rows, text = native.plain_rows(lines, first)
    assert json.dumps(rows) == json.dumps(
        [{"line": first + k + 1, "text": t} for k, t in enumerate(lines)]
    )
    assert text == "".join(f"{first + k + 1:6d}\t{t}\n" for k, t in enumerate(lines))
    assert native.plain_rows([], first) == ([], "")
    with pytest.raises(ValueError, match="first must be 0 or more"):
        native.plain_rows(lines, -1)

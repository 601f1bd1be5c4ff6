"""A read's line dicts and tokens made by the compiled core in one call each
(engine/_core_rows.c: ``hex_tokens``, ``json_rows``) against the pure-Python path: the whole
result of ``waymark.read`` (its dicts, the text a model reads, every other field) is the same
on either, for full reads and pages of files with any line ends, a BOM, repeated, blank and
low-quality lines (issue 43: a full read no longer formats and builds each line in Python)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from waymark.commands import line_indexes, registry
from waymark.commands.context import load_options
from waymark.doors.entry import open_context
from waymark.engine import core
from waymark.engine.anchors import HIGH, LOW, MEDIUM, LineIndex, annotate
from waymark.engine.text import TextFile

pytestmark = pytest.mark.skipif(core.BUILT is None, reason="the compiled core is not built")

# Repeated texts (their tokens come from the ladder), blank and punctuation-only lines (low),
# short ones (medium), non-ASCII, and plain lines mostly unique.
_POOL = ["", "  ", "\t", "}", "{", ");", "x = 1", "pass", "é = 2", "😀 y", "return None"]
_LINE = st.one_of(st.sampled_from(_POOL), st.integers(0, 400).map("v{0} = f({0})".format))
_ENDS = ["\n", "\r\n", "\r"]


def _data(lines: list[str], end: str, final: bool, bom: bool) -> bytes:
    ends = [_ENDS[i % 3] if end == "mixed" else end for i in range(len(lines))]
    if not final:
        ends[-1] = ""
    text = "".join(line + e for line, e in zip(lines, ends, strict=True))
    return (b"\xef\xbb\xbf" if bom else b"") + text.encode()


def _reads(root: Path, data: bytes, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each read's result, its dicts as JSON text too (the bytes a door sends), in a fresh
    workspace, each read finding nothing kept and then one finding what the read before kept."""
    root.mkdir()
    (root / "f.py").write_bytes(data)
    options, _ = load_options({"sessionId": "t", "historyDir": str(root.parent / "h")})
    ctx = open_context([root], options)
    out = []
    for params in calls:
        with line_indexes._guard:
            line_indexes._indexes.clear()
            line_indexes._written.clear()
            line_indexes._lines = 0
        for _ in range(2):
            got = asyncio.run(registry.execute(ctx, "waymark.read", {"path": "f.py", **params}))
            out += [got, json.dumps(got, ensure_ascii=False)]
    return out


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(_LINE, min_size=1, max_size=60),
    st.sampled_from(["\n", "\r\n", "\r", "mixed"]),
    st.booleans(),
    st.booleans(),
    st.lists(st.tuples(st.integers(1, 70), st.one_of(st.none(), st.integers(1, 30))), max_size=3),
)
def test_reads_answer_the_same_on_either_path(
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[str],
    end: str,
    final: bool,
    bom: bool,
    pages: list[tuple[int, int | None]],
) -> None:
    data = _data(lines, end, final, bom)
    calls: list[dict[str, Any]] = [{"hashes": True}, {}]
    calls += [{"hashes": True, "offset": o} | ({} if n is None else {"limit": n}) for o, n in pages]
    where = tmp_path_factory.mktemp("ws")
    with core.using(None):
        pure = _reads(where / "pure", data, calls)
    with core.using(core.BUILT):
        native = _reads(where / "native", data, calls)
    assert native == pure


def test_the_core_formats_tokens_and_builds_the_rows() -> None:
    native = core.BUILT
    assert native is not None
    prefixes = [0, 0xABC, 0xFFFFFF, 0x1000000, -5]
    assert native.hex_tokens(prefixes) == list(map("%06x".__mod__, prefixes))
    rows = native.json_rows(["a", "}", "b"], [1, 2, 0xFEDCBA], [2], ["b1.2"], [1], [LOW], HIGH)
    assert json.dumps(rows) == json.dumps(
        [
            {"line": 1, "text": "a", "hash": "000001", "quality": HIGH},
            {"line": 2, "text": "}", "hash": "000002", "quality": LOW},
            {"line": 3, "text": "b", "hash": "b1.2", "quality": HIGH},
        ]
    )


def test_a_file_of_repeats_and_punctuation_reads_the_same() -> None:
    tf = TextFile.decode(
        b"}\n" * 300 + b"return None\n" * 200 + b"x\n" + b"total = add(one, two)\n" * 3
    )
    with core.using(None):
        pure = annotate(tf, LineIndex(tf.lines))
        pure_rows, pure_hashes = pure.as_json(), pure.hashes()
    with core.using(core.BUILT):
        native = annotate(tf, LineIndex(tf.lines))
        native_rows, native_hashes = native.as_json(), native.hashes()
    assert json.dumps(native_rows) == json.dumps(pure_rows)
    assert native_hashes == pure_hashes
    assert {r["quality"] for r in native_rows} == {HIGH, LOW, MEDIUM}

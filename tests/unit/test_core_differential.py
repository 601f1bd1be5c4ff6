"""The compiled core (waymark.engine._core) against the pure-Python path: the same lines and
terminators, hashes, index columns, rendered text, read JSON and edited bytes, on fixed
corpora and generated files. And the core must be there: a test environment that silently
ran only the fallback would test half the product."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from waymark.commands.edit_ops import parse_operations
from waymark.engine import core
from waymark.engine.anchors import LineIndex, annotate, annotate_range, as_json, render
from waymark.engine.displays import context_keys_in
from waymark.engine.edits.anchored import plan_anchored_edit
from waymark.engine.edits.operations import OperationsRefused
from waymark.engine.errors import WaymarkError
from waymark.engine.line_index import hash_lines, low_by_text
from waymark.engine.text import TextFile, split_lines

# A str is a text no file on disk would decode to (NUL bytes read as binary), still a text the
# engine may be handed.
CORPORA: dict[str, bytes | str] = {
    "empty": b"",
    "one line, no newline": b"x = 1",
    "lf": b"a\nb\n\nc\n",
    "crlf": b"a\r\nb\r\n\r\nc\r\n",
    "lone cr": b"a\rb\r\rc\r",
    "mixed": b"a\r\nb\nc\rd\r\n\r\re\n\r",
    "cr then lf apart": b"a\r\r\nb\n\r",
    "no trailing newline": b"one\ntwo\r\nthree",
    "invalid utf-8": b"ok\n\xff\xfe bad \xc3(\n\xed\xa0\x80\n\xff\xfe bad \xc3(\n",
    "nul": "a\x00b\n\x00\n\x00\n",
    "non-bmp": "😀 = 1\n𝔘 x\n😀 = 1\n\n😀 = 1\n".encode(),
    "unicode spaces": "x\n\u3000\n\x1c\n\u2028 y\nx\n\u00a0\nx\n".encode(),
    "blank runs": b"a\n" + b"\n" * 40 + b"a\n" + b"   \n\t\n" * 20 + b"a\n",
    "identical lines": b"}\n" * 300 + b"return None\n" * 200 + b"x\n",
    "huge line": b"y" * 300_000 + b"\n" + "é".encode() * 100_000 + b"\n",
    "punctuation": b"}\n);\n  \n-->\n#\n...\nx = 1\n",
    # Found by search: the first "}"'s context hash starts as the hash of q17925698 does (the
    # ladder steps past a line hash), and the two "r" have contexts sharing 6 chars (mixed).
    "context prefix taken by a line": b"}\n}\nq17925698\n",
    "contexts sharing a prefix": b"s7423150\nr\np0\nr\n",
    "both, and copies": b"}\n}\nq17925698\n\ns7423150\nr\np0\nr\n" * 3,
}


def _both(fn: Callable[[], Any]) -> tuple[Any, Any]:
    with core.using(None):
        pure = fn()
    with core.using(core.BUILT):
        native = fn()
    return pure, native


def _file(data: bytes | str) -> tuple[TextFile, bytes]:
    if isinstance(data, str):
        tf = TextFile.from_text(data)
        return tf, tf.encode()
    return TextFile.decode(data), data


def _read(data: bytes | str) -> dict[str, Any]:
    tf, _ = _file(data)
    index = LineIndex(tf.lines)
    shown = annotate(tf, index)
    page = annotate_range(tf, 1, 4, index)
    return {
        "lines": tf.lines,
        "eols": tf.eols,
        "hashes": index.hashes,
        "p6": index.p6,
        "counts": list(index.p6_count.items()),
        "several": index.several,
        "shared": index.shared,
        "ctx": index.ctx,
        "low": low_by_text(tf.lines),
        "render": render(shown),
        "json": as_json(shown),
        "page": render(page),
        "pages": [
            as_json(annotate_range(tf, s, s + 3, LineIndex(tf.lines)))
            for s in range(0, len(tf.lines), 2)
        ],
        "fresh": render(annotate(tf)),
    }


def test_the_native_core_is_built_and_used() -> None:
    assert core.BUILT is not None, (
        "waymark.engine._core is not importable: install a C compiler, python3-dev and "
        "libxxhash-dev, then reinstall (pip install -e .)"
    )
    assert core.native is core.BUILT, "WAYMARK_PURE_PYTHON is set in the test environment"


def test_waymark_pure_python_forces_the_fallback() -> None:
    code = "from waymark.engine import core; print(core.BUILT is not None, core.native is None)"
    for value, expected in (("1", "True True"), ("0", "True False"), ("", "True False")):
        env = {**os.environ, "WAYMARK_PURE_PYTHON": value}
        done = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
        )
        assert done.stdout.split() == expected.split(), (value, done.stderr)


@pytest.mark.parametrize("name", sorted(CORPORA))
def test_corpora_read_the_same(name: str) -> None:
    pure, native = _both(lambda: _read(CORPORA[name]))
    assert native == pure


def test_the_searched_corpora_reach_the_ladder() -> None:
    from waymark.engine.line_index import context_hash, line_hash

    assert line_hash("q17925698")[:6] == context_hash("", "}", "}")[:6]
    mixed = context_hash("s7423150", "r", "p0"), context_hash("p0", "r", "")
    assert mixed[0][:6] == mixed[1][:6] != mixed[0][:8]


_char = st.one_of(
    st.sampled_from(["\n", "\r", "\r\n", " ", "\t", "\x00", "\u3000", "\x1c", "}", "x"]),
    st.sampled_from(["é", "😀", "\udc80", "\udcff", "-", "()", "return None"]),
    st.characters(blacklist_categories=("Cs",)),
)
_text = st.lists(_char, max_size=60).map("".join)


@settings(max_examples=300, deadline=None)
@given(_text)
def test_generated_texts_split_and_hash_the_same(text: str) -> None:
    pure, native = _both(lambda: (split_lines(text), hash_lines(split_lines(text)[0])))
    assert native == pure


# Two texts whose hashes share a 6-char prefix, blank and punctuation lines, boilerplate, a
# small alphabet that repeats lines and contexts: every rung of the display ladder.
_POOL = ["", "", "  ", "}", "x = 1", "é", "😀 y", "\udc80", "a", "value = 919", "value = 1993"]
_pool_line = st.one_of(st.sampled_from(_POOL), st.from_regex(r"[a-c]{1,2} = [0-9]", fullmatch=True))


@settings(max_examples=500, deadline=None)
@given(st.lists(_pool_line, max_size=60))
def test_generated_files_read_the_same(lines: list[str]) -> None:
    data = "\n".join(lines).encode("utf-8", "surrogateescape")
    pure, native = _both(lambda: _read(data))
    assert native == pure


def _edit(entry: bytes | str, picks: list[int]) -> object:
    tf, data = _file(entry)
    rows = list(annotate(tf))
    if not rows:
        return None
    ops = [
        {"op": "replace_line", "hash": rows[p % len(rows)].ref, "content": f"new {p}"}
        for p in picks
    ]
    try:
        edit = plan_anchored_edit(tf, parse_operations(ops))
    except (WaymarkError, OperationsRefused) as exc:
        return type(exc).__name__, str(exc), getattr(exc, "data", None)
    return edit.encode(data), edit.details, edit.diff


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["", "}", "x = 1", "é", "pass", "a", "b"]), min_size=1, max_size=30),
    st.lists(st.integers(0, 60), min_size=1, max_size=3),
)
def test_generated_edits_write_the_same_bytes(lines: list[str], picks: list[int]) -> None:
    data = "\r\n".join(lines).encode()
    pure, native = _both(lambda: _edit(data, picks))
    assert native == pure


@pytest.mark.parametrize("name", sorted(set(CORPORA) - {"empty"}))
def test_corpora_edits_write_the_same_bytes(name: str) -> None:
    pure, native = _both(lambda: _edit(CORPORA[name], [0, 7]))
    assert native == pure


def test_a_lone_surrogate_the_encoding_cannot_write_fails_alike() -> None:
    def hashed() -> object:
        try:
            return hash_lines(["ok", "\ud800"])
        except UnicodeEncodeError as exc:
            return exc.reason

    pure, native = _both(hashed)
    assert native == pure == "surrogates not allowed"


def _context_keys(data: bytes | str) -> list[list[int]]:
    tf, _ = _file(data)
    index = LineIndex(tf.lines)
    every = list(range(len(tf.lines)))
    own = [int(h[:6], 16) for h in index.context_hashes_of(every).values()]
    return [
        context_keys_in(index, wanted, keys)
        for wanted in (every, index.repeated_lines, every[1::3])
        for keys in (set(own[:2]), set(own[::5]), {0, 0xFFFFFF})
    ]


@pytest.mark.parametrize("name", sorted(CORPORA))
def test_corpora_context_prefixes_match_the_same_lines(name: str) -> None:
    pure, native = _both(lambda: _context_keys(CORPORA[name]))
    assert native == pure


@settings(max_examples=300, deadline=None)
@given(st.lists(_pool_line, max_size=60))
def test_generated_context_prefixes_match_the_same_lines(lines: list[str]) -> None:
    data = "\n".join(lines).encode("utf-8", "surrogateescape")
    pure, native = _both(lambda: _context_keys(data))
    assert native == pure

"""A paged read with anchors, made from the file's bytes (engine/page.py, _core_page.c), is
byte for byte the slice of the full read, on the compiled core and on the pure-Python path."""

from __future__ import annotations

import codecs
import re
from collections import OrderedDict
from pathlib import Path
from typing import Any

import pytest
from bench.anchors_speed import make_file
from hypothesis import given, settings
from hypothesis import strategies as st
from test_core_differential import CORPORA

from waymark.commands import line_indexes
from waymark.commands.context import CommandContext, load_options
from waymark.commands.read import ReadParams, read
from waymark.engine import core
from waymark.engine.anchors import annotate
from waymark.engine.encodings import valid_utf8
from waymark.engine.errors import WaymarkError
from waymark.engine.page import read_page
from waymark.engine.text import TextFile

FILES: dict[str, bytes] = {
    **{name: data for name, data in CORPORA.items() if isinstance(data, bytes)},
    "generated code": make_file(3000, seed=3),
    "utf-8 bom": codecs.BOM_UTF8 + "é = 1\n}\n\n}\nx\r\n".encode(),
    "utf-8 bom, invalid body": codecs.BOM_UTF8 + b"a\n\xff\n}\n}\n",
    "bom only": codecs.BOM_UTF8,
    "latin-1": "café = 1\n}\n}\n".encode("latin-1"),
    "only newline": b"\n",
    "blank last line": b"a\n\n",
}
# The repository's fixtures: every encoding, BOM and line-end case Waymark reads.
_FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
FIXTURES = sorted(
    p for d in ("files", "encodings") for p in (_FIXTURES / d).iterdir() if p.is_file()
)
# (offset, limit): the first lines, the middle, the last, past the end, no limit.
PAGES = [(1, 1), (1, 3), (2, 2), (3, 100), (5, 7), (40, 5), (299, 4), (2990, 20), (9999, 3)]


@pytest.fixture(autouse=True)
def _no_kept_indexes(monkeypatch: pytest.MonkeyPatch) -> None:
    # A kept index sends a page down the decoded path: every read here starts from bytes.
    monkeypatch.setattr(line_indexes, "_indexes", OrderedDict())
    monkeypatch.setattr(line_indexes, "_lines", 0)


def _ctx(root: Path) -> CommandContext:
    options, _ = load_options({"historyDir": str(root / ".hist"), "sessionId": "page"})
    return CommandContext.create([root], options)


def _read(ctx: CommandContext, name: str, hashes: bool = True, **params: Any) -> dict[str, Any]:
    line_indexes._indexes.clear()
    return read(ctx, ReadParams(path=name, hashes=hashes, **params))


def _sliced(full: dict[str, Any], offset: int, limit: int | None) -> dict[str, Any]:
    # A line's text holds no "\n" (nor "\r"): the full text's rows split on it alone.
    stop = None if limit is None else offset - 1 + limit
    rows = full["text"].split("\n")[:-1]
    assert len(rows) == len(full["lines"])
    text = "".join(row + "\n" for row in rows[offset - 1 : stop])
    return {**full, "lines": full["lines"][offset - 1 : stop], "text": text}


@pytest.mark.parametrize("name", sorted(FILES))
@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "pure"])
@pytest.mark.parametrize("hashes", [True, False], ids=["hashes", "plain"])
def test_a_page_is_the_slice_of_the_full_read(
    name: str, compiled: bool, hashes: bool, tmp_path: Path
) -> None:
    (tmp_path / "f.txt").write_bytes(FILES[name])
    ctx = _ctx(tmp_path)
    with core.using(core.BUILT if compiled else None):
        full = _read(ctx, "f.txt", hashes)
        for offset, limit in [*PAGES, (2, None), (1, 10**6)]:
            page = _read(ctx, "f.txt", hashes, offset=offset, limit=limit)
            assert page == _sliced(full, offset, limit), (offset, limit)


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
@pytest.mark.parametrize("hashes", [True, False], ids=["hashes", "plain"])
@pytest.mark.parametrize("declared", [None, "utf-8", "utf-8-bom", "latin1"])
def test_a_fixture_page_is_the_slice_of_the_full_read(
    fixture: Path, hashes: bool, declared: str | None, tmp_path: Path
) -> None:
    (tmp_path / fixture.name).write_bytes(fixture.read_bytes())
    ctx = _ctx(tmp_path)
    try:
        full = _read(ctx, fixture.name, hashes, encoding=declared)
    except WaymarkError as exc:
        with pytest.raises(type(exc), match=re.escape(str(exc))):
            _read(ctx, fixture.name, hashes, offset=2, limit=1, encoding=declared)
        return
    for offset, limit in [(1, 1), (2, 2), (3, None)]:
        page = _read(ctx, fixture.name, hashes, offset=offset, limit=limit, encoding=declared)
        assert page == _sliced(full, offset, limit), (offset, limit)


_POOL = [
    "",
    "",
    "  ",
    "\t",
    "}",
    "x = 1",
    "é",
    "😀 y",
    "a",
    "value = 919",
    "value = 1993",
    "\u3000",
]
_line = st.one_of(st.sampled_from(_POOL), st.from_regex(r"[a-c]{1,2} = [0-9]", fullmatch=True))
_eol = st.sampled_from(["\n", "\n", "\r\n", "\r"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_line, _eol), max_size=60), st.integers(0, 70), st.integers(1, 70))
def test_generated_pages_are_slices_of_the_annotated_file(
    rows: list[tuple[str, str]], start: int, size: int
) -> None:
    data = "".join(line + eol for line, eol in rows).encode()
    whole = list(annotate(TextFile.decode(data)))
    with core.using(core.BUILT):
        page = read_page(data, None, start, start + size, anchors=True)
    assert page is not None
    assert page.anchored == whole[start : start + size]
    assert page.total == len(whole)


@pytest.mark.parametrize("hashes", [True, False], ids=["hashes", "plain"])
def test_a_paged_read_decodes_only_its_lines(
    hashes: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "big.py").write_bytes(make_file(20_000))
    ctx = _ctx(tmp_path)
    expected = _read(ctx, "big.py", hashes, offset=9_000, limit=100)

    def whole_file(*args: object, **kwargs: object) -> TextFile:
        raise AssertionError("the whole file was decoded for a page")

    monkeypatch.setattr(TextFile, "decode", whole_file)
    with core.using(core.BUILT):
        assert _read(ctx, "big.py", hashes, offset=9_000, limit=100) == expected


def test_bytes_the_core_cannot_page_are_decoded_whole() -> None:
    with core.using(core.BUILT):
        assert read_page(b"caf\xe9\n", None, 0, 1, anchors=True) is None  # not UTF-8
        assert read_page(codecs.BOM_UTF8 + b"\xff\n", None, 0, 1, anchors=True) is None
        assert read_page("é\n".encode("utf-16-le"), "utf-16-le", 0, 1, anchors=True) is None
    with core.using(None):
        assert read_page(b"a\n", None, 0, 1, anchors=True) is None


def _decodes(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_utf8_validity_is_what_decoding_says_for_every_short_sequence() -> None:
    native = core.BUILT
    assert native is not None
    starts = [bytes([a]) for a in range(256)]
    for one in starts:
        for two in range(256):
            data = one + bytes([two])
            assert native.utf8_valid(data) == _decodes(data), data
    for lead in range(0xE0, 0xF5):
        for two in range(0x70, 0xC8):
            for three in (0x00, 0x7F, 0x80, 0xBF, 0xC0):
                for four in (b"", b"\x80", b"\xbf", b"\xc0", b"a"):
                    data = bytes([lead, two, three]) + four
                    assert native.utf8_valid(data) == _decodes(data), data


_PIECES = [b"a", b"12345678", b"\xc2\x80", b"\xe0\xa0\x80", b"\xed\x9f\xbf", b"\xed\xa0\x80"]
_PIECES += [b"\xf4\x8f\xbf\xbf", b"\xf4\x90\x80\x80", b"\xc0\x80", b"\xf5", b"\x80", b"\xe0\x80"]


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.binary(max_size=40), st.lists(st.sampled_from(_PIECES)).map(b"".join)))
def test_utf8_validity_is_what_decoding_says(data: bytes) -> None:
    assert core.BUILT is not None
    assert core.BUILT.utf8_valid(data) == _decodes(data)
    with core.using(None):
        assert valid_utf8(data) == _decodes(data)

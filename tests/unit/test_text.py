"""The text model over the fixture matrix: byte-exact round trips and one-line edits.

Expected bytes are computed by a byte-level oracle written here independently of
``waymark.text`` (its own line splitter over raw bytes), so a bug shared by the splitter and
the encoder cannot hide itself.
"""

from __future__ import annotations

import codecs
import importlib.util
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from waymark.engine.encodings import errors_for
from waymark.engine.errors import BinaryFile, UnrepresentableCharacter
from waymark.engine.text import TextFile, dominant_eol, split_lines
from waymark.store import files

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "files"

# name → (encoding, bom, eol_style, dominant eol, final_newline, lines); None = binary_file.
EXPECTED: dict[str, tuple[str, bool, str, str, bool, tuple[str, ...]] | None] = {
    "lf.txt": ("utf-8", False, "lf", "\n", True, ("first line", "second line", "third line")),
    "crlf.txt": ("utf-8", False, "crlf", "\r\n", True, ("first line", "second line", "third line")),
    "cr.txt": ("utf-8", False, "cr", "\r", True, ("first line", "second line", "third line")),
    "mixed-eol.txt": (
        "utf-8",
        False,
        "mixed",
        "\r\n",
        False,
        ("one", "two", "three", "four", "five", "six"),
    ),
    "cr-crlf-edges.txt": (
        "utf-8",
        False,
        "mixed",
        "\r",
        False,
        ("a", "", "b", "", "c", "", "", "d"),
    ),
    "no-final-newline.txt": ("utf-8", False, "lf", "\n", False, ("alpha", "beta", "gamma")),
    "no-final-newline-crlf.txt": (
        "utf-8",
        False,
        "crlf",
        "\r\n",
        False,
        ("alpha", "beta", "gamma"),
    ),
    "only-newline.txt": ("utf-8", False, "lf", "\n", True, ("",)),
    "blank-lines.txt": ("utf-8", False, "lf", "\n", True, ("", "", "  ", "\t")),
    "empty.txt": ("utf-8", False, "lf", "\n", True, ()),
    "utf8.txt": ("utf-8", False, "lf", "\n", True, ("naïve café — 東京 🎉", "zweite Zeile")),
    "utf8-bom.txt": ("utf-8", True, "crlf", "\r\n", True, ("héllo", "wörld")),
    "utf8-bom-only.txt": ("utf-8", True, "lf", "\n", True, ()),
    "utf16le-bom.txt": ("utf-16-le", True, "crlf", "\r\n", False, ("héllo", "𝄞 clef", "end")),
    "utf16be-bom.txt": ("utf-16-be", True, "lf", "\n", True, ("héllo", "𝄞 clef", "end")),
    "utf32le-bom.txt": ("utf-32-le", True, "lf", "\n", True, ("héllo", "𝄞")),
    "utf32be-bom.txt": ("utf-32-be", True, "crlf", "\r\n", True, ("héllo", "𝄞")),
    # Not UTF-8, and Windows-1252 clearly: read as its real text (docs/files-and-encodings.md).
    "latin1.txt": ("windows-1252", False, "lf", "\n", True, ("café crème", "naïve © 2024")),
    "invalid-utf8.txt": (
        "utf-8",
        False,
        "lf",
        "\n",
        True,
        (
            "ok line",
            "truncated \udce2\udc82",
            "overlong \udcc0\udcaf slash",
            "surrogate \udced\udca0\udc80 encoded",
            "stray \udc80\udcbf continuation",
            "valid € euro",
        ),
    ),
    "unicode-separators.txt": (
        "utf-8",
        False,
        "lf",
        "\n",
        True,
        ("a\u2028b\u2029c\x0cd\x0be\x1cf\x1dg\x1eh\x85i", "second"),
    ),
    "tabs.txt": (
        "utf-8",
        False,
        "lf",
        "\n",
        True,
        ("def f(x):", "\tif x:", "\t\treturn 1", "\treturn 0"),
    ),
    "trailing-whitespace.txt": (
        "utf-8",
        False,
        "lf",
        "\n",
        True,
        ("code   ", "\t", "  \t  ", "end\t"),
    ),
    "binary-nul.bin": None,
}

TEXT_FIXTURES = sorted(n for n, e in EXPECTED.items() if e is not None)
NON_EMPTY = [n for n in TEXT_FIXTURES if (e := EXPECTED[n]) is not None and e[5]]
BOM_BY_ENCODING = {
    "utf-8": codecs.BOM_UTF8,
    "utf-16-le": codecs.BOM_UTF16_LE,
    "utf-16-be": codecs.BOM_UTF16_BE,
    "utf-32-le": codecs.BOM_UTF32_LE,
    "utf-32-be": codecs.BOM_UTF32_BE,
}


def fixture_bytes(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


# ---- the independent oracle ---------------------------------------------------------------

_BYTE_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n|\Z)")
_STR_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|\Z)")


def line_spans(data: bytes, encoding: str, bom: bool) -> list[tuple[int, int, int]]:
    """Byte spans ``(content_start, content_end, terminator_end)`` of each line of ``data``."""
    offset = len(BOM_BY_ENCODING[encoding]) if bom else 0
    spans: list[tuple[int, int, int]] = []
    if encoding == "utf-8":
        for m in _BYTE_LINE.finditer(data, offset):
            chunk = m.group()
            if not chunk:
                break
            term = 2 if chunk.endswith(b"\r\n") else 1 if chunk[-1:] in (b"\r", b"\n") else 0
            spans.append((m.start(), m.end() - term, m.end()))
        return spans
    text = data[offset:].decode(encoding, errors_for(encoding))
    pos = offset
    for sm in _STR_LINE.finditer(text):
        line = sm.group()
        if not line:
            break
        term = 2 if line.endswith("\r\n") else 1 if line[-1:] in ("\r", "\n") else 0
        content_len = len(line[: len(line) - term].encode(encoding, errors_for(encoding)))
        total = len(line.encode(encoding, errors_for(encoding)))
        spans.append((pos, pos + content_len, pos + total))
        pos += total
    return spans


def encode_like(text: str, encoding: str) -> bytes:
    return text.encode(encoding, errors_for(encoding))


def encodable(text: str, encoding: str) -> bool:
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        return False
    return True


# ---- the matrix ---------------------------------------------------------------------------


def test_every_committed_fixture_has_an_expectation() -> None:
    committed = {p.name for p in FIXTURES.iterdir()}
    assert committed == set(EXPECTED)


def test_committed_fixtures_equal_their_generator() -> None:
    # Guards against a checkout that converted line endings or stripped a BOM.
    spec = importlib.util.spec_from_file_location("make_files", ROOT / "fixtures" / "make_files.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name, data in module.FILES.items():
        assert fixture_bytes(name) == data, name


@pytest.mark.parametrize("name", TEXT_FIXTURES)
def test_fixture_metadata(name: str) -> None:
    expected = EXPECTED[name]
    assert expected is not None
    encoding, bom, eol_style, eol, final_newline, lines = expected
    tf = TextFile.decode(fixture_bytes(name))
    assert (tf.encoding, tf.bom, tf.eol_style, tf.eol, tf.final_newline) == (
        encoding,
        bom,
        eol_style,
        eol,
        final_newline,
    )
    assert tf.lines == lines
    assert len(tf) == len(lines)


def test_binary_fixture_is_refused() -> None:
    with pytest.raises(BinaryFile) as info:
        TextFile.decode(fixture_bytes("binary-nul.bin"))
    assert info.value.code == "binary_file"
    assert info.value.details == {"reason": "nul_byte"}


@pytest.mark.parametrize("name", TEXT_FIXTURES)
def test_round_trip_unedited_is_byte_identical(name: str) -> None:
    data = fixture_bytes(name)
    tf = TextFile.decode(data)
    assert tf.encode() == data
    # Rebuilding from the decoded text must not normalise anything either.
    assert tf.with_text(tf.text).encode() == data


@pytest.mark.parametrize("name", TEXT_FIXTURES)
def test_round_trip_through_atomic_write(name: str, tmp_path: Path) -> None:
    data = fixture_bytes(name)
    target = tmp_path / name
    target.write_bytes(data)
    before = files.read_state(target)
    assert before.data is not None
    files.atomic_write(target, TextFile.decode(before.data).encode())
    assert target.read_bytes() == data
    assert files.read_state(target).digest == before.digest


@pytest.mark.parametrize("name", TEXT_FIXTURES)
def test_oracle_agrees_with_split(name: str) -> None:
    data = fixture_bytes(name)
    tf = TextFile.decode(data)
    spans = line_spans(data, tf.encoding, tf.bom)
    assert len(spans) == len(tf)
    bom_len = len(BOM_BY_ENCODING[tf.encoding]) if tf.bom else 0
    covered = spans[-1][2] if spans else bom_len
    assert covered == len(data)


@pytest.mark.parametrize("name", NON_EMPTY)
def test_edit_of_one_line_changes_only_that_lines_bytes(name: str) -> None:
    data = fixture_bytes(name)
    tf = TextFile.decode(data)
    spans = line_spans(data, tf.encoding, tf.bom)
    for index, (start, end, _) in enumerate(spans):
        for replacement in ("EDITED", "", "ünï €😀", "\tx  "):
            if not encodable(replacement, tf.encoding):
                with pytest.raises(UnrepresentableCharacter):
                    tf.splice(index, index + 1, [replacement]).encode()
                continue
            edited = tf.splice(index, index + 1, [replacement]).encode()
            expected = data[:start] + encode_like(replacement, tf.encoding) + data[end:]
            assert edited == expected, (name, index, replacement)


@pytest.mark.parametrize("name", NON_EMPTY)
def test_inserted_lines_take_the_dominant_eol(name: str) -> None:
    data = fixture_bytes(name)
    tf = TextFile.decode(data)
    spans = line_spans(data, tf.encoding, tf.bom)
    eol = encode_like(tf.eol, tf.encoding)
    for index in range(len(tf)):
        # Insertion before line `index`: the old bytes are untouched on both sides.
        cut = spans[index][0]
        edited = tf.splice(index, index, ["new 1", "new 2"]).encode()
        inserted = encode_like("new 1", tf.encoding) + eol + encode_like("new 2", tf.encoding) + eol
        assert edited == data[:cut] + inserted + data[cut:], (name, index)


@pytest.mark.parametrize("name", NON_EMPTY)
def test_one_line_becoming_three_keeps_its_terminator_last(name: str) -> None:
    data = fixture_bytes(name)
    tf = TextFile.decode(data)
    spans = line_spans(data, tf.encoding, tf.bom)
    eol = encode_like(tf.eol, tf.encoding)
    for index, (start, end, _) in enumerate(spans):
        edited = tf.splice(index, index + 1, ["x", "y", "z"]).encode()
        middle = b"".join(encode_like(s, tf.encoding) + eol for s in ("x", "y"))
        expected = data[:start] + middle + encode_like("z", tf.encoding) + data[end:]
        assert edited == expected, (name, index)


@pytest.mark.parametrize("name", NON_EMPTY)
def test_deleting_a_line_removes_exactly_its_bytes(name: str) -> None:
    data = fixture_bytes(name)
    tf = TextFile.decode(data)
    spans = line_spans(data, tf.encoding, tf.bom)
    for index, (start, _, term_end) in enumerate(spans):
        edited = tf.splice(index, index + 1, []).encode()
        if index == len(spans) - 1 and not tf.final_newline and index > 0 and tf.lines[-2]:
            # The last line had no terminator: the line before it gives up its own so the
            # file still ends without one (an empty line keeps it, or it would be no line).
            prev_end = spans[index - 1][1]
            expected = data[:prev_end]
        else:
            expected = data[:start] + data[term_end:]
        assert edited == expected, (name, index)


# ---- final newline ------------------------------------------------------------------------


def test_no_final_newline_survives_edits_of_the_last_line() -> None:
    tf = TextFile.decode(b"alpha\nbeta\ngamma")
    assert tf.splice(2, 3, ["GAMMA"]).encode() == b"alpha\nbeta\nGAMMA"
    assert tf.splice(2, 3, ["g1", "g2"]).encode() == b"alpha\nbeta\ng1\ng2"
    assert tf.splice(3, 3, ["delta"]).encode() == b"alpha\nbeta\ngamma\ndelta"
    assert tf.splice(3, 3, ["d1", "d2"]).encode() == b"alpha\nbeta\ngamma\nd1\nd2"
    assert tf.splice(2, 3, []).encode() == b"alpha\nbeta"
    assert tf.splice(1, 3, []).encode() == b"alpha"
    assert tf.splice(0, 3, []).encode() == b""
    assert tf.splice(0, 1, []).encode() == b"beta\ngamma"


def test_no_final_newline_crlf_appends_with_crlf() -> None:
    tf = TextFile.decode(b"alpha\r\nbeta")
    assert tf.splice(2, 2, ["gamma"]).encode() == b"alpha\r\nbeta\r\ngamma"
    assert tf.splice(1, 2, []).encode() == b"alpha"


def test_final_newline_kept_when_present() -> None:
    tf = TextFile.decode(b"a\nb\n")
    assert tf.splice(2, 2, ["c"]).encode() == b"a\nb\nc\n"
    assert tf.splice(1, 2, []).encode() == b"a\n"


def test_empty_file_gets_lines_with_lf_and_a_final_newline() -> None:
    tf = TextFile.decode(b"")
    assert tf.splice(0, 0, ["a", "b"]).encode() == b"a\nb\n"
    bom_only = TextFile.decode(codecs.BOM_UTF8)
    assert bom_only.splice(0, 0, ["x"]).encode() == codecs.BOM_UTF8 + b"x\n"


def test_bad_splice_bounds_raise() -> None:
    tf = TextFile.decode(b"a\nb\n")
    for start, end in ((-1, 0), (1, 0), (0, 3), (3, 3)):
        with pytest.raises(ValueError):
            tf.splice(start, end, ["x"])


# ---- line splitting ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "separator", ["\u2028", "\u2029", "\x0c", "\x0b", "\x1c", "\x1d", "\x1e", "\x85"]
)
def test_str_splitlines_separators_do_not_split(separator: str) -> None:
    text = f"left{separator}right\nnext\n"
    assert len(text.splitlines()) == 3  # what the model must not do
    assert split_lines(text) == ([f"left{separator}right", "next"], ["\n", "\n"])
    data = text.encode()
    assert TextFile.decode(data).encode() == data


@pytest.mark.parametrize(
    ("text", "lines", "eols"),
    [
        ("", [], []),
        ("a", ["a"], [""]),
        ("a\n", ["a"], ["\n"]),
        ("a\nb", ["a", "b"], ["\n", ""]),
        ("\n", [""], ["\n"]),
        ("\n\n", ["", ""], ["\n", "\n"]),
        ("\r", [""], ["\r"]),
        ("\r\n", [""], ["\r\n"]),
        ("\n\r", ["", ""], ["\n", "\r"]),
        ("\r\r\n", ["", ""], ["\r", "\r\n"]),
        ("a\r\nb\rc\nd", ["a", "b", "c", "d"], ["\r\n", "\r", "\n", ""]),
        ("a\r", ["a"], ["\r"]),
    ],
)
def test_split_lines_exact(text: str, lines: list[str], eols: list[str]) -> None:
    assert split_lines(text) == (lines, eols)


def test_dominant_eol_ties_go_to_the_first_seen() -> None:
    assert dominant_eol(["\n", "\r\n", "\r\n", "\n"]) == "\n"
    assert dominant_eol(["\r\n", "\n", "\n", "\r\n"]) == "\r\n"
    assert dominant_eol(["\r", "\n", "\n", ""]) == "\n"
    assert dominant_eol(["", ""]) == "\n"
    assert dominant_eol([]) == "\n"
    tie = TextFile.decode(b"a\nb\r\nc\r\nd\n")
    assert tie.splice(4, 4, ["e"]).encode() == b"a\nb\r\nc\r\nd\ne\n"


# ---- large and boundary inputs -------------------------------------------------------------


@pytest.mark.parametrize("final", [b"", b"\n", b"\r\n"])
def test_huge_single_line(final: bytes) -> None:
    line = (b"0123456789abcdef" * 65536)[: 1024 * 1024]
    data = line + final
    tf = TextFile.decode(data)
    assert len(tf) == 1
    assert len(tf.lines[0]) == 1024 * 1024
    assert tf.encode() == data
    assert tf.splice(0, 1, ["short"]).encode() == b"short" + final


def test_many_lines_round_trip() -> None:
    data = b"".join(b"line %d\r\n" % i for i in range(100_000))
    tf = TextFile.decode(data)
    assert len(tf) == 100_000
    assert tf.encode() == data
    edited = tf.splice(50_000, 50_001, ["changed"]).encode()
    assert edited == data.replace(b"line 50000\r\n", b"changed\r\n")


def test_binary_sniff_window_is_the_first_8192_bytes() -> None:
    with pytest.raises(BinaryFile):
        TextFile.decode(b"a" * 8191 + b"\x00")
    late = b"a" * 8192 + b"\x00\n"
    tf = TextFile.decode(late)
    assert tf.encode() == late
    assert tf.lines == ("a" * 8192 + "\x00",)


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_wide_encodings_with_bom_are_text_despite_nuls(encoding: str) -> None:
    data = BOM_BY_ENCODING[encoding] + "a\r\nb\n".encode(encoding)
    tf = TextFile.decode(data)
    assert (tf.encoding, tf.bom, tf.lines, tf.eols) == (encoding, True, ("a", "b"), ("\r\n", "\n"))
    assert tf.encode() == data


def test_utf16_without_bom_is_binary() -> None:
    with pytest.raises(BinaryFile) as info:
        TextFile.decode("hello\n".encode("utf-16-le"))
    assert info.value.code == "binary_file"


def test_utf16_with_odd_length_is_refused_not_guessed() -> None:
    with pytest.raises(BinaryFile) as info:
        TextFile.decode(codecs.BOM_UTF16_LE + b"a\x00b")
    assert info.value.code == "binary_file"
    assert info.value.details == {
        "reason": "undecodable",
        "encoding": "utf-16-le",
        "offset": 4,
        "line": 1,
    }


def test_utf8_bom_does_not_excuse_nul_bytes() -> None:
    # The contract exempts only UTF-16/32 BOMs: a UTF-8 BOM in front of NULs is still binary.
    with pytest.raises(BinaryFile) as info:
        TextFile.decode(codecs.BOM_UTF8 + b"abc\x00def\n")
    assert info.value.code == "binary_file"


@pytest.mark.parametrize(
    ("declared", "data", "offset", "line"),
    [
        (None, codecs.BOM_UTF16_LE + b"a\x00\n\x00\x00\xd8b\x00", 6, 2),
        (None, codecs.BOM_UTF16_BE + b"\x00a\x00\r\x00\n\xdc\x00", 8, 2),
        (None, codecs.BOM_UTF32_LE + b"a\x00\x00\x00\x00\xd8\x00\x00", 8, 1),
        ("utf-16le", b"a\x00\r\x00\r\x00\x00\xdc", 6, 3),
        ("utf-32-be", b"\x00\x00\x00a\x00\x11\x00\x00", 4, 1),
    ],
)
def test_lone_utf16_32_surrogates_are_refused_naming_the_first(
    declared: str | None, data: bytes, offset: int, line: int
) -> None:
    # A lone surrogate is no text: it could not be hashed, printed or sent as JSON.
    with pytest.raises(BinaryFile) as info:
        TextFile.decode(data, declared)
    assert info.value.details["offset"] == offset
    assert info.value.details["line"] == line


# ---- properties ---------------------------------------------------------------------------

_BOM_PREFIXES = st.sampled_from([b"", *BOM_BY_ENCODING.values()])
_PIECES = (
    b"a", b"\xc3\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x98\x80", b"\r", b"\n", b"\r\n", b"\x80",
    b"\xff", b"\xed\xa0\x80", b"\xc0", b"\x00", b" ", b"\t", b"\xe2\x80\xa8", b"\x0c",
)  # fmt: skip
_TEXTISH_BYTES = st.lists(
    st.sampled_from(_PIECES),
    max_size=60,
).map(b"".join)


def _decoded_or_binary(data: bytes) -> TextFile | None:
    try:
        return TextFile.decode(data)
    except BinaryFile as exc:
        assert exc.code == "binary_file"
        return None


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.binary(max_size=300), st.tuples(_BOM_PREFIXES, _TEXTISH_BYTES).map(b"".join)))
def test_property_any_bytes_round_trip_or_are_binary(data: bytes) -> None:
    tf = _decoded_or_binary(data)
    if tf is None:
        return
    assert tf.encode() == data
    assert tf.with_text(tf.text).encode() == data


_DECLARED = st.sampled_from(
    [None, "utf-16le", "utf-16be", "utf-32le", "utf-32be", "gbk", "shift_jis", "latin1"]
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.tuples(_BOM_PREFIXES, st.binary(max_size=64)).map(b"".join), _DECLARED)
def test_property_decoded_text_is_always_text(data: bytes, declared: str | None) -> None:
    # Whatever the BOM or declaration: the text is refused, or every line can be hashed,
    # printed and sent as JSON (UTF-8 bytes; U+DC80..U+DCFF only stand for a stray byte).
    try:
        tf = TextFile.decode(data, declared)
    except BinaryFile as exc:
        assert exc.details["reason"] in ("nul_byte", "undecodable")
        return
    tf.text.encode("utf-8", "surrogateescape")
    assert tf.encode() == data


@settings(max_examples=300, deadline=None)
@given(_TEXTISH_BYTES, st.data())
def test_property_one_line_edit_changes_only_that_line(data: bytes, draw: Any) -> None:
    tf = _decoded_or_binary(data)
    assume(tf is not None and len(tf) > 0)
    assert tf is not None
    spans = line_spans(data, tf.encoding, tf.bom)
    index = draw.draw(st.integers(0, len(tf) - 1))
    # New content is real text: a lone surrogate cannot be encoded (the command layer must
    # refuse one arriving over JSON before it reaches the text model).
    chars = st.characters(blacklist_characters="\r\n", blacklist_categories=("Cs",))
    replacement = draw.draw(st.text(chars, max_size=8))
    assume(encodable(replacement, tf.encoding))
    start, end, _ = spans[index]
    edited = tf.splice(index, index + 1, [replacement]).encode()
    assert edited == data[:start] + encode_like(replacement, tf.encoding) + data[end:]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.text(st.characters(blacklist_characters="\r\n"), max_size=6), max_size=8),
    st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=8, max_size=8),
    st.booleans(),
)
def test_property_lines_and_terminators_survive(
    lines: list[str], eols: list[str], final: bool
) -> None:
    chosen = eols[: len(lines)]
    if lines and not final:
        chosen[-1] = ""
    # "\r" then an empty line ended by "\n" is the text "\r\n": one line, not two.
    assume(
        not any(
            chosen[i] == "\r" and lines[i + 1] == "" and chosen[i + 1] == "\n"
            for i in range(len(lines) - 1)
        )
    )
    text = "".join(line + eol for line, eol in zip(lines, chosen, strict=True))
    assert "".join(a + b for a, b in zip(*split_lines(text), strict=True)) == text
    got_lines, got_eols = split_lines(text)
    # An unterminated empty last line is the only thing the text cannot express.
    if lines and not final and lines[-1] == "":
        lines, chosen = lines[:-1], chosen[:-1]
    assert (got_lines, got_eols) == (lines, chosen)

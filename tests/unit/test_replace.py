"""String replacement (``waymark.replace``) and ``waymark.write`` plans, over raw file bytes.

Every case starts from bytes, decodes them with the text model, plans, and encodes the way
the command layer does, so "keeps tabs / CRLF / BOM" is checked byte for byte. Refusals
assert the error code, the details an agent relies on, and that the bytes stay as they were.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable
from typing import Any

import pytest

from waymark.commands.replace import EditShape, replace_text, structure_edits, write_bytes
from waymark.commands.wording import message
from waymark.engine.edits.replace import ReplaceEdit, ReplaceResult
from waymark.engine.errors import WaymarkError
from waymark.engine.text import TextFile

TABS = b"def main():\n\tif ready:\n\t\tgo(1)\n\t\tgo(2)\n\treturn 0\n"
CRLF = b"[core]\r\n\tname = x\r\n\tsize = 1\r\n[extra]\r\n\tflag = on\r\n"


def apply(data: bytes, old: str, new: str, expected: int = 1) -> tuple[bytes, ReplaceResult]:
    tf = TextFile.decode(data)
    result = replace_text(tf.text, ReplaceEdit(old, new, expected))
    return tf.encode_text(result.text), result


def refused(data: bytes, code: str, plan: Callable[[str], object]) -> WaymarkError:
    """Run ``plan`` on the decoded text; it must fail with ``code`` and leave the bytes alone."""
    tf = TextFile.decode(data)
    with pytest.raises(WaymarkError) as info:
        plan(tf.text)
    assert info.value.code == code, info.value.message
    assert tf.encode() == data
    return info.value


def refuse_replace(data: bytes, code: str, old: str, new: str, expected: int = 1) -> WaymarkError:
    return refused(data, code, lambda text: replace_text(text, ReplaceEdit(old, new, expected)))


# --- exact replacement -------------------------------------------------------------------


def test_exact_replacement_with_snippet() -> None:
    after, result = apply(TABS, "\t\tgo(2)\n", "\t\tgo(3)\n")
    assert after == TABS.replace(b"go(2)", b"go(3)")
    assert result.replacements == 1
    assert result.edits_applied == 1
    assert result.warnings == []
    assert result.snippet == (
        "  1 | def main():\n  2 | \tif ready:\n  3 | \t\tgo(1)\n> 4 | \t\tgo(3)\n  5 | \treturn 0"
    )


def test_tabs_written_exactly_apply_byte_exact() -> None:
    after, _ = apply(TABS, "\tif ready:\n\t\tgo(1)\n", "\tif ready and set:\n\t\tgo(10)\n")
    assert after == b"def main():\n\tif ready and set:\n\t\tgo(10)\n\t\tgo(2)\n\treturn 0\n"


def test_expected_replacements_replaces_every_occurrence() -> None:
    after, result = apply(TABS, "go(", "run(", expected=2)
    assert after == TABS.replace(b"go(", b"run(")
    assert result.replacements == 2


def test_occurrences_do_not_overlap() -> None:
    after, result = apply(b"aaaa\n", "aa", "b", expected=2)
    assert after == b"bb\n"
    assert result.replacements == 2


def test_snippet_marks_only_what_changed_and_separates_places() -> None:
    body = "".join(f"line {n}\n" for n in range(1, 21)).encode()
    _, result = apply(body, "line 2\nline 3\n", "line 2\nline three\n")
    assert result.snippet.splitlines()[:4] == [
        "  1 | line 1",
        "  2 | line 2",
        "> 3 | line three",
        "  4 | line 4",
    ]
    _, result = apply(body, "line", "row", expected=20)
    assert "  ..." not in result.snippet  # every line changed: one block
    _, result = apply(body, "line 1\n", "first\n")
    assert result.snippet.startswith("> 1 | first\n  2 | line 2")
    _, result = apply(
        b"a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n", "a\n", "A\n"
    )  # one place only: no separator
    assert "..." not in result.snippet


def test_snippet_gap_between_distant_changes() -> None:
    body = "".join(f"x{n}\n" for n in range(30)).encode().replace(b"x5\n", b"T\n")
    body = body.replace(b"x25\n", b"T\n")
    _, result = apply(body, "T\n", "U\n", expected=2)
    rows = result.snippet.splitlines()
    assert "  ..." in rows
    assert [r for r in rows if r.startswith(">")] == [">  6 | U", "> 26 | U"]


def test_snippet_shows_deleted_lines() -> None:
    _, result = apply(b"a\nb\nc\nd\n", "b\nc\n", "")
    assert result.snippet == "  1 | a\n-   | (2 lines deleted)\n  2 | d"
    _, result = apply(b"a\nb\n", "b\n", "")
    assert result.snippet == "  1 | a\n-   | (1 line deleted)"
    _, result = apply(b"a\nbxc\n", "x", "")
    assert result.snippet == "  1 | a\n> 2 | bc"


def test_snippet_caps_long_lines_and_many_rows() -> None:
    _, result = apply(("y" * 500 + "\n").encode(), "y" * 500, "z" * 500)
    assert result.snippet == "> 1 | " + "z" * 200 + " … (+300 chars)"
    body = "".join(f"k{n}\n" for n in range(300)).encode()
    _, result = apply(body, "k", "m", expected=300)
    rows = result.snippet.splitlines()
    assert len(rows) == 81
    assert rows[-1] == "  ... (220 more changed rows not shown; see the diff)"


def test_becoming_empty() -> None:
    after, result = apply(b"only\n", "only\n", "")
    assert after == b""
    assert result.snippet == "(the file is now empty)"


# --- line endings ---------------------------------------------------------------------------


def test_crlf_file_with_lf_old_and_new_keeps_crlf() -> None:
    after, result = apply(CRLF, "\tname = x\n\tsize = 1\n", "\tname = y\n\tsize = 2\n\tmode = 3\n")
    assert (
        after == b"[core]\r\n\tname = y\r\n\tsize = 2\r\n\tmode = 3\r\n[extra]\r\n\tflag = on\r\n"
    )
    assert result.snippet.splitlines()[1:4] == [
        "> 2 | \tname = y",
        "> 3 | \tsize = 2",
        "> 4 | \tmode = 3",
    ]


def test_crlf_file_with_explicit_crlf_old_string() -> None:
    after, _ = apply(CRLF, "[extra]\r\n\tflag = on\r\n", "[extra]\r\n\tflag = off\r\n")
    assert after == CRLF.replace(b"flag = on", b"flag = off")


def test_crlf_inserting_lines_into_a_single_line_match() -> None:
    after, _ = apply(CRLF, "[extra]", "[extra]\n# note")
    assert after == CRLF.replace(b"[extra]", b"[extra]\r\n# note")


def test_new_lines_take_the_terminator_of_the_replaced_region() -> None:
    # Mostly CRLF, but the block being edited uses LF: it stays LF.
    data = b"a\r\nb\r\nc\r\nd\ne\nf\r\n"
    after, _ = apply(data, "d\ne\n", "d\nE\nE2\n")
    assert after == b"a\r\nb\r\nc\r\nd\nE\nE2\nf\r\n"


def test_lone_cr_file() -> None:
    after, _ = apply(b"one\rtwo\rthree\r", "two\nthree", "2\n3")
    assert after == b"one\r2\r3\r"


def test_line_ending_only_change_is_a_no_op() -> None:
    err = refuse_replace(CRLF, "no_op", "[core]\r\n", "[core]\n")
    assert "line endings" in err.message


def test_crlf_old_string_in_lf_file_is_a_helpful_miss() -> None:
    err = refuse_replace(TABS, "old_string_not_found", "\tif ready:\r\n\t\tgo(1)\r\n", "x")
    assert err.details["differences"] == ["line_endings"]
    assert err.details["file_text"] == "\tif ready:\n\t\tgo(1)\n"
    assert (err.details["start_line"], err.details["end_line"]) == (2, 3)


# --- encodings ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bom", "codec"),
    [
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
    ],
)
def test_replace_keeps_bom_encoding_and_crlf(bom: bytes, codec: str) -> None:
    data = bom + "größe = 1\r\nname = ü\r\n".encode(codec)
    after, _ = apply(data, "größe = 1\n", "größe = 2\n")
    assert after == bom + "größe = 2\r\nname = ü\r\n".encode(codec)


def test_undecodable_bytes_survive_a_replacement() -> None:
    data = b"caf\xe9 = 1\nx = 2\n"
    after, _ = apply(data, "x = 2", "x = 3")
    assert after == b"caf\xe9 = 1\nx = 3\n"


# --- refusals -----------------------------------------------------------------------------


def test_empty_old_string_points_to_write() -> None:
    err = refuse_replace(TABS, "invalid_params", "", "x")
    assert err.details == {"field": "old_string", "use": "waymark.write"}
    assert err.next_step == "write"
    assert "use waymark.write" in message(err)


def test_identical_strings_are_a_no_op() -> None:
    err = refuse_replace(TABS, "no_op", "go(1)", "go(1)")
    assert err.details == {}


def test_expected_replacements_must_be_positive() -> None:
    with pytest.raises(WaymarkError) as info:
        ReplaceEdit("a", "b", 0)
    assert info.value.code == "invalid_params"
    assert info.value.details == {"field": "expected_replacements"}


def test_count_mismatch_says_how_many_and_where() -> None:
    err = refuse_replace(TABS, "replacement_count_mismatch", "go(", "run(")
    assert err.details == {"expected": 1, "found": 2, "lines": [3, 4]}
    assert "occurs 2 time(s) (line(s) 3, 4)" in err.message
    assert "expected_replacements to 2" in err.message
    err = refuse_replace(TABS, "replacement_count_mismatch", "go(", "run(", expected=3)
    assert err.details == {"expected": 3, "found": 2, "lines": [3, 4]}


def test_spaces_for_tabs_are_refused_with_the_verbatim_text() -> None:
    old = "    if ready:\n        go(1)\n"
    err = refuse_replace(TABS, "old_string_not_found", old, "    if ready:\n        go(9)\n")
    details = err.details
    assert details["differences"] == ["tabs_vs_spaces"]
    assert details["file_text"] == "\tif ready:\n\t\tgo(1)\n"
    assert (details["start_line"], details["end_line"]) == (2, 3)
    assert "tabs vs spaces" in err.message
    # The verbatim retry applies and keeps the tabs.
    after, _ = apply(TABS, details["file_text"], "\tif ready:\n\t\tgo(9)\n")
    assert after == TABS.replace(b"go(1)", b"go(9)")


def test_spaces_for_tabs_in_crlf_file() -> None:
    err = refuse_replace(CRLF, "old_string_not_found", "  name = x\n  size = 1", "y")
    assert err.details["file_text"] == "\tname = x\r\n\tsize = 1"
    assert err.details["differences"] == ["tabs_vs_spaces"]
    after, _ = apply(CRLF, err.details["file_text"], "\tname = x\r\n\tsize = 5")
    assert after == CRLF.replace(b"size = 1", b"size = 5")


def test_single_line_indentation_miss() -> None:
    err = refuse_replace(TABS, "old_string_not_found", "    return 0", "    return 1")
    assert err.details["file_text"] == "\treturn 0"
    assert err.details["differences"] == ["tabs_vs_spaces"]


def test_trailing_whitespace_miss() -> None:
    data = b"alpha  \nbeta\t\ngamma\n"
    err = refuse_replace(data, "old_string_not_found", "alpha\nbeta\n", "x")
    assert err.details["file_text"] == "alpha  \nbeta\t\n"
    assert err.details["differences"] == ["trailing_whitespace"]
    assert "trailing whitespace" in err.message


def test_inner_whitespace_miss() -> None:
    err = refuse_replace(b"x\tint\n", "old_string_not_found", "x int", "y int")
    assert err.details["file_text"] == "x\tint"
    assert err.details["differences"] == ["inner_whitespace"]


def test_final_newline_miss() -> None:
    err = refuse_replace(b"a\nlast", "old_string_not_found", "a\nlast\n", "z\n")
    assert err.details["differences"] == ["final_newline"]
    assert err.details["file_text"] == "a\nlast"


def test_several_whitespace_candidates_are_listed() -> None:
    data = b"\tx = 1\n\ty = 2\n\tx = 1\n"
    err = refuse_replace(data, "old_string_not_found", "    x = 1", "q")
    assert err.details["candidates_total"] == 2
    assert [c["start_line"] for c in err.details["candidates"]] == [1, 3]


@pytest.mark.parametrize(
    ("old", "style"),
    [
        ("     2\t\tif ready:\n     3\t\t\tgo(1)\n", "cat -n"),
        ("     2→\tif ready:\n     3→\t\tgo(1)\n", "arrow"),
        ("2#a1b2c3|\tif ready:\n3#0f9e8d|\t\tgo(1)\n", "anchor"),
        ("2:a1b2c3|\tif ready:\n3:0f9e8d|\t\tgo(1)\n", "anchor"),
    ],
)
def test_pasted_line_prefixes_are_detected(old: str, style: str) -> None:
    new = old.replace("go(1)", "go(7)")
    err = refuse_replace(TABS, "old_string_not_found", old, new)
    info = err.details["line_prefixes"]
    assert info == {
        "style": style,
        "stripped_old_string": "\tif ready:\n\t\tgo(1)\n",
        "matches": 1,
        "stripped_new_string": "\tif ready:\n\t\tgo(7)\n",
    }
    after, _ = apply(TABS, info["stripped_old_string"], info["stripped_new_string"])
    assert after == TABS.replace(b"go(1)", b"go(7)")


def test_pasted_prefixes_and_wrong_indentation_together() -> None:
    err = refuse_replace(TABS, "old_string_not_found", "  2→    if ready:\n  3→        go(1)", "x")
    assert err.details["line_prefixes"]["matches"] == 0
    assert err.details["file_text"] == "\tif ready:\n\t\tgo(1)"
    assert "even without its pasted" in err.message


def test_double_escaped_newlines() -> None:
    err = refuse_replace(TABS, "old_string_not_found", "\\tif ready:\\n\\t\\tgo(1)", "x")
    assert err.details["escaped_newlines"] == {
        "unescaped_old_string": "\tif ready:\n\t\tgo(1)",
        "matches": 1,
    }


def test_edit_already_applied() -> None:
    err = refuse_replace(TABS, "old_string_not_found", "go(100)\n", "\t\tgo(2)\n\treturn 0\n")
    assert err.details["new_string_found_at_lines"] == [4]
    assert "already" in err.message


def test_closest_lines_with_similarity() -> None:
    err = refuse_replace(TABS, "old_string_not_found", "\tif readyy:\n\t\tgo(11)", "x")
    closest = err.details["closest"]
    assert closest[0]["start_line"] == 2
    assert closest[0]["end_line"] == 3
    assert closest[0]["file_text"] == "\tif ready:\n\t\tgo(1)"
    assert 0.8 < closest[0]["similarity"] < 1
    assert "lines 2–3" in err.message


def test_nothing_resembles() -> None:
    err = refuse_replace(TABS, "old_string_not_found", "SELECT * FROM users;", "x")
    assert err.details == {"closest": []}
    assert "nothing in the file resembles it" in err.message


def test_miss_suggestions_stay_cheap_on_a_big_file() -> None:
    body = "".join(f"    value_{n} = compute({n}, {n * 7})\n" for n in range(200_000))
    text = body + "    target = 1\n"
    with pytest.raises(WaymarkError) as info:
        replace_text(text, ReplaceEdit("\ttarget = 1\n", "\ttarget = 2\n"))
    assert info.value.details["start_line"] == 200_001
    with pytest.raises(WaymarkError) as info:
        replace_text(text, ReplaceEdit("value_17 = compute(17, 118)\nvalue_18", "x"))
    assert info.value.code == "old_string_not_found"
    assert info.value.details["closest"]


# --- warnings -------------------------------------------------------------------------------


def test_warns_when_the_final_newline_is_removed() -> None:
    _, result = apply(b"a\nb\n", "b\n", "c")
    assert result.warnings == [
        "The file no longer ends with a newline; if that was not intended, end new_string with one."
    ]


def test_warns_when_new_lines_indent_against_the_file_style() -> None:
    _, result = apply(TABS, "\treturn 0\n", "\treturn 0\n    # done\n")
    assert len(result.warnings) == 1
    assert "line(s) 6 with spaces" in result.warnings[0]
    assert "indents with tabs" in result.warnings[0]


# --- structure_edits ------------------------------------------------------------------------


def test_parse_edits_accepts_the_wire_shape() -> None:
    raw = [
        {"old_string": "a", "new_string": "b"},
        {"old_string": "c", "new_string": "", "expected_replacements": 2},
    ]
    assert structure_edits(raw) == [
        EditShape(old_string="a", new_string="b"),
        EditShape(old_string="c", new_string="", expected_replacements=2),
    ]


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        (None, "edits"),
        ([], "edits"),
        ({"old_string": "a"}, "edits"),
        (["a"], "edits[0]"),
        ([{"old_string": "a", "new_string": "b"}, {"new_string": "b"}], "edits[1].old_string"),
        ([{"old_string": "a", "new_string": 3}], "edits[0].new_string"),
        (
            [{"old_string": "a", "new_string": "b", "expected_replacements": 0}],
            "edits[0].expected_replacements",
        ),
        (
            [{"old_string": "a", "new_string": "b", "expected_replacements": True}],
            "edits[0].expected_replacements",
        ),
        (
            [{"old_string": "a", "new_string": "b", "expected_replacements": "2"}],
            "edits[0].expected_replacements",
        ),
        ([{"old_string": "a", "new_string": "b", "replace_all": True}], "edits[0].replace_all"),
        ([{"old_string": "a", "new_string": "b", "oldString": "a"}], "edits[0].oldString"),
    ],
)
def test_parse_edits_names_the_bad_field(raw: Any, field: str) -> None:
    with pytest.raises(WaymarkError) as info:
        structure_edits(raw)
    assert info.value.code == "invalid_params"
    assert info.value.details == {"field": field}
    assert f"`{field}`" in info.value.message


def test_replace_all_gets_a_hint() -> None:
    with pytest.raises(WaymarkError) as info:
        structure_edits([{"old_string": "a", "new_string": "b", "replace_all": True}])
    assert "expected_replacements" in info.value.message


# --- write ----------------------------------------------------------------------------------


def test_write_new_file_is_utf8_as_given() -> None:
    assert write_bytes(None, "größe\nx") == "größe\nx".encode()
    assert write_bytes(None, "a\r\nb\r\n") == b"a\r\nb\r\n"


@pytest.mark.parametrize(
    ("data", "content", "expected"),
    [
        (b"a\nb\n", "x\ny\n", b"x\ny\n"),
        (b"a\r\nb\r\n", "x\ny\n", b"x\r\ny\r\n"),
        (b"a\rb\r", "x\ny", b"x\ry"),
        (b"a\r\nb\r\n", "x\ry\r\n", b"x\ry\r\n"),  # terminators spelled out are kept
        (b"a\nb\n", "x\r\ny\r\n", b"x\r\ny\r\n"),
        (codecs.BOM_UTF8 + b"a\r\n", "\u00e9\n", codecs.BOM_UTF8 + "\u00e9\r\n".encode()),
        (
            codecs.BOM_UTF16_LE + "a\r\nb\r\n".encode("utf-16-le"),
            "\u00fc\nz\n",
            codecs.BOM_UTF16_LE + "\u00fc\r\nz\r\n".encode("utf-16-le"),
        ),
        (
            codecs.BOM_UTF16_BE + "a\nb".encode("utf-16-be"),
            "c\nd",
            codecs.BOM_UTF16_BE + "c\nd".encode("utf-16-be"),
        ),
        (b"", "x\ny\n", b"x\ny\n"),
    ],
)
def test_write_over_existing_keeps_encoding_bom_and_eol(
    data: bytes, content: str, expected: bytes
) -> None:
    assert write_bytes(TextFile.decode(data), content) == expected


def test_write_round_trips_undecodable_bytes() -> None:
    tf = TextFile.decode(b"caf\xe9\n")
    assert write_bytes(tf, tf.text + "more\n") == b"caf\xe9\nmore\n"


def test_write_refuses_a_lone_surrogate() -> None:
    err = refused(b"a\n", "invalid_params", lambda _: write_bytes(None, "ok\ud800"))
    assert err.details == {"field": "content", "offset": 2}

"""Line hashes, adaptive display anchors, quality classes and the rendered read format."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from waymark.engine.anchors import (
    AnchoredLine,
    LineIndex,
    annotate,
    annotate_range,
    context_hash,
    line_hash,
    render,
)
from waymark.engine.text import TextFile

# Two different lines whose hashes share the 6-char prefix 0fbd27 (found by brute force).
COLLIDING = ("value = 919", "value = 1993")


def anchors(text: str) -> list[AnchoredLine]:
    return annotate(TextFile.from_text(text))


def resolve(index: LineIndex, display: str) -> list[int]:
    token, _, rank = display.partition(".")
    found = index.candidates(token)
    return [found[int(rank) - 1]] if rank else found


def test_line_hash_is_xxh3_64_of_utf8_lowercase_hex() -> None:
    assert line_hash("") == "2d06800538d394c2"
    assert re.fullmatch(r"[0-9a-f]{16}", line_hash("def f():"))
    assert line_hash("é") == line_hash("\udcc3\udca9")  # surrogateescape gives the same bytes


def test_unique_lines_show_six_chars() -> None:
    lines = anchors("def f():\n    return 1\n")
    assert [a.hash for a in lines] == [line_hash("def f():")[:6], line_hash("    return 1")[:6]]
    assert [a.line for a in lines] == [1, 2]
    assert [a.quality for a in lines] == ["high", "high"]


def test_prefix_collision_with_a_different_line_shows_eight_chars() -> None:
    a, b = COLLIDING
    assert line_hash(a)[:6] == line_hash(b)[:6]
    lines = anchors(f"{a}\n{b}\nother = 1\n")
    assert [x.hash for x in lines] == [
        line_hash(a)[:8],
        line_hash(b)[:8],
        line_hash("other = 1")[:6],
    ]


def test_repeated_lines_show_their_context_hash() -> None:
    lines = anchors("a = 1\nx.append(y, z)\nb = 2\nx.append(y, z)\nc = 3\n")
    assert lines[1].hash == context_hash("a = 1", "x.append(y, z)", "b = 2")[:6]
    assert lines[3].hash == context_hash("b = 2", "x.append(y, z)", "c = 3")[:6]
    assert lines[1].quality == lines[3].quality == "medium"


def test_context_skips_blank_lines_and_file_edges_are_empty() -> None:
    lines = anchors("}\n\n  \nmid = 1\n}\n")
    assert lines[0].hash == context_hash("", "}", "mid = 1")[:6]
    assert lines[4].hash == context_hash("mid = 1", "}", "")[:6]


def test_identical_contexts_get_an_occurrence_suffix() -> None:
    lines = anchors("a = 1\n\n\n\nb = 2\n")
    ctx = context_hash("a = 1", "", "b = 2")[:6]
    assert [x.hash for x in lines[1:4]] == [f"{ctx}.1", f"{ctx}.2", f"{ctx}.3"]


def test_quality_classes() -> None:
    text = (
        "def f(x):\n"  # high
        "\n"  # blank: low
        "    });\n"  # punctuation only: low
        "    return None\n"  # repeated, two words: low
        "    return None\n"
        "    display: flex;\n"  # repeated boilerplate: low
        "    display: flex;\n"
        "    self.items.append(value)\n"  # repeated, more words: medium
        "    self.items.append(value)\n"
        "    pass\n"  # unique: high
    )
    assert [a.quality for a in anchors(text)] == [
        "high",
        "low",
        "low",
        "low",
        "low",
        "low",
        "low",
        "medium",
        "medium",
        "high",
    ]


def test_render_format_marks_low_quality_lines() -> None:
    lines = anchors("def f():\n}\n")
    h1, h2 = lines[0].hash, lines[1].hash
    assert render(lines) == f"1#{h1}|def f():\n2#{h2}~|}}\n"
    assert render([]) == ""
    assert lines[0].ref == f"1#{h1}"
    assert lines[0]._asdict() == {"line": 1, "text": "def f():", "hash": h1, "quality": "high"}


def test_render_keeps_the_text_verbatim_and_lines_split_like_lsp() -> None:
    lines = anchors("a\u2028b\x0cc\r\nd|e\n")
    assert [a.text for a in lines] == ["a\u2028b\x0cc", "d|e"]
    assert render(lines).endswith(f"2#{lines[1].hash}|d|e\n")


def test_empty_file_has_no_lines() -> None:
    assert anchors("") == []


_POOL = ["", "", "  ", "}", "},", "pass", "x = 1", "return None", "value = 919", "value = 1993"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_POOL), st.text(max_size=6)), max_size=40))
def test_every_displayed_anchor_resolves_to_exactly_its_line(lines: list[str]) -> None:
    tf = TextFile.from_text("".join(f"{line}\n" for line in lines))
    index = LineIndex(tf.lines)
    for a in annotate(tf):
        assert resolve(index, a.hash) == [a.line - 1]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.one_of(st.sampled_from(_POOL), st.text(max_size=6)), max_size=40),
    st.integers(0, 45),
    st.integers(0, 45),
)
def test_a_page_shows_the_anchors_and_qualities_of_the_whole_file(
    lines: list[str], start: int, size: int
) -> None:
    tf = TextFile.from_text("".join(f"{line}\n" for line in lines))
    assert annotate_range(tf, start, start + size) == annotate(tf)[start : start + size]


def test_a_page_of_a_file_with_a_prefix_collision_outside_it_shows_eight_chars() -> None:
    # The line that shares the page's 6-char prefix is not on the page, yet decides it.
    tf = TextFile.from_text(f"{COLLIDING[0]}\nx = 1\n{COLLIDING[1]}\n")
    assert [a.hash for a in annotate_range(tf, 0, 1)] == [line_hash(COLLIDING[0])[:8]]

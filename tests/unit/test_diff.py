"""Diffs people read: unified diffs apply, counts are exact, opcodes rebuild the target.

The LSP edits built from the same opcodes are tested with the LSP door (test_lsp_edits.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from unidiff import PatchSet

from waymark.engine.diff import common_ends, diff_file
from waymark.engine.text import TextFile, split_lines

PIECES = ["a", "b", "é", "😀", "\n", "x\n", "y\r\n", "\r", "\r\n", "\u2028"]
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


def unified_diff(display: str, before: str | None, after: str | None) -> str:
    def decode(text: str | None) -> TextFile | None:
        return None if text is None else TextFile.from_text(text)

    return diff_file(display, decode(before), decode(after)).text


def _lines(text: str) -> list[str]:
    lines, eols = split_lines(text)
    return [line + eol for line, eol in zip(lines, eols, strict=True)]


def _apply_unified(old: list[str], diff: str) -> list[str]:
    """Apply with unidiff's parser; lines compare without terminators (unidiff drops \\r)."""
    if not diff:
        return old
    out: list[str] = []
    pos = 0
    for hunk in PatchSet(diff.replace("\r", "\x00"))[0]:
        start = hunk.source_start - 1 if hunk.source_length else hunk.source_start
        out.extend(old[pos:start])
        pos = start
        for line in hunk:
            value = line.value.replace("\x00", "\r")
            if line.is_context or line.is_removed:
                assert old[pos].rstrip("\r\n") == value.rstrip("\r\n")
                pos += 1
            if line.is_context or line.is_added:
                out.append(value)
    out.extend(old[pos:])
    return out


@settings(max_examples=400, deadline=None)
@given(texts, texts)
def test_unified_diff_applies(before: str, after: str) -> None:
    diff = unified_diff("f", before, after)
    assert (diff == "") == (_lines(before) == _lines(after))
    got = [line.rstrip("\r\n") for line in _apply_unified(_lines(before), diff)]
    assert got == [line.rstrip("\r\n") for line in _lines(after)]


def test_an_empty_file_made_or_removed_is_named_by_its_headers() -> None:
    made = diff_file("e.txt", None, TextFile.from_text(""))
    removed = diff_file("e.txt", TextFile.from_text(""), None)
    assert (made.text, made.stats.insertions, made.stats.deletions) == (
        "--- /dev/null\n+++ b/e.txt\n",
        0,
        0,
    )
    assert removed.text == "--- a/e.txt\n+++ /dev/null\n"
    assert unified_diff("e.txt", "", "") == ""


def test_missing_final_newline_is_marked_and_counts_are_exact() -> None:
    diff = unified_diff("a.txt", "one\ntwo", "one\nTWO")
    assert diff == (
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n"
        "\\ No newline at end of file\n+TWO\n\\ No newline at end of file\n"
    )
    stats = diff_file(
        "a.txt", TextFile.from_text("a\nb\nc\n"), TextFile.from_text("a\nB\nc\nd\n")
    ).stats
    assert (stats.insertions, stats.deletions) == (2, 1)
    assert unified_diff("n.txt", None, "x\n") == "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+x\n"


def test_a_large_scattered_change_of_repeated_lines_still_applies() -> None:
    # 12,000 lines of blanks and braces with a change every 20 lines: past the size where the
    # smallest diff is sought (quadratic on such lines), the diff must still be exact.
    pieces = ["\n", "}\n", "    pass\n", "{\n"]
    before = [pieces[(i * 7) % 4] for i in range(12_000)]
    after = list(before)
    for i in range(11_990, 0, -20):
        if i % 60 == 0:
            after.insert(i, "new\n")
        elif i % 60 == 20:
            del after[i]
        else:
            after[i] = "changed\n"
    diff = unified_diff("f", "".join(before), "".join(after))
    assert _apply_unified(before, diff) == after


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "c", "d", "e", ""]), max_size=60),
    st.lists(st.sampled_from(["a", "b", "c", "d", "e", "f", ""]), max_size=60),
)
def test_opcodes_of_the_large_region_path_rebuild_the_target(
    before: list[str], after: list[str]
) -> None:
    from waymark.engine import diff

    # The path large regions take (cut at unique lines, then diffed piecewise), on small input.
    old_limit = diff._MINIMAL_LINES
    diff._MINIMAL_LINES = 3
    try:
        ops = diff.opcodes(before, after)
    finally:
        diff._MINIMAL_LINES = old_limit
    rebuilt: list[str] = []
    i = j = 0
    for tag, i1, i2, j1, j2 in ops:
        assert (i1, j1) == (i, j) and tag in ("equal", "replace", "delete", "insert")
        if tag == "equal":
            assert before[i1:i2] == after[j1:j2]
        rebuilt.extend(after[j1:j2])
        i, j = i2, j2
    assert (i, j) == (len(before), len(after)) and rebuilt == after


def _common_ends_one_by_one(before: Sequence[Any], after: Sequence[Any]) -> tuple[int, int]:
    limit = min(len(before), len(after))
    head = 0
    while head < limit and before[head] == after[head]:
        head += 1
    tail = 0
    while tail < limit - head and before[-1 - tail] == after[-1 - tail]:
        tail += 1
    return head, tail


# Long runs of one item around a few others: common ends of every length near the block size.
runs = st.lists(
    st.tuples(st.sampled_from(["a\n", "b\n", "a"]), st.integers(0, 140)), max_size=4
).map(lambda parts: [item for item, count in parts for _ in range(count)])


@settings(max_examples=400)
@given(runs, runs, runs)
def test_common_ends_are_those_counted_one_by_one(
    head: list[str], middle: list[str], tail: list[str]
) -> None:
    for before, after in ((head + tail, head + middle + tail), (head + middle, middle + tail)):
        assert common_ends(before, after) == _common_ends_one_by_one(before, after)
        text_before, text_after = "".join(before), "".join(after)
        assert common_ends(text_before, text_after) == _common_ends_one_by_one(
            text_before, text_after
        )

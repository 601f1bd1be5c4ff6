"""The anchored plan's shortcuts give what the long way gives.

A file whose lines all end alike is spliced without reading its terminators
(engine/edits/splice.py), a new file its maker knows to end every line in LF or CRLF skips
the look for lines that would run together (engine/edits/line_ends.py), and the diff of one
known stretch takes its opcodes without matching (engine/diff_known.py): each is compared here
with the long way on files with every kind of terminator, a lone CR and a missing final one
included.
"""

from __future__ import annotations

from typing import Any
from unittest.mock import patch

from helpers_splices import planned_splices
from hypothesis import given, settings
from hypothesis import strategies as st

from waymark.engine.anchors import hash_lines
from waymark.engine.diff import diff_file
from waymark.engine.edits.line_ends import check_rereads, ends_apart, kept_apart
from waymark.engine.edits.splice import Splice, apply_splices, merged_changes, spliced_apart
from waymark.engine.text import TextFile

_ENDS = ("\n", "\r\n", "\r")


def _one_by_one(tf: TextFile, splices: list[Splice], eol: str) -> TextFile:
    expected = tf
    for sp in sorted(splices, key=lambda s: (s.start, s.end > s.start), reverse=True):
        expected = expected.splice(sp.start, sp.end, sp.lines, eol=eol)
    return expected


def _counted_end(tf: TextFile) -> str | None:
    return TextFile(tf.lines, tf.eols).same_end


@settings(max_examples=500, deadline=None)
@given(
    st.data(),
    st.lists(st.sampled_from(["x", "y", ""]), min_size=1, max_size=12),
    st.sampled_from(_ENDS),
    st.booleans(),
)
def test_a_file_ending_alike_splices_as_one_by_one(
    data: st.DataObject, lines: list[str], end: str, final: bool
) -> None:
    tf = TextFile(tuple(lines), tuple([end] * (len(lines) - 1) + [end if final else ""]))
    eol = data.draw(st.sampled_from((end, *_ENDS)))
    splices = data.draw(planned_splices(len(lines)))
    expected = _one_by_one(tf, splices, eol)
    after, hashes = apply_splices(tf, hash_lines(tf.lines), splices, eol)
    assert (after.lines, after.eols) == (expected.lines, expected.eols)
    assert hashes == hash_lines(expected.lines)
    # What the new file is told of its ends is what counting them finds.
    assert after.told_end in (None, _counted_end(after))


@settings(max_examples=1000, deadline=None)
@given(
    st.data(),
    st.lists(
        st.tuples(st.sampled_from(["x", ""]), st.sampled_from(_ENDS)), min_size=1, max_size=10
    ),
    st.sampled_from(("", *_ENDS)),
)
def test_ends_told_apart_are_what_the_look_finds(
    data: st.DataObject, rows: list[tuple[str, str]], last: str
) -> None:
    lines = [text for text, _ in rows]
    eols = [end for _, end in rows[:-1]] + [last]
    tf = TextFile(tuple(lines), tuple(eols))
    eol = data.draw(st.sampled_from(_ENDS))
    splices = data.draw(planned_splices(len(lines)))
    after, _, changes = spliced_apart(tf, hash_lines(tf.lines), splices, eol)
    # The long way: the splices, every new line kept apart from its neighbours, then the look.
    plain, _ = apply_splices(tf, hash_lines(tf.lines), splices, eol)
    eols_kept: list[Any] = list(plain.eols)
    for i, fixed in kept_apart(plain.lines, plain.eols, merged_changes(splices), eol).items():
        eols_kept[i] = fixed
    assert (after.lines, after.eols) == (plain.lines, tuple(eols_kept))
    if ends_apart(after):
        assert _counted_end(after) in ("\n", "\r\n")
        assert kept_apart(after.lines, after.eols, changes, eol) == {}
        check_rereads(after.lines, after.eols, changes)  # raises nothing


@settings(max_examples=1000, deadline=None)
@given(
    st.data(),
    st.lists(st.sampled_from(["x", "y", "z", ""]), max_size=12),
    st.sampled_from(_ENDS),
)
def test_an_edits_known_stretch_diffs_as_the_whole_files_do(
    data: st.DataObject, lines: list[str], end: str
) -> None:
    n = len(lines)
    start = data.draw(st.integers(0, n))
    stop = data.draw(st.integers(start, n))
    new = data.draw(st.lists(st.sampled_from(["x", "w", "v", ""]), max_size=4))
    before = TextFile(tuple(lines), (end,) * n)
    after_lines = (*lines[:start], *new, *lines[stop:])
    after = TextFile(after_lines, (end,) * len(after_lines))
    # What the planner knows: at most the lines above and below the stretch it replaced.
    known = (data.draw(st.integers(0, start)), data.draw(st.integers(0, n - stop)))
    got = diff_file("f.txt", before, after, known=known)
    with patch("waymark.engine.diff.one_stretch", lambda *_: None):
        assert got == diff_file("f.txt", before, after, known=known)
        assert got == diff_file("f.txt", before, after)

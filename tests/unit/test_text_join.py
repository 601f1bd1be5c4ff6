"""A file's text is each line followed by its own end, whatever the shortcut taken to join
them (every edit's bytes are encoded from it)."""

from __future__ import annotations

import operator

from hypothesis import given, settings
from hypothesis import strategies as st

from waymark.engine.text import TextFile

ENDS = ["\n", "\r\n", "\r", ""]
lines = st.lists(st.sampled_from(["", "a", "é b", "\u2028"]), max_size=12)


@settings(max_examples=800)
@given(lines, st.lists(st.sampled_from(ENDS), max_size=12), st.sampled_from(ENDS))
def test_text_is_each_line_followed_by_its_end(
    texts: list[str], ends: list[str], common: str
) -> None:
    # Mostly one end for every line (the shortcut's case), with the odd other end mixed in.
    eols = [ends[i] if i < len(ends) and ends[i] != common else common for i in range(len(texts))]
    for tail_end in ENDS:
        tf = TextFile(tuple(texts), tuple([*eols[:-1], tail_end] if eols else []))
        assert tf.text == "".join(map(operator.add, tf.lines, tf.eols))
        assert tf.text == "".join(tf.lines_with_ends())


@given(lines, st.sampled_from(ENDS))
def test_text_of_one_end_everywhere(texts: list[str], end: str) -> None:
    tf = TextFile(tuple(texts), (end,) * len(texts))
    assert tf.text == "".join(line + end for line in texts)

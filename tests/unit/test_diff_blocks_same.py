"""``opcodes`` and ``diff_file`` give, byte for byte, what they gave before runs of equal
lines were grown across anchors (that implementation, matching every piece between anchors
in turn and joining every line to its end, is kept here as the reference)."""

from __future__ import annotations

import bisect
import difflib
from collections.abc import Sequence
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from waymark.engine import diff
from waymark.engine.diff import Block, common_ends, diff_file
from waymark.engine.linecount import matching_blocks
from waymark.engine.text import TextFile


def _match(
    a: Sequence[str],
    b: Sequence[str],
    alo: int,
    ahi: int,
    blo: int,
    bhi: int,
    out: list[Block],
    depth: int,
) -> None:
    """Append the equal runs of ``a[alo:ahi]`` and ``b[blo:bhi]``, in order, to ``out``."""
    head, tail = common_ends(a[alo:ahi], b[blo:bhi])
    if head:
        out.append((alo, blo, head))
    alo, blo, ahi, bhi = alo + head, blo + head, ahi - tail, bhi - tail
    if alo < ahi and blo < bhi:
        if max(ahi - alo, bhi - blo) <= diff._MINIMAL_LINES:
            matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
            out.extend((alo + i, blo + j, n) for i, j, n in matcher.get_matching_blocks() if n)
        else:
            # Each level cuts at what is unique within it; a few levels are plenty.
            anchors = _anchors(a, b, alo, ahi, blo, bhi) if depth < diff._MAX_DEPTH else []
            if anchors:
                for i, j in anchors:
                    _match(a, b, alo, i, blo, j, out, depth + 1)
                    out.append((i, j, 1))
                    alo, blo = i + 1, j + 1
                _match(a, b, alo, ahi, blo, bhi, out, depth + 1)
            else:
                # Nothing to cut at: difflib with its junk heuristic stays fast.
                matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=True)
                out.extend((alo + i, blo + j, n) for i, j, n in matcher.get_matching_blocks() if n)
    if tail:
        out.append((ahi, bhi, tail))


def _anchors(
    a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int
) -> list[tuple[int, int]]:
    """The longest in-order chain of lines that occur once in each range; failing those, of
    the k-th occurrences of lines that occur equally often in each (a line replaced elsewhere
    leaves its count alone, so repeated lines still line up)."""
    in_b: dict[str, list[int]] = {}
    for j in range(blo, bhi):
        in_b.setdefault(b[j], []).append(j)
    in_a: dict[str, list[int]] = {}
    for i in range(alo, ahi):
        in_a.setdefault(a[i], []).append(i)
    pairs = [
        (i, in_b[line][0])
        for line, (i, *more) in in_a.items()
        if not more and len(in_b.get(line, ())) == 1
    ]
    if not pairs:
        pairs = [
            pair
            for line, spots in in_a.items()
            if len(in_b.get(line, ())) == len(spots)
            for pair in zip(spots, in_b[line], strict=True)
        ]
    pairs.sort()
    # Longest increasing subsequence of the after-positions (patience sorting).
    tops: list[int] = []  # after-position ending the best chain of each length
    ends: list[int] = []  # index into pairs of that chain's last pair
    back: list[int] = [-1] * len(pairs)
    for k, (_, j) in enumerate(pairs):
        n = bisect.bisect_left(tops, j)
        if n == len(tops):
            tops.append(j)
            ends.append(k)
        else:
            tops[n] = j
            ends[n] = k
        back[k] = ends[n - 1] if n else -1
    chain: list[tuple[int, int]] = []
    k = ends[-1] if ends else -1
    while k >= 0:
        chain.append(pairs[k])
        k = back[k]
    return chain[::-1]


def _reference_opcodes(before: Sequence[str], after: Sequence[str]) -> list[diff.Opcode]:
    blocks: list[Block] = []
    _match(before, after, 0, len(before), 0, len(after), blocks, 0)
    return diff._opcodes(blocks, len(before), len(after))


class _Reference:
    """While entered, ``diff_file`` runs as it did: the reference matching, every line
    joined to its end."""

    def __enter__(self) -> None:
        self.saved = diff._match, diff._uniform
        diff._match = _match
        diff._uniform = lambda before, after: False

    def __exit__(self, *exc: object) -> None:
        diff._match, diff._uniform = self.saved


# Few distinct lines, so that most repeat (blank lines, braces) and some occur once.
line = st.one_of(st.sampled_from(["", "}", "a", "b"]), st.integers(0, 40).map(lambda n: f"u{n}"))
edit = st.tuples(
    st.sampled_from(["insert", "delete", "replace", "move"]),
    st.integers(0, 10_000),
    st.integers(1, 6),
    line,
)


def _edited(before: list[str], edits: list[tuple[str, int, int, str]]) -> list[str]:
    after = list(before)
    for kind, where, size, new in edits:
        at = where % (len(after) + 1)
        if kind == "insert":
            after[at:at] = [new] * size
        elif kind == "delete":
            del after[at : at + size]
        elif kind == "replace":
            after[at : at + size] = [new]
        else:
            moved = after[at : at + size]
            del after[at : at + size]
            to = (where // 7) % (len(after) + 1)
            after[to:to] = moved
    return after


limits = st.sampled_from([(3, 8), (3, 1), (6, 2), (5_000, 8)])


def _same_opcodes(before: list[str], after: list[str], minimal: int, depth: int) -> None:
    saved = diff._MINIMAL_LINES, diff._MAX_DEPTH
    diff._MINIMAL_LINES, diff._MAX_DEPTH = minimal, depth
    try:
        assert diff.opcodes(before, after) == _reference_opcodes(before, after)
    finally:
        diff._MINIMAL_LINES, diff._MAX_DEPTH = saved


# Some lists with no line occurring once: then anchors are the k-th occurrences of lines.
lines = st.one_of(
    st.lists(line, max_size=80), st.lists(st.sampled_from(["", "}", "a"]), max_size=80)
)


@settings(max_examples=800)
@given(lines, st.lists(edit, max_size=8), limits)
def test_opcodes_of_edited_lines_are_as_before(
    before: list[str], edits: list[tuple[str, int, int, str]], limit: tuple[int, int]
) -> None:
    _same_opcodes(before, _edited(before, edits), *limit)


def _pairs(blocks: Sequence[tuple[int, int, int]]) -> set[tuple[int, int]]:
    return {(i + k, j + k) for i, j, size in blocks for k in range(size)}


@settings(max_examples=500)
@given(lines, st.lists(edit, max_size=8))
def test_matching_blocks_pair_the_lines_difflib_pairs(
    before: list[str], edits: list[tuple[str, int, int, str]]
) -> None:
    after = _edited(before, edits)
    blocks = matching_blocks(before, after)
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    assert _pairs(blocks) == _pairs(matcher.get_matching_blocks())
    assert all(i + n <= i2 and j + n <= j2 for (i, j, n), (i2, j2, _) in pairwise(blocks))


@settings(max_examples=300)
@given(st.lists(line, max_size=60), st.lists(line, max_size=60), limits)
def test_opcodes_of_unrelated_lines_are_as_before(
    before: list[str], after: list[str], limit: tuple[int, int]
) -> None:
    _same_opcodes(before, after, *limit)


@settings(max_examples=200)
@given(
    st.integers(0, 120),
    st.lists(edit, max_size=6),
    st.integers(0, 300),
    st.integers(0, 300),
    limits,
)
def test_opcodes_of_unique_lines_with_long_equal_ends_are_as_before(
    size: int, edits: list[tuple[str, int, int, str]], head: int, tail: int, limit: tuple[int, int]
) -> None:
    middle = [f"line {n}" for n in range(size)]
    ends = ["same"] * head, [f"tail {n}" for n in range(tail)]
    before = ends[0] + middle + ends[1]
    after = ends[0] + _edited(middle, edits) + ends[1]
    _same_opcodes(before, after, *limit)


@pytest.mark.parametrize("minimal", [3, 5_000])
def test_opcodes_of_one_repeated_line_are_as_before(minimal: int) -> None:
    for old, new in [(50, 53), (53, 50), (0, 9), (9, 0), (40, 40)]:
        _same_opcodes(["x"] * old, ["x"] * new, minimal, 8)
        _same_opcodes(["x"] * old, ["x"] * 20 + ["y"] + ["x"] * new, minimal, 8)


def test_opcodes_of_a_large_scattered_change_are_as_before() -> None:
    # The sizes diff.py cuts at, at their own scale: unique lines between blank lines and
    # braces, one in 21 replaced, and a block moved.
    before = ["" if n % 3 == 0 else "}" if n % 3 == 1 else f"v{n}" for n in range(30_000)]
    after = list(before)
    for n in range(2, 30_000, 21):
        after[n] = f"edited {n}"
    after[100:100] = after[20_000:20_300]
    del after[20_300:20_600]
    _same_opcodes(before, after, diff._MINIMAL_LINES, diff._MAX_DEPTH)


ends = st.sampled_from(["\n", "\r\n", "\r", ""])
text = st.lists(st.tuples(line, ends), max_size=40).map(
    lambda parts: "".join(
        body + (end or "\n") if n < len(parts) - 1 else body + end
        for n, (body, end) in enumerate(parts)
    )
)


@settings(max_examples=400)
@given(text, st.lists(edit, max_size=6), st.booleans(), limits)
def test_diff_file_is_as_before(
    old: str, edits: list[tuple[str, int, int, str]], crlf: bool, limit: tuple[int, int]
) -> None:
    before = TextFile.from_text(old)
    lines = _edited(list(before.lines), edits)
    eol = "\r\n" if crlf else "\n"
    after = TextFile.from_text("".join(body + eol for body in lines))
    alike = TextFile.from_text("".join(body + eol for body in before.lines))
    saved = diff._MINIMAL_LINES, diff._MAX_DEPTH
    diff._MINIMAL_LINES, diff._MAX_DEPTH = limit
    try:
        for pair in [
            (before, after),
            (alike, after),
            (after, alike),
            (before, None),
            (None, after),
        ]:
            with _Reference():
                expected = diff_file("f.txt", *pair)
            assert diff_file("f.txt", *pair) == expected
    finally:
        diff._MINIMAL_LINES, diff._MAX_DEPTH = saved


def test_opcodes_of_a_tuple_and_a_list_are_those_of_two_lists() -> None:
    # Moved: the longer run must win, and runs are grown by comparing slices.
    before = ["x", "a", "b", "c"]
    after = ["a", "b", "c", "x"]
    assert diff.opcodes(tuple(before), after) == diff.opcodes(before, after)
    assert diff.opcodes(before, tuple(after)) == diff.opcodes(before, after)

"""diffStats' line counts: every count equals the one diffStats made before counting over runs
of equal lines (kept here as the oracle), and equals ``git diff --numstat`` where the two
agree by contract (LF files ending in a newline, distinct lines, edits without moves)."""

from __future__ import annotations

import codecs
import difflib
import os
import subprocess
import tempfile
from collections import Counter
from pathlib import Path
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from waymark.engine.diff import common_ends
from waymark.engine.errors import BinaryFile
from waymark.engine.linecount import matched
from waymark.engine.text import TextFile
from waymark.store.history import stats
from waymark.store.history.stats import LineCounts, count_lines


def reference_counts(old: bytes | None, new: bytes | None, exact: int = 20_000) -> LineCounts:
    """diffStats' count as it was: decode, trim the common ends, difflib on the rest."""

    def lines(data: bytes) -> list[str] | None:
        try:
            return list(TextFile.decode(data).lines)
        except BinaryFile:
            return None

    before = [] if old is None else lines(old)
    after = [] if new is None else lines(new)
    if before is None or after is None:
        return LineCounts(0, 0, binary=True)
    head, tail = common_ends(before, after)
    a, b = before[head : len(before) - tail], after[head : len(after) - tail]
    if not a or not b or len(a) + len(b) > exact:
        old_c, new_c = Counter(a), Counter(b)
        return LineCounts(sum((new_c - old_c).values()), sum((old_c - new_c).values()))
    inserted = deleted = 0
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            deleted += i2 - i1
            inserted += j2 - j1
    return LineCounts(inserted, deleted)


# Lines that repeat (blank, braces), that differ only past ASCII, that a decoder treats
# specially (U+2028 is not a line break for LSP; a lone 0xE9 is not UTF-8).
ASCII_LINES = [b"", b"}", b"    pass", b"x = 1", b"\t", b"a b"]
OTHER_LINES = ["é".encode(), "\u2028".encode(), b"\xe9t\xe9", "日本".encode()]
EOLS = [b"\n", b"\r\n", b"\r"]
PREFIXES = [b"", b"", b"", codecs.BOM_UTF8, b"\x00"]


@st.composite
def edited(draw: st.DrawFn, distinct: bool = False) -> tuple[list[bytes], list[bytes]]:
    """Lines, and those lines after a few edits (some joining lines or moving a block when
    not ``distinct``)."""
    pool = [] if distinct else ASCII_LINES + (OTHER_LINES if draw(st.booleans()) else [])
    rnd = draw(st.randoms(use_true_random=False))
    old = draw(st.lists(st.sampled_from(pool), max_size=40)) if pool else []
    # Many distinct lines around the repeated ones, as in source files.
    for n in range(draw(st.sampled_from([0, 5, 30, 400, 1500]))):
        old.insert(rnd.randint(0, len(old)), b"line %d" % n)
    new = list(old)
    fresh = iter(b"new %d" % n for n in range(100))
    for op, where, line in draw(
        st.lists(
            st.tuples(
                st.integers(0, 2 if distinct else 4),
                st.integers(0, 10**6),
                st.sampled_from(pool or [b""]),
            ),
            max_size=8,
        )
    ):
        at = where % (len(new) + 1)
        if op == 0:
            new.insert(at, next(fresh) if distinct else line)
        elif op == 1 and at < len(new):
            del new[at]
        elif op == 2 and at < len(new):
            new[at] = next(fresh) if distinct else line
        elif op == 3 and at + 1 < len(new):
            new[at : at + 2] = [new[at] + new[at + 1]]  # two lines joined
        elif op == 4:
            block = new[at : at + 1 + where % 7]
            del new[at : at + len(block)]
            new[where % (len(new) + 1) : where % (len(new) + 1)] = block
    return old, new


@st.composite
def file_pairs(draw: st.DrawFn) -> tuple[bytes | None, bytes | None]:
    old, new = draw(edited())

    rnd = draw(st.randoms(use_true_random=False))

    def render(lines: list[bytes]) -> bytes:
        eols = draw(st.sampled_from([[b"\n"], [b"\r\n"], EOLS]))
        data = b"".join(line + rnd.choice(eols) for line in lines)
        if data and draw(st.booleans()):
            data = data.rstrip(b"\r\n")  # no final newline
        return draw(st.sampled_from(PREFIXES)) + data

    absent = draw(st.sampled_from([None, None, None, None, "old", "new"]))
    return (
        None if absent == "old" else render(old),
        None if absent == "new" else render(new),
    )


@settings(max_examples=400, deadline=None)
@given(file_pairs())
def test_counts_are_those_difflib_made(pair: tuple[bytes | None, bytes | None]) -> None:
    assert count_lines(*pair) == reference_counts(*pair)


def test_counts_with_a_change_at_every_line_of_long_equal_ends() -> None:
    # Equal bytes at both ends are trimmed before any line is split: a change at any line,
    # joining or splitting lines or swapping their ends, must leave the counts as they were.
    lines = [b"%d%s" % (n, b"}" * (n % 5)) for n in range(150)]

    def variants(k: int) -> list[list[bytes]]:
        ends = [b"\n"] * len(lines)
        swapped = list(ends)
        swapped[k] = b"\r\n" if k % 2 else b"\r"
        joined = list(ends)
        joined[k] = b""
        split = [*lines[:k], lines[k][:1], lines[k][1:], *lines[k + 1 :]]
        return [
            [line + end for line, end in zip(lines, swapped, strict=True)],
            [line + end for line, end in zip(lines, joined, strict=True)],
            [line + b"\n" for line in split],
            [line + b"\n" for line in [*lines[:k], *lines[k + 1 :]]],
        ]

    old = b"".join(line + b"\n" for line in lines)
    for k in range(len(lines)):
        for new in map(b"".join, variants(k)):
            for pair in ((old, new), (new, old), (old.rstrip(b"\n"), new)):
                assert count_lines(*pair) == reference_counts(*pair), (k, pair)


def test_a_file_saved_in_another_encoding_counts_its_decoded_lines() -> None:
    # The same text in UTF-8 and in Windows-1252: equal lines once decoded, never as bytes.
    lines = [
        "Le café est très bon à côté de la rivière, déjà prêt.",
        "Où est la fenêtre? Là-bas, près du château.",
        "Voilà une phrase ordinaire.",
    ] * 6
    old = "".join(line + "\n" for line in lines)
    new = old.replace(lines[1], "Une ligne changée.", 1)
    for pair in ((old.encode(), new.encode("cp1252")), (old.encode("cp1252"), new.encode())):
        assert count_lines(*pair) == reference_counts(*pair) == LineCounts(1, 1)


@settings(max_examples=200, deadline=None)
@given(file_pairs(), st.integers(1, 40))
def test_counts_past_the_exact_limit_are_the_same_multisets(
    pair: tuple[bytes | None, bytes | None], exact: int
) -> None:
    with mock.patch.object(stats, "_EXACT_LINES", exact):
        assert count_lines(*pair) == reference_counts(*pair, exact=exact)


def _difflib_matched(a: list[int], b: list[int]) -> int:
    blocks = difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks()
    return sum(size for _, _, size in blocks)


@settings(max_examples=1000, deadline=None)
@given(
    st.lists(st.integers(0, 6), max_size=40),
    st.lists(st.integers(0, 6), max_size=40),
    st.integers(2, 1000),
)
def test_matched_lines_are_difflibs(a: list[int], b: list[int], alphabet: int) -> None:
    # Small alphabets make repeated lines, and runs of them, on both sides.
    a = [n % alphabet for n in a]
    b = [n % alphabet for n in b]
    assert matched(a, b) == _difflib_matched(a, b)


@settings(max_examples=1000, deadline=None)
@given(
    st.lists(st.integers(0, 40), unique=True, max_size=30),
    st.lists(st.integers(0, 40), unique=True, max_size=30),
)
def test_matched_lines_of_distinct_lines_in_any_order_are_difflibs(
    a: list[int], b: list[int]
) -> None:
    # Lines moved around: runs cross, and which of two equally long ones comes first matters.
    assert matched(a, b) == _difflib_matched(a, b)


GIT = ["git", "-c", "core.autocrlf=false", "-c", "diff.algorithm=myers", "-c", "user.name=t"]


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(
        [*GIT, "-c", "user.email=t@example.com", *args],
        cwd=repo,
        env=env,
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done.stdout


@settings(max_examples=15, deadline=None)
@given(st.lists(edited(distinct=True), min_size=1, max_size=12))
def test_counts_agree_with_git_numstat(pairs: list[tuple[list[bytes], list[bytes]]]) -> None:
    # difflib pairs every line an edit keeps when lines are distinct and none moved, so its
    # counts are the smallest diff's, which git's are.
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp)
        _git(repo, "init", "-q")
        texts = {
            f"f{n}.txt": [b"".join(x + b"\n" for x in side) for side in pair]
            for n, pair in enumerate(pairs)
        }
        for name, (old, _) in texts.items():
            (repo / name).write_bytes(old)
        _git(repo, "add", "-A")
        _git(repo, "commit", "-qm", "old", "--allow-empty")
        for name, (_, new) in texts.items():
            (repo / name).write_bytes(new)
        numstat = {}
        for row in _git(repo, "diff", "--numstat").splitlines():
            added, deleted, name = row.split("\t")
            numstat[name] = (int(added), int(deleted))
        for name, (old, new) in texts.items():
            counts = count_lines(old, new)
            assert numstat.get(name, (0, 0)) == (counts.insertions, counts.deletions), name

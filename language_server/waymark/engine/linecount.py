"""Lines a change inserts and deletes, and the runs of equal lines it keeps, as ``difflib``
finds them, without its per-line cost.

diffStats' counts are those of ``difflib.SequenceMatcher(None, a, b, autojunk=False)`` after
the common head and tail are trimmed (docs/history.md), and they must stay so. The matcher's
recursion (take the longest equal block of a region, earliest in ``a`` then in ``b``; recurse
on both sides of it) is replayed over runs of equal lines (maximal diagonals of the match
grid) instead of over lines. A run clipped to a region is the longest equal block the matcher
would find on that diagonal, so each step costs the runs in its region, and an edit of a few
lines leaves a few runs.

Runs are found from the lines that occur once on each side (each has one partner, and its
run is grown by comparing slices, in C). A run made only of repeated lines (blank lines,
braces) is not listed, but none is longer than the longest stretch of such lines: a region
whose longest listed run is not longer than that is left to difflib itself.

The replay gives the blocks too, not only their sizes (:func:`matching_blocks`): the unified
diff pairs its pieces with them.
"""

from __future__ import annotations

import codecs
import re
from collections import Counter
from collections.abc import Hashable, Sequence
from itertools import compress, count, pairwise
from operator import ne
from typing import Any

from waymark.engine.encodings import refuse_binary

Lines = Sequence[Hashable]
Run = tuple[int, int, int]  # equal lines: start in a, start in b, length

_EOL = re.compile(rb"\r\n|\r|\n")


def plain_utf8(data: bytes) -> bool:
    """UTF-8 without a BOM, as :meth:`TextFile.decode` reads it: its lines compare as bytes
    exactly as decoded ones do (decoding is one-to-one, and splits where the bytes do)."""
    if data.isascii():
        return True
    if data.startswith(codecs.BOM_UTF8):
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def count_bytes(old: bytes, new: bytes, exact: int) -> tuple[int, int]:
    """:func:`count_changes` of the lines of two :func:`plain_utf8` files, compared as bytes;
    raise :class:`BinaryFile` as decoding would.

    Bytes equal at both ends hold equal whole lines up to a line boundary, and trimming
    those first leaves the same lines to compare (the line trim finishes the job): so only
    the lines between are split.
    """
    refuse_binary(old)
    refuse_binary(new)
    size = min(len(old), len(new))
    # The ends need not be found to the byte: the line trim finishes them.
    head = equal_ahead(old, new, 0, 0, size, 256, 128)
    start = old.rfind(b"\n", 0, head) + 1
    tail = equal_back(old, new, len(old), len(new), size - head, 256, 128)
    end = old.find(b"\n", len(old) - tail) + 1 or len(old)
    cut = len(old) - end
    return count_changes(_lines(old[start:end]), _lines(new[start : len(new) - cut]), exact)


def _lines(data: bytes) -> list[bytes]:
    """Lines split as ``text.split_lines`` splits them (``\\n``, ``\\r\\n``, ``\\r``)."""
    lines = data.split(b"\n") if b"\r" not in data else _EOL.split(data)
    if not lines[-1]:
        lines.pop()
    return lines


def count_changes(
    before: Sequence[Hashable], after: Sequence[Hashable], exact: int
) -> tuple[int, int]:
    """``(inserted, deleted)`` lines from ``before`` to ``after``: the common head and tail
    trimmed, then difflib's count (:func:`matched`); past ``exact`` differing lines, from
    line multisets (exact unless lines were reordered)."""
    # Lists, not a list and a tuple: slices of both must compare equal when their lines do.
    a, b = list(before), list(after)
    size = min(len(a), len(b))
    head = equal_ahead(a, b, 0, 0, size, 4)
    tail = equal_back(a, b, len(a), len(b), size - head, 4)
    a, b = a[head : len(a) - tail], b[head : len(b) - tail]
    if not a or not b:
        return len(b), len(a)
    if len(a) + len(b) > exact:
        old, new = Counter(a), Counter(b)
        return sum((new - old).values()), sum((old - new).values())
    same = matched(a, b)
    return len(b) - same, len(a) - same


def matched(a: Lines, b: Lines) -> int:
    """How many lines ``difflib.SequenceMatcher(None, a, b, autojunk=False)`` pairs (the
    same number, always)."""
    return sum(size for _, _, size in _blocks(a, b))


def matching_blocks(a: Lines, b: Lines) -> list[Run]:
    """The equal runs ``difflib.SequenceMatcher(None, a, b, autojunk=False)`` pairs, in
    order (the same lines paired, always; adjacent runs may be given apart). ``a`` and ``b``
    are of one type: runs are grown by comparing slices."""
    blocks = _blocks(a, b)
    blocks.sort()
    return blocks


def _blocks(a: Lines, b: Lines) -> list[Run]:
    if not a or not b:
        return []
    where = dict(zip(b, count()))
    repeated = _repeated(a, b, where)
    # No run made only of repeated lines is longer than the longest stretch of them in a.
    others = max(map(len, bytes(map(repeated.__contains__, a)).split(b"\0"))) if repeated else 0
    runs = _anchored_runs(a, b, where, repeated)
    if not others and all(i + n <= i2 and j + n <= j2 for (i, j, n), (i2, j2, _) in pairwise(runs)):
        # Runs in order on both sides and no other: every step takes one of them whole.
        return runs
    return _replay(a, b, runs, others)


def _repeated(a: Lines, b: Lines, where: dict[Hashable, int]) -> set[Hashable]:
    """The lines on both sides that occur more than once on one of them."""
    in_a = set(a)
    repeated: set[Hashable] = set()
    if len(in_a) < len(a):
        repeated.update(_not_last(a, dict(zip(a, count()))) & where.keys())
    if len(where) < len(b):
        repeated.update(_not_last(b, where) & in_a)
    return repeated


def _not_last(lines: Lines, last: dict[Hashable, int]) -> set[Hashable]:
    """The lines found again further on (``last``: each line's last position), in C."""
    return set(compress(lines, map(ne, map(last.__getitem__, lines), count())))


def _anchored_runs(
    a: Lines, b: Lines, where: dict[Hashable, int], repeated: set[Hashable]
) -> list[Run]:
    """Every maximal run of equal lines holding a line that occurs once on each side.

    Such a line has one partner, so its run is found by comparing slices outward from it;
    the lines a run covers need no look-up (each has its partner on the run).
    """
    runs: list[Run] = []
    la, lb = len(a), len(b)
    i = 0
    while i < la:
        line = a[i]
        j = where.get(line)
        if j is None or line in repeated:
            i += 1
            continue
        back = equal_back(a, b, i, j, min(i, j))
        ahead = 1 + equal_ahead(a, b, i + 1, j + 1, min(la - i, lb - j) - 1, 4)
        runs.append((i - back, j - back, back + ahead))
        i += ahead
    return runs


def equal_ahead(
    a: Sequence[Any], b: Sequence[Any], i: int, j: int, limit: int, step: int = 1, least: int = 1
) -> int:
    """How many items are equal from ``a[i]`` and ``b[j]`` on, at most ``limit``: slices
    twice as long while equal, then halving down what is left, so the comparisons run in C
    and cost about the length found; with ``least``, it may fall short by less than that."""
    n = 0
    while step <= limit - n and a[i + n : i + n + step] == b[j + n : j + n + step]:
        n += step
        step *= 2
    while step > least:
        step //= 2
        if step <= limit - n and a[i + n : i + n + step] == b[j + n : j + n + step]:
            n += step
    return n


def equal_back(
    a: Sequence[Any], b: Sequence[Any], i: int, j: int, limit: int, step: int = 1, least: int = 1
) -> int:
    """How many items are equal going back from before ``a[i]`` and ``b[j]``, at most
    ``limit`` (as :func:`equal_ahead`)."""
    n = 0
    while step <= limit - n and a[i - n - step : i - n] == b[j - n - step : j - n]:
        n += step
        step *= 2
    while step > least:
        step //= 2
        if step <= limit - n and a[i - n - step : i - n] == b[j - n - step : j - n]:
            n += step
    return n


def _replay(a: Lines, b: Lines, runs: list[Run], others: int) -> list[Run]:
    """The runs difflib's matcher pairs, replaying its recursion over ``runs``; a region
    where no run is longer than ``others`` (the longest run not listed) is left to difflib."""
    found: list[Run] = []
    regions = [(0, len(a), 0, len(b), runs)]
    while regions:
        alo, ahi, blo, bhi, inside = regions.pop()
        best = bi = bj = 0
        for i, j, size in inside:
            skip = max(alo - i, blo - j, 0)
            length = min(size, ahi - i, bhi - j) - skip
            # Longest first; among equals, earliest in a, then in b (difflib's order).
            if length > best or (length == best and (i + skip, j + skip) < (bi, bj)):
                best, bi, bj = length, i + skip, j + skip
        if best <= others:
            if others:
                found.extend((alo + i, blo + j, n) for i, j, n in _difflib(a[alo:ahi], b[blo:bhi]))
            continue
        found.append((bi, bj, best))
        if alo < bi and blo < bj:
            regions.append((alo, bi, blo, bj, _within(inside, alo, bi, blo, bj)))
        if bi + best < ahi and bj + best < bhi:
            ai, aj = bi + best, bj + best
            regions.append((ai, ahi, aj, bhi, _within(inside, ai, ahi, aj, bhi)))
    return found


def _difflib(a: Lines, b: Lines) -> list[Run]:
    import difflib

    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return [(i, j, size) for i, j, size in matcher.get_matching_blocks() if size]


def _within(runs: list[Run], alo: int, ahi: int, blo: int, bhi: int) -> list[Run]:
    return [
        run
        for run in runs
        if min(run[2], ahi - run[0], bhi - run[1]) > max(alo - run[0], blo - run[1], 0)
    ]

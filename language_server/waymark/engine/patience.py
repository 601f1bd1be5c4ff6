"""Where a large region is cut before it is diffed: lines that occur once on each side, in
order, as patience diff cuts (pure)."""

from __future__ import annotations

import bisect
import operator
from collections import Counter
from collections.abc import Sequence
from itertools import compress, count, repeat

# Of counts only: on anything but an int it answers NotImplemented, which is true.
_ONCE = (1).__eq__


def anchors(
    a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int
) -> tuple[list[int], list[int], bool]:
    """The longest in-order chain of lines that occur once in each range; failing those, of
    the k-th occurrences of lines that occur equally often in each (a line replaced elsewhere
    leaves its count alone, so repeated lines still line up), as their positions in each, and
    whether they are the former."""
    # Found in C (counting, sets, sorting), not line by line: these are the whole region.
    old, new = a[alo:ahi], b[blo:bhi]
    in_a, in_b = Counter(old), Counter(new)
    spots = list(compress(count(alo), map(_ONCE, map(in_a.__getitem__, old))))
    counts_b = map(in_b.get, map(a.__getitem__, spots), repeat(0))
    spots = list(compress(spots, map(_ONCE, counts_b)))
    unique = bool(spots)
    if unique:
        last_b = dict(zip(new, count(blo)))
        after = list(map(last_b.__getitem__, map(a.__getitem__, spots)))
    else:
        # The k-th occurrences pair up: positions sorted by line (stably) line up on both sides.
        alike = {line for line, n in in_a.items() if in_b.get(line) == n}
        in_old = sorted(compress(count(alo), map(alike.__contains__, old)), key=a.__getitem__)
        in_new = sorted(compress(count(blo), map(alike.__contains__, new)), key=b.__getitem__)
        pairs = sorted(zip(in_old, in_new, strict=True))
        spots, after = [i for i, _ in pairs], [j for _, j in pairs]
    if all(map(operator.lt, after, after[1:])):
        # Already in order on both sides (nothing moved): the chain is every pair.
        return spots, after, unique
    # Longest increasing subsequence of the after-positions (patience sorting).
    tops: list[int] = []  # after-position ending the best chain of each length
    ends: list[int] = []  # index of that chain's last pair
    back: list[int] = [-1] * len(after)
    for k, j in enumerate(after):
        n = bisect.bisect_left(tops, j)
        if n == len(tops):
            tops.append(j)
            ends.append(k)
        else:
            tops[n] = j
            ends[n] = k
        back[k] = ends[n - 1] if n else -1
    chain: list[int] = []
    k = ends[-1] if ends else -1
    while k >= 0:
        chain.append(k)
        k = back[k]
    chain.reverse()
    return [spots[k] for k in chain], [after[k] for k in chain], unique

"""Display anchors of many lines at once, exactly as :meth:`LineIndex.display` gives them.

A full read shows every line and an edit compares thousands before and after: the usual
answers (a line's own 6-char prefix; a repeated line's own 6-char context prefix; the ``.N``
of a run of identical contexts; 8 chars past a prefix two lines share) are decided for whole
columns or per group, and the ladder of :meth:`LineIndex.display` runs only for the rest
(a context prefix that is some line's prefix too, a group with mixed contexts).
"""

from __future__ import annotations

from collections import Counter
from itertools import compress, count, repeat
from operator import add, itemgetter, methodcaller, not_

from waymark.engine import core
from waymark.engine.line_index import LineIndex, scatter, where

_prefix6 = itemgetter(slice(0, 6))
# Up to this many repeated lines of a one-off question are decided by a pass of their own;
# more make the file's context hashes, which answer them all.
_FEW = 64


def displays(index: LineIndex, indices: list[int], *, one_off: bool = False) -> list[str]:
    """``index.display(i)`` for each of ``indices``.

    ``one_off``: a question asked once of an index (an edit's anchors above it and in its
    diff): a few repeated lines are then decided by one compiled pass over the repeated
    lines rather than by every context hash of the file, which an index asked again keeps."""
    native = core.native
    if native is not None:
        out, collided, rep_at = native.own_displays(
            indices, index.lines, index.p6, index.p6_count, index.text_count
        )
    else:
        counts, p6 = index.p6_count, index.p6
        texts = list(map(index.lines.__getitem__, indices))
        repeated = list(map((1).__lt__, map(index.text_count.__getitem__, texts)))
        keys = list(map(p6.__getitem__, indices))
        out = list(map("%06x".__mod__, keys))
        own = map((1).__eq__, map(counts.__getitem__, keys))
        collided = where(map(not_, map(add, own, repeated)))
        rep_at = where(repeated)
    _collided(index, out, indices, collided)
    if one_off and native is not None and rep_at and not index.ctx_known and len(rep_at) <= _FEW:
        rep_at = _alone(index, out, indices, rep_at)
    if rep_at:
        _repeated(index, out, indices, rep_at)
    return out


def _alone(index: LineIndex, out: list[str], indices: list[int], rep_at: list[int]) -> list[int]:
    """A few repeated lines, before any context hash of the file is made: those whose 6-char
    context prefix no line hash takes and no other repeated line has show it (one pass over
    the repeated lines, hashing their contexts without keeping them); the rest are left."""
    wanted = sorted({indices[k] for k in rep_at})
    own = index.context_hashes_of(wanted)
    keys = {i: int(own[i][:6], 16) for i in wanted}
    free = {key for key in keys.values() if not index.p6_count.get(key)}
    # Each key's lines are few: their prefixes are read from their own context hashes.
    matches = index.context_hashes_of(context_keys_in(index, index.repeated_lines, free))
    found = Counter(int(h[:6], 16) for h in matches.values())
    left = []
    for k in rep_at:
        i = indices[k]
        if found[keys[i]] == 1:
            out[k] = own[i][:6]
        else:
            left.append(k)
    return left


def context_keys_in(index: LineIndex, wanted: list[int], keys: set[int]) -> list[int]:
    """The ``wanted`` lines (ascending) whose context hash's 6-char prefix, as an integer, is
    one of ``keys``. The pure twin hashes every context as the index would (so the one-off
    path runs only compiled: without the core, the index's own context hashes are cheaper)."""
    if not keys:
        return []
    native = core.native
    if native is not None:
        return native.context_keys_in(index.lines, wanted, list(keys))
    found = index.context_hashes_of(wanted)
    return [i for i, h in found.items() if int(h[:6], 16) in keys]


def _collided(index: LineIndex, out: list[str], indices: list[int], at: list[int]) -> None:
    """Lines of unique text that share their 6-char prefix with another line: 8 (then 16)
    chars when that singles them out in their group, else the group's ``.N``."""
    if not at:
        return
    p6, hashes = index.p6, index.hashes
    index.learn_groups({p6[indices[k]] for k in at})
    hexes: dict[int, list[str]] = {}
    for k in at:
        i = indices[k]
        group = index.p6_group(p6[i])
        if p6[i] not in hexes:
            hexes[p6[i]] = [f"{hashes[j]:016x}" for j in group]
        full = f"{hashes[i]:016x}"
        for n in (8, 16):
            if sum(map(methodcaller("startswith", full[:n]), hexes[p6[i]])) == 1:
                out[k] = full[:n]
                break
        else:
            out[k] = f"{full[:6]}.{group.index(i) + 1}"


def _repeated(index: LineIndex, out: list[str], indices: list[int], rep_at: list[int]) -> None:
    """Repeated lines: their context prefix when no other repeated line has it and no line
    hash takes it; ``.N`` in a run of identical contexts; else the ladder."""
    counts = index.p6_count
    ctx, counts6 = index.ctx, index.ctx_counts6
    native = core.native
    if native is not None:
        fall = native.repeated_displays(out, indices, rep_at, ctx, counts6, counts)
    else:
        shown = list(map(_prefix6, map(ctx.__getitem__, map(indices.__getitem__, rep_at))))
        scatter(out, rep_at, shown)
        alone = map((1).__eq__, map(counts6.__getitem__, shown))
        taken = map(bool, map(counts.get, map(int, shown, repeat(16))))
        fall = list(compress(range(len(rep_at)), map(add, taken, map(not_, alone))))
    keys = {k: int(out[rep_at[k]], 16) for k in fall}
    # The ladder looks up lines by those prefixes: find them all in one pass.
    index.learn_positions({key for key in keys.values() if counts[key] == 1})
    ranks: dict[str, dict[int, int] | None] = {}
    for k in fall:
        i, c6 = indices[rep_at[k]], out[rep_at[k]]
        if counts.get(keys[k]):
            out[rep_at[k]] = _past_a_line(index, i, keys[k], counts6[c6] == 1)
            continue
        rank = _ranks(index, c6, ranks)
        out[rep_at[k]] = index.display(i) if rank is None else f"{c6}.{rank[i]}"


def _past_a_line(index: LineIndex, i: int, key: int, alone: bool) -> str:
    """A repeated line whose 6-char context prefix is also one line's hash prefix: the
    ladder would stop at that line, so 8 chars when they single it out, else the ladder."""
    c = index.ctx[i]
    if alone and index.p6_count[key] == 1:
        other = index.hashes[index.position(key)]
        if not f"{other:016x}".startswith(c[:8]):
            return c[:8]
    return index.display(i)


def _ranks(
    index: LineIndex, c6: str, memo: dict[str, dict[int, int] | None]
) -> dict[int, int] | None:
    """Each line's place among the repeated lines whose context hash is the same in full
    (a run of blank lines, a copied block), the ``.N`` the ladder gives them when no line
    hash takes the prefix; None when the 6-char group holds different contexts."""
    if c6 not in memo:
        group = index.ctx_group(c6)
        same = len(set(map(index.ctx.__getitem__, group))) == 1
        memo[c6] = dict(zip(group, count(1))) if same else None
    return memo[c6]

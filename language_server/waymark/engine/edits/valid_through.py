"""How many leading lines of an edited file keep their displayed anchor, found near the edit.

A line above the first change keeps its number and its hash; its display can still change,
because the ladder counts prefixes over the whole file. Which lines' displays can change is
decided from the edit alone (``K``: the 6-char prefixes of the lines removed and added):

- a line of unique text whose prefix is not in ``K``: the lines sharing its prefix are the
  same lines, in the same order, with the same hashes, so it shows the same token;
- a line whose text repeats (in both files, since its prefix is not in ``K``) shows a token
  of its context hash; that token is the same when its context hash is the same in both
  files, the lines whose hash has its 6-char context prefix are the same (that prefix is not
  in ``K``), and no repeated line whose context hash differs between the files (a changed
  line, a line whose text became or stopped being repeated: both have a prefix in ``K``; a
  line next to a change, blank lines between included) has a context hash with that prefix.

Only the other lines are compared, with the whole ladder; an edit far from repeated lines
then costs neither file's context hashes. tests/unit/test_anchors_differential.py compares
the answer with the ladder run on every line.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence
from itertools import compress

from waymark.engine.displays import displays
from waymark.engine.edits.safety import Change
from waymark.engine.line_index import LineIndex

# Past this many lines next to changes or sharing a changed prefix (a blank line added or
# removed names every blank line), every special line is compared: the same answer, without
# hashing the contexts of so many lines first.
_NEAR_LIMIT = 2_000


def valid_through(old: LineIndex, new: LineIndex, changes: Sequence[Change]) -> int:
    """How many leading lines keep both their number and their displayed anchor."""
    first = changes[0].old_start
    # A line whose 6-char prefix is its own in both snapshots shows that prefix in both.
    cut = old.shared[: bisect_left(old.shared, first)]
    special = sorted({*cut, *new.shared[: bisect_left(new.shared, first)]})
    if not special:
        return first
    keys = {old.p6[i] for c in changes for i in range(c.old_start, c.old_end)}
    keys.update(new.p6[j] for c in changes for j in range(c.new_start, c.new_end))
    suspects = _suspects(old, new, changes, special, keys)
    shown = displays(old, suspects, one_off=True), displays(new, suspects, one_off=True)
    moved = map(str.__ne__, *shown)
    return next(compress(suspects, moved), first)


def _suspects(
    old: LineIndex, new: LineIndex, changes: Sequence[Change], special: list[int], keys: set[int]
) -> list[int]:
    """The special lines whose display the reasoning above cannot vouch for."""
    p6, lines = old.p6, old.lines
    repeated = [i for i in special if p6[i] not in keys and old.text_count[lines[i]] > 1]
    if repeated:
        old_side = _differing(old, [(c.old_start, c.old_end) for c in changes], keys)
        new_side = _differing(new, [(c.new_start, c.new_end) for c in changes], keys)
        if old_side is None or new_side is None:
            return special
        taken = {h[:6] for h in _contexts(old, old_side).values()}
        taken.update(h[:6] for h in _contexts(new, new_side).values())
        before, after = _contexts(old, repeated), _contexts(new, repeated)
        vouched = {
            i
            for i in repeated
            if before[i] == after[i]
            and before[i][:6] not in taken
            and int(before[i][:6], 16) not in keys
        }
        repeated = [i for i in repeated if i not in vouched]
    return sorted({*repeated, *(i for i in special if p6[i] in keys)})


def _contexts(index: LineIndex, repeated: list[int]) -> dict[int, str]:
    """The context hashes of these repeated lines of ``index``: those it made already (a
    kept index made them for an earlier edit's diff), else hashed now."""
    if not index.ctx_known:
        return index.context_hashes_of(repeated)
    ctx = index.ctx
    return dict(zip(repeated, map(ctx.__getitem__, repeated), strict=True))


def _differing(
    index: LineIndex, regions: Iterable[tuple[int, int]], keys: set[int]
) -> list[int] | None:
    """The repeated lines of ``index`` whose context hash may differ in the other file: those
    with a changed prefix, and those next to a change (up to the nearest non-blank line on
    each side, the blank lines between included); None past ``_NEAR_LIMIT`` of them."""
    lines, n = index.lines, len(index.lines)
    wanted = {key for key in keys if index.p6_count.get(key, 0) > 1}
    if sum(index.p6_count[key] for key in wanted) > _NEAR_LIMIT:
        return None
    index.learn_groups(set(wanted))
    found = {i for key in wanted for i in index.p6_group(key)}
    for a, b in regions:
        near: list[int] = []
        for start, stop, step in ((a - 1, -1, -1), (b, n, 1)):
            for j in range(start, stop, step):
                near.append(j)
                if len(near) > _NEAR_LIMIT:
                    return None
                if lines[j].strip():
                    break
        found.update(near)
    text_count = index.text_count
    return sorted(i for i in found if text_count[lines[i]] > 1)

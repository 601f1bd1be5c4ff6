"""Which parsed regexes Python matches as POSIX does: the semantic half of ``regex.py``'s exactness.

glibc returns the POSIX leftmost-*longest* match, Python the leftmost *first* one in
backtracking order. They agree when the Python pattern is deterministic: reading left to
right, the next character alone decides every choice, and greedy loops always prefer
consuming, so the first match Python finds is the longest one and its groups are the only
possible split. One exception is allowed: a single ambiguous point (a loop whose body overlaps
what follows, like ``.*`` in ``a.*b``, or literal alternatives where one is a prefix of
another) provided everything after it has a fixed width; Python tries that point's options
longest first, so again the first match found is the longest. Without groups, the part after
it may also end in ``.*`` (every match then ends at the line end). Anything outside that class
is declined.
"""

from __future__ import annotations

from waymark.engine.sed.charset import CharSet
from waymark.engine.sed.decline import SedDecline
from waymark.engine.sed.regex_parse import (
    Alternatives,
    Anchor,
    BackRef,
    Group,
    GroupRepeat,
    Item,
    Node,
    Repeat,
)


def flatten(nodes: tuple[Node, ...]) -> list[Item]:
    items: list[Item] = []
    for node in nodes:
        if isinstance(node, Group):
            items.extend(flatten(node.body))
        else:
            items.append(node)
    return items


def group_spans(nodes: tuple[Node, ...], start: int = 0) -> tuple[list[tuple[int, int]], int]:
    """Each group's [first, end) item indices in the flattened sequence, and the item count."""
    spans: list[tuple[int, int]] = []
    index = start
    for node in nodes:
        if isinstance(node, Group):
            inner, end = group_spans(node.body, index)
            spans.append((index, end))
            spans.extend(inner)
            index = end
        else:
            if isinstance(node, GroupRepeat):
                spans.append((index, index + 1))
            index += 1
    return spans, index


def _first(item: Item) -> CharSet:
    if isinstance(item, Repeat):
        return item.chars
    if isinstance(item, Alternatives):
        return CharSet.of(*(option[0] for option in item.options))
    if isinstance(item, BackRef):
        return CharSet.anything()
    if isinstance(item, GroupRepeat):
        return CharSet.of(item.text[0])
    return CharSet(())


def nullable(item: Item) -> bool:
    if isinstance(item, Repeat | GroupRepeat):
        return item.low == 0
    return isinstance(item, Anchor | BackRef)


def _fixed_width(item: Item) -> bool:
    if isinstance(item, Repeat | GroupRepeat):
        return item.low == item.high
    if isinstance(item, Alternatives):
        return len({len(option) for option in item.options}) == 1
    return not isinstance(item, BackRef)


def _prefix_free(options: tuple[str, ...]) -> bool:
    return not any(a != b and b.startswith(a) for a in options for b in options)


def is_rest_of_line(item: Item) -> bool:
    """``.*``, ``.+``, ``.\\{n,\\}``: can take everything up to the line end."""
    return isinstance(item, Repeat) and item.high is None and item.chars == CharSet.anything()


def _ends_with_rest_of_line(tail: list[Item]) -> bool:
    """Fixed-width items, then ``.*``-like, then only anchors: every match ends at the line end."""
    consuming = [i for i, item in enumerate(tail) if not isinstance(item, Anchor)]
    if not consuming:
        return False
    return (
        is_rest_of_line(tail[consuming[-1]])
        and all(_fixed_width(item) for item in tail[: consuming[-1]])
        and all(
            isinstance(item, Anchor) and item.kind in ("eol", "end")
            for item in tail[consuming[-1] + 1 :]
        )
    )


def check_deterministic(source: str, items: list[Item], spans: list[tuple[int, int]]) -> None:
    ambiguous_at: int | None = None
    for index, item in enumerate(items):
        if isinstance(item, Repeat | GroupRepeat):
            if item.low == item.high:
                continue
            follow = CharSet(())
            for later in items[index + 1 :]:
                follow = follow.union(_first(later))
                if not nullable(later):
                    break
            # A repeated literal group can stop only where its text cannot go on.
            if not _first(item).intersects(follow):
                continue
        elif isinstance(item, Alternatives):
            if _prefix_free(item.options):
                continue
        else:
            continue
        if ambiguous_at is not None:
            raise SedDecline(
                f"regex {source!r}: two overlapping repetitions or alternatives can make "
                "POSIX leftmost-longest and Python matching disagree, so it is not simulated"
            )
        ambiguous_at = index
    if ambiguous_at is None:
        return
    tail = items[ambiguous_at + 1 :]
    if all(_fixed_width(i) for i in tail):
        return
    # "a.*b.*": all candidate matches end at the line end, so only the split between the two
    # repetitions varies, and nothing observes it unless a group starts or ends inside it.
    last = len(items) - 1
    while isinstance(items[last], Anchor):
        last -= 1
    splits = any(ambiguous_at < edge <= last for span in spans for edge in span)
    # A group edge after it is observed, but a repetition there is greedy in Python and the
    # longest subexpression in POSIX alike (\(.*\)=\(.*\) splits at the last '='); an
    # alternation is not (Python takes the first option that fits).
    greedy = isinstance(items[ambiguous_at], Repeat)
    if (greedy or not splits) and _ends_with_rest_of_line(tail):
        return
    raise SedDecline(
        f"regex {source!r}: a variable-width part after an overlapping repetition can make "
        "POSIX leftmost-longest and Python matching disagree, so it is not simulated"
    )


def fold(item: Item) -> Item:
    """The item as the analysis must see it under the I flag: each ASCII letter with its pair."""
    if isinstance(item, Repeat):
        pairs = [
            (ord(chr(c).swapcase()),) * 2
            for low, high in item.chars.ranges
            for c in range(low, min(high, 0x7F) + 1)
            if chr(c).isalpha()
        ]
        folded = CharSet(item.chars.ranges, item.chars.locale).union(CharSet(tuple(pairs)))
        return Repeat(folded, item.low, item.high)
    if isinstance(item, Alternatives):
        return Alternatives(tuple(o.lower() for o in item.options))
    return item

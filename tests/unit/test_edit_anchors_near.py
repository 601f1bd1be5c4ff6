"""The anchors an edit planned from the bytes reports (``span_anchors``), from the compiled
core's tables of the edited file kept to what the asked lines need and its comparison of
both files' tokens above the edit, against what a read of the whole decoded files shows:
the same display anchor and quality of every asked line, the same first line above the edit
whose anchor moved. Repeated lines near and far from the edit, blank lines, an edit creating
or removing a repeat, prefixes shared by chance, the ladder's rarer rungs."""

from __future__ import annotations

import random

import pytest
from test_core_differential import CORPORA

from waymark.engine import core
from waymark.engine.anchors import HIGH, LOW, MEDIUM, annotate
from waymark.engine.line_index import P6_SHIFT, hash_lines
from waymark.engine.text import TextFile

pytestmark = pytest.mark.skipif(core.native is None, reason="the compiled core is not built")

_POOL = ["", "", "  ", "}", "x = 1", "é", "a", "pass", "(", ")", "return None", "\t", "😀 y"]


def _shown(data: bytes) -> list[tuple[str, str]]:
    """Each line's display anchor and quality, as a read of the decoded file shows them."""
    return [(row.hash, row.quality) for row in annotate(TextFile.decode(data))]


def _spans(data: bytes) -> object:
    native = core.native
    assert native is not None
    answer = native.span_find(data, 0, [(0, 1)], 0)
    assert answer is not None
    return answer[5]


def _anchors(
    old: bytes, new: bytes, w0: int, w1: int, first: int, lines: list[int]
) -> tuple[int, list[tuple[str, str]]]:
    """How many leading lines keep their anchor, and the asked lines' anchors and qualities,
    from span_anchors, as from_bytes takes them."""
    native = core.native
    assert native is not None
    answer = native.span_anchors(_spans(old), old, new, 0, w0, w1, first, lines)
    assert answer is not None
    valid, (special, tokens, low, medium) = answer
    token_of = dict(zip(special, tokens, strict=True))
    quality = dict.fromkeys(medium, MEDIUM) | dict.fromkeys(low, LOW)
    texts = TextFile.decode(new).lines
    hashes = hash_lines([texts[i] for i in lines])
    return valid, [
        (token_of.get(i) or f"{h >> P6_SHIFT:06x}", quality.get(i, HIGH))
        for i, h in zip(lines, hashes, strict=True)
    ]


def _encode(lines: list[str]) -> bytes:
    return "".join(f"{line}\n" for line in lines).encode()


def _check(lines: list[str], w0: int, w1: int, middle: list[str], asked: list[int]) -> None:
    """Lines [w0, w1) of ``lines`` become ``middle``: the asked lines of the new file show
    what a read shows, and the lines above the first change keep theirs as far as a read of
    both files says."""
    after = lines[:w0] + middle + lines[w1:]
    old, new = _encode(lines), _encode(after)
    shown, was = _shown(new), _shown(old)
    asked = sorted({i for i in asked if i < len(after)})
    first = w0
    while first < min(w1, w0 + len(middle)) and lines[first] == after[first]:
        first += 1
    moved = next((i for i in range(first) if was[i][0] != shown[i][0]), first)
    assert _anchors(old, new, w0, w1, first, asked) == (moved, [shown[i] for i in asked])


@pytest.mark.parametrize("seed", range(6))
def test_small_files_show_the_same_anchors(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(300):
        size = rng.randint(1, 120)
        lines = [
            rng.choice(_POOL) if rng.random() < 0.5 else f"v{rng.randint(0, size)} = 1"
            for _ in range(size)
        ]
        w0 = rng.randint(0, size)
        w1 = rng.randint(w0, min(size, w0 + 5))
        middle = [rng.choice([*_POOL, *lines]) for _ in range(rng.randint(0, 4))]
        if not lines[:w0] + middle + lines[w1:]:
            continue
        around = range(max(w0 - 4, 0), w0 + len(middle) + 4)
        _check(lines, w0, w1, middle, [*around, *rng.sample(range(size), min(size, 8))])


def test_an_edit_creating_and_removing_repeats() -> None:
    lines = [f"u{i} = {i}" for i in range(60)] + ["", "pass", "", "pass", "w = 1"] * 3
    # A copy of a unique line far above: both copies become repeated, with context anchors.
    _check(lines, 40, 41, ["u3 = 3"], [2, 3, 4, 38, 39, 40, 41, 42])
    # One of two copies removed: the other is unique again.
    twice = [*lines[:10], "u5 = 5", *lines[10:]]
    _check(twice, 10, 11, [], [4, 5, 6, 8, 9, 10, 11])
    # Blank lines added and removed next to repeated ones change their contexts.
    _check(lines, 61, 62, ["", "", ""], list(range(55, 70)))
    _check(lines, 60, 63, [], list(range(55, 70)))


@pytest.mark.parametrize("name", sorted(n for n, d in CORPORA.items() if isinstance(d, bytes)))
def test_corpora_show_the_same_anchors(name: str) -> None:
    data = CORPORA[name]
    assert isinstance(data, bytes)
    try:
        lines = data.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        return
    if "\r" in data.decode("utf-8") or len(data) > 100_000:
        return
    lines = lines[:-1] if lines[-1] == "" else lines
    rng = random.Random(name)
    for _ in range(30):
        w0 = rng.randint(0, len(lines))
        w1 = rng.randint(w0, min(len(lines), w0 + 3))
        middle = [rng.choice([*lines, "}", ""]) for _ in range(rng.randint(0, 3))]
        if lines[:w0] + middle + lines[w1:]:
            _check(lines, w0, w1, middle, list(range(len(lines) + 3)))


@pytest.mark.parametrize("seed", range(2))
def test_a_larger_file_shows_the_same_anchors_everywhere(seed: int) -> None:
    """20,000 lines: many prefixes shared by chance (8- and 16-char and ``.N`` anchors), every
    line asked."""
    rng = random.Random(seed)
    size = 20_000
    lines = [
        rng.choice(_POOL) if rng.random() < 0.1 else f"v{rng.randint(0, size)} = 1"
        for _ in range(size)
    ]
    w0 = rng.randint(1_000, size - 1_000)
    _check(lines, w0, w0 + 2, ["x = 1", "", lines[5]], list(range(size + 1)))

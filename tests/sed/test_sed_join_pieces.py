"""sed's output built in one bytes object by the compiled core (``_core_sed.c``) against the
pure-Python join of ``engine/sed/pieces.py``: the same bytes for steps that grow, shrink,
keep or refuse pieces, the input itself when nothing changed, and a step's error raised as
it was. Real sed programs run through both in tests/sed/test_sed_differential.py."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from waymark.engine import core
from waymark.engine.sed import apply_script, parse_command_line, pieces
from waymark.engine.sed.decline import SedDecline

Step = Callable[[bytes, int], "bytes | None"]


def _both(step: Step, data: bytes, size: int) -> tuple[bytes | None, bytes | None]:
    results = []
    for module in (None, core.BUILT):
        with core.using(module):
            original = pieces.PIECE_SIZE
            pieces.PIECE_SIZE = size
            try:
                results.append(pieces.by_pieces(step, data))
            finally:
                pieces.PIECE_SIZE = original
    return results[0], results[1]


def _drop_x_lines(piece: bytes, offset: int) -> bytes:
    return b"".join(line for line in piece.splitlines(keepends=True) if b"x" not in line)


def _double_lines(piece: bytes, offset: int) -> bytes:
    return piece.replace(b"\n", b"\n--\n")


def _copy(piece: bytes, offset: int) -> bytes:
    return bytes(bytearray(piece))


def _only_past(limit: int, piece: bytes, offset: int) -> bytes:
    return piece.upper() if offset >= limit else piece


def _refuse_at(limit: int, piece: bytes, offset: int) -> bytes | None:
    return None if offset >= limit else piece.upper()


STEPS: dict[str, Step] = {
    "drop": _drop_x_lines,
    "grow": _double_lines,
    "equal copy": _copy,
    "change late": partial(_only_past, 20),
    "refuse late": partial(_refuse_at, 20),
    "empty": lambda piece, offset: b"",
}

TEXTS = st.lists(st.sampled_from([b"ab\n", b"x\n", b"\n", b"long line x y z\n", b"q"]), max_size=30)


def test_the_core_is_built() -> None:
    assert core.BUILT is not None and hasattr(core.BUILT, "join_pieces")


@pytest.mark.parametrize("name", STEPS)
@settings(max_examples=60, deadline=None)
@given(parts=TEXTS, size=st.integers(1, 12))
def test_same_bytes_as_the_pure_join(name: str, parts: list[bytes], size: int) -> None:
    data = b"".join(parts)
    pure, native = _both(STEPS[name], data, size)
    assert native == pure


def test_unchanged_gives_the_input_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    data = b"one\ntwo\nthree\n" * 10
    monkeypatch.setattr(pieces, "PIECE_SIZE", 5)
    with core.using(core.BUILT):
        assert pieces.by_pieces(_copy, data) is data


def test_a_step_error_is_raised_as_it_was(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(piece: bytes, offset: int) -> bytes:
        raise SedDecline(f"refused at {offset}")

    monkeypatch.setattr(pieces, "PIECE_SIZE", 4)
    with core.using(core.BUILT), pytest.raises(SedDecline, match="refused at 0"):
        pieces.by_pieces(refuse, b"abcdef\nghijkl\n")


def test_a_step_must_return_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pieces, "PIECE_SIZE", 4)
    with core.using(core.BUILT), pytest.raises(TypeError, match="bytes or None"):
        pieces.by_pieces(lambda piece, offset: piece.decode(), b"abcdef\nghijkl\n")


@pytest.mark.parametrize(
    "script",
    [
        "s/a/A/g",
        "s/$/ ;/",
        "/x/d",
        "/^a/a\\\nadded",
        "/x/c\\\nchanged",
        "/q/d;s/b/BB/g",
        "y/ab/ba/",
    ],
)
@pytest.mark.parametrize("size", [1, 5])
def test_programs_on_pieces(script: str, size: int, monkeypatch: pytest.MonkeyPatch) -> None:
    data = b"ab\nx b\nq\nabc\n\nb\n" * 7 + b"ab x"
    invocation = parse_command_line(f"sed -i '{script}' f")
    monkeypatch.setattr(pieces, "PIECE_SIZE", size)
    outputs = []
    for module in (None, core.BUILT):
        with core.using(module):
            outputs.append(apply_script(invocation.script, data))
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize("name", ["drop", "grow", "equal copy", "change late", "empty"])
@settings(max_examples=60, deadline=None)
@given(parts=TEXTS, size=st.integers(1, 12), ends=st.tuples(st.integers(0), st.integers(0)))
def test_between_same_bytes_as_the_pure_join(
    name: str, parts: list[bytes], size: int, ends: tuple[int, int]
) -> None:
    data = b"".join(parts)
    start, stop = sorted(end % (len(data) + 1) for end in ends)
    results = []
    for module in (None, core.BUILT):
        with core.using(module):
            original = pieces.PIECE_SIZE
            pieces.PIECE_SIZE = size
            try:
                results.append(pieces.between(STEPS[name], data, start, stop))
            finally:
                pieces.PIECE_SIZE = original
    assert results[1] == results[0]


def test_an_empty_span_is_one_empty_piece() -> None:
    seen: list[tuple[bytes, int]] = []

    def step(piece: bytes, offset: int) -> bytes:
        seen.append((piece, offset))
        return b"<>"

    with core.using(core.BUILT):
        assert pieces.between(step, b"a\n\n", 2, 2) == b"a\n<>\n"
    assert seen == [(b"", 2)]

"""Hypothesis fuzzer: random s-commands and inputs, each either declined or identical to GNU sed."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar
from unittest.mock import patch

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sed_fuzzgen import RandomChooser, generate, generate_program
from sed_oracle import gnu_sed_in_place

from waymark.engine.sed import SedDecline, apply_files, apply_script, parse_command_line, pieces

T = TypeVar("T")


def _examples(count: int) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Hypothesis settings for this file's tests: ``count`` cases, no deadline."""
    return settings(
        max_examples=count,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


class DataChooser:
    """Drives the shared generator from hypothesis draws, so failures shrink."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def choice(self, options: list[T]) -> T:
        return self.data.draw(st.sampled_from(options))

    def integer(self, low: int, high: int) -> int:
        return self.data.draw(st.integers(low, high))


@_examples(2000)
@given(st.data())
def test_fuzzed_command_is_declined_or_identical_to_gnu(data: st.DataObject) -> None:
    _check_command(DataChooser(data))


@_examples(500)
@given(st.data())
def test_fuzzed_command_on_files_cut_in_pieces_is_identical(data: st.DataObject) -> None:
    """Large files run a few hundred KB of whole lines at a time; pieces of a few bytes put a
    piece boundary at nearly every line."""
    with patch.object(pieces, "PIECE_SIZE", data.draw(st.integers(1, 8))):
        _check_command(DataChooser(data))


def _check_command(chooser: DataChooser) -> None:
    case = generate(chooser, inputs=3)
    try:
        script = parse_command_line(case.line).script
    except SedDecline as exc:
        assert exc.reason
        return
    expected = gnu_sed_in_place(case.gnu_args, case.inputs)
    assert expected is not None, f"GNU sed rejects {case.line!r}, which we simulate"
    for source, theirs in zip(case.inputs, expected, strict=True):
        try:
            ours = apply_script(script, source)
        except SedDecline as exc:
            assert exc.reason
            continue
        assert ours == theirs, f"{case.line!r} on {source!r}"


def test_fuzz_space_is_mostly_simulated() -> None:
    """The fuzzer must exercise the engine, not only its declines."""
    chooser = RandomChooser(2026)
    simulated = total = 0
    for _ in range(2000):
        case = generate(chooser, inputs=3)
        total += len(case.inputs)
        try:
            script = parse_command_line(case.line).script
        except SedDecline:
            continue
        for source in case.inputs:
            try:
                apply_script(script, source)
            except SedDecline:
                continue
            simulated += 1
    assert simulated / total >= 0.3


@_examples(300)
@given(st.data())
def test_fuzzed_program_on_several_files_is_declined_or_identical(data: st.DataObject) -> None:
    case = generate_program(DataChooser(data), inputs=3)
    try:
        ours = apply_files(parse_command_line(case.line).script, case.inputs)
    except SedDecline as exc:
        assert exc.reason
        return
    expected = gnu_sed_in_place(case.gnu_args, case.inputs)
    assert expected is not None, f"GNU sed rejects {case.line!r}, which we simulate"
    mine = [data if new is None else new for data, new in zip(case.inputs, ours, strict=True)]
    assert mine == expected, f"{case.line!r} on {case.inputs!r}"

"""What a bench figure should reach, as data: each bench declares its goals, the harness checks
them against the figure and writes them into ``bench/results.md``.

A :class:`Goal` is one measurable clause, ``metric comparison target unit`` ("ratio ≤ 2×
against the no-op", "p50 ≤ 5 ms", "peak RSS ≤ 150 MB"); a :class:`Condition` is one the bench
checks itself and answers through its figure's ``met``. Both cross from the bench's child
process to the harness as JSON (:func:`to_json`, :func:`from_json`).
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from bench.harness import Figure

Comparison = Literal["≤", "<", "≥", ">", "="]
COMPARE: dict[str, Callable[[float, float], bool]] = {
    "≤": float.__le__,
    "<": float.__lt__,
    "≥": float.__ge__,
    ">": float.__gt__,
    "=": float.__eq__,
}
TIME_UNITS = {"µs": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0}
# Shown right after the number; any other unit follows a space.
ATTACHED_UNITS = ("", "×", "%")
NO_DATA, UNCHECKABLE = "no data", "not checkable"


@dataclass(frozen=True)
class Goal:
    """``metric comparison target unit``, checked against one figure.

    ``metric``: "ratio" (median ÷ baseline median), "median" (of the runs, or the figure's
    value), "p50"/"p99"/… (a percentile of the runs), "value" (the figure's value), or a key
    of the figure's ``extra`` (a number, or a list or dict counted by its length).
    ``unit``: a time unit (µs, ms, s, min) converts the seconds measured; "%" shows a 0–1
    share as a percentage (a value whose own unit is "%" is taken as it is); any other unit
    is only shown. ``against``: what a ratio is measured against, in words. ``label``: how
    the metric reads in text when its key would not (``peak_rss_mb`` → "peak RSS").
    """

    metric: str
    comparison: Comparison
    target: float
    unit: str = ""
    against: str = ""
    label: str = ""

    @property
    def name(self) -> str:
        return self.label or self.metric

    def __str__(self) -> str:
        target = f"{self.comparison} {quantity(self.target, self.unit)}"
        if self.metric == "ratio":
            return f"{target} {self.against}".rstrip()
        if self.metric == "value":
            return target
        return f"{self.name} {target}"


@dataclass(frozen=True)
class Condition:
    """A goal in words that the bench checks itself; its figure's ``met`` answers it."""

    text: str

    def __str__(self) -> str:
        return self.text


Clause = Goal | Condition


def describe(goals: Iterable[Clause]) -> str:
    return ", ".join(map(str, goals))


def to_json(clause: Clause) -> dict[str, Any]:
    return asdict(clause)


def from_json(data: Clause | dict[str, Any]) -> Clause:
    if isinstance(data, Goal | Condition):
        return data
    if "text" in data:
        return Condition(str(data["text"]))
    return Goal(**data)


# ---------------------------------------------------------------- checking


def number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def extra_number(fig: Figure, key: str) -> float | None:
    if key not in fig.extra:
        return None
    found = fig.extra[key]
    return float(len(found)) if isinstance(found, list | tuple | dict) else number(found)


def _percentile(runs: list[float], p: float) -> float:
    ordered = sorted(runs)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def measure(fig: Figure, goal: Goal) -> float | None:
    """What ``goal`` talks about in ``fig``, in the goal's unit; None when the figure lacks it."""
    metric, unit = goal.metric, goal.unit
    if metric == "ratio":
        return fig.ratio
    if unit in TIME_UNITS:
        percentile = re.fullmatch(r"p(\d+)", metric)
        if percentile and fig.runs:
            return _percentile(fig.runs, float(percentile[1])) / TIME_UNITS[unit]
        seconds = statistics.median(fig.runs) if fig.runs else None
        if fig.unit == "s" and fig.value is not None:
            seconds = fig.value
        return None if seconds is None else seconds / TIME_UNITS[unit]
    if metric == "value":
        found = fig.value
        if unit == "%" and found is not None and fig.unit != "%":
            found *= 100
        return found
    if metric == "median":
        return fig.median
    found = extra_number(fig, metric)
    return found * 100 if unit == "%" and found is not None else found


def check(fig: Figure, clause: Clause) -> str | None:
    """None when the clause holds, else its gap, NO_DATA or UNCHECKABLE."""
    if isinstance(clause, Condition):
        return UNCHECKABLE
    measured = measure(fig, clause)
    if measured is None:
        return NO_DATA
    target = clause.target
    if COMPARE[clause.comparison](measured, target):
        return None
    gap = (
        f"{clause.name} {quantity(measured, clause.unit)} vs "
        f"{clause.comparison} {quantity(target, clause.unit)}"
    )
    return gap + (f" ({(measured / target - 1) * 100:+.0f}%)" if target else "")


def verdict(fig: Figure) -> str:
    """``MET``, ``MISSED: <gap>``, or why the goal could not be checked."""
    results = [check(fig, clause) for clause in fig.goals]
    gaps = [r for r in results if r is not None and r not in (NO_DATA, UNCHECKABLE)]
    if gaps or fig.met is False:
        return "MISSED: " + "; ".join(gaps or ["as the module reports"])
    if fig.met:
        return "MET"
    if not results:
        return "no goal"
    for reason in (NO_DATA, UNCHECKABLE):
        if reason in results:
            return reason
    return "MET"


# ---------------------------------------------------------------- numbers in text


def show_number(x: float) -> str:
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return f"{x:.3g}" if abs(x) < 1000 else f"{x:,.0f}"


def quantity(x: float, unit: str) -> str:
    return show_number(x) + (unit if unit in ATTACHED_UNITS else f" {unit}")

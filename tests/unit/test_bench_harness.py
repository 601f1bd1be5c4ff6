"""The bench harness's bookkeeping on synthetic figures: no bench runs, nothing is timed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench.goals import Condition, Goal, describe, from_json, to_json, verdict
from bench.harness import Outcome, discover, normalise, select
from bench.report import render_markdown, render_table, row, soak_row

MS = 1e-3


RATIO_2 = Goal("ratio", "≤", 2, "×")
AT_MOST_0 = Goal("value", "≤", 0)
WRONG_0 = Goal("wrong", "≤", 0)


def timed(
    goals: list[Goal | Condition], runs: list[float], baseline_runs: list[float]
) -> dict[str, object]:
    return {
        "name": "edit",
        "runs": runs,
        "baseline": "no-op",
        "baseline_runs": baseline_runs,
        "goals": goals,
        "extra": {},
    }


def test_ratio_is_median_over_baseline_median() -> None:
    fig = normalise("lsp_bench", timed([], [2 * MS, 9 * MS, 3 * MS], [1 * MS, 1 * MS, 50 * MS]))
    cells = row(fig)
    assert cells["ratio"] == "3.00×"
    assert (cells["median"], cells["min"], cells["max"]) == ("3 ms", "2 ms", "9 ms")
    assert cells["baseline median"] == "1 ms"
    assert cells["n"] == "3"


@pytest.mark.parametrize(
    ("goals", "status"),
    [
        ([Goal("ratio", "≤", 3, "×")], "MET"),
        ([Goal("ratio", "<", 3, "×")], "MISSED: ratio 3× vs < 3× (+0%)"),
        (
            [Goal("ratio", "≤", 2, "×", against="no-op"), Goal("p50", "≤", 5, "ms")],
            "MISSED: ratio 3× vs ≤ 2× (+50%)",
        ),
        ([Goal("p50", "≤", 2, "ms")], "MISSED: p50 3 ms vs ≤ 2 ms (+50%)"),
        ([Goal("p99", "≤", 10, "ms")], "MET"),
        ([Condition("faster than before")], "not checkable"),
        ([], "no goal"),
    ],
)
def test_goal_met_or_gap(goals: list[Goal | Condition], status: str) -> None:
    fig = normalise("m", timed(goals, [2 * MS, 3 * MS, 4 * MS], [1 * MS] * 3))
    assert verdict(fig) == status


def test_missing_runs_show_dashes_and_no_data() -> None:
    fig = normalise("m", timed([RATIO_2], [], [1 * MS] * 5))
    cells = row(fig)
    assert (cells["n"], cells["median"], cells["ratio"]) == ("—", "—", "—")
    assert cells["status"] == "no data"


def test_values_rates_and_module_verdicts() -> None:
    rate = normalise(
        "m", {"name": "coverage", "value": 0.93, "goals": [Goal("value", "≥", 95, "%")]}
    )
    assert verdict(rate) == "MISSED: value 93% vs ≥ 95% (-2%)"
    memory = normalise("m", {"name": "rss", "value": 60, "unit": "MB", "baseline": 40})
    assert (row(memory)["median"], row(memory)["ratio"]) == ("60 MB", "1.50×")
    memory.extra["peak_rss_mb"] = 180
    memory.goals = (RATIO_2, Goal("peak_rss_mb", "≤", 150, "MB", label="peak RSS"))
    assert verdict(memory) == "MISSED: peak RSS 180 MB vs ≤ 150 MB (+20%)"
    soak = normalise("m", {"name": "soak", "value": 0, "runs": [42.0], "goals": [AT_MOST_0]})
    assert verdict(soak) == "MET"
    assert (row(soak)["n"], row(soak)["median"]) == ("—", "0")
    simulated = Goal("share", "≥", 90, "%", label="simulated")
    coverage = normalise("m", {"name": "cov", "runs": [0.6], "goals": [simulated, WRONG_0]})
    coverage.extra.update(simulated=45, share=0.95, wrong=2)
    assert verdict(coverage) == "MISSED: wrong 2 vs ≤ 0"
    coverage.extra.update(share=0.8, wrong=0)
    assert verdict(coverage) == "MISSED: simulated 80% vs ≥ 90% (-11%)"
    assert row(coverage)["median"] == "600 ms"
    told = normalise(
        "m", {"name": "replay", "value": 1, "goals": [Condition("all cases")], "met": False}
    )
    assert verdict(told) == "MISSED: as the module reports"


def test_soak_dialect_integer_runs_and_value_goal() -> None:
    raw = {
        "name": "torn files",
        "runs": 5000,
        "value": 0,
        "baseline": 143,
        "baseline_runs": 200,
        "goals": [AT_MOST_0],
        "extra": {"trials": 5000, "torn": 0, "failures": []},
    }
    fig = normalise("crash_soak", raw)
    mismatches = Goal("mismatches", "≤", 0)
    counted = normalise("sed_soak", {"name": "sed", "goals": [mismatches], "extra": {}})
    counted.extra["mismatches"] = ["one case"]
    assert verdict(counted) == "MISSED: mismatches 1 vs ≤ 0"
    counted.extra["mismatches"] = 0
    assert verdict(counted) == "MET"
    assert fig.runs == [] and fig.baseline_value == 143
    assert soak_row(fig) == {
        "figure": "torn files",
        "cases": "5000",
        "failures": "0",
        "data lost": "0",
        "goal": "≤ 0",
        "status": "MET",
    }


def test_markdown_and_table_carry_everything() -> None:
    outcomes = [
        Outcome("lsp_bench", 1.0, [normalise("lsp_bench", timed([RATIO_2], [3 * MS], [1 * MS]))]),
        Outcome("sed_speed", 0.5, error="exit 1: boom"),
    ]
    machine = {"CPU": "Test CPU", "cores": "2"}
    md = render_markdown(outcomes, machine, "bench/run --only x", "2026-01-01 00:00 UTC", 1.5)
    for text in ("Test CPU", "`bench/run --only x`", "2026-01-01", "| edit | 1 |", "MISSED"):
        assert text in md
    assert "| sed_speed | 0.5 | 0 | exit 1: boom |" in md
    assert "Not run by this command (pass `--soak`)." in md
    table = render_table(row(f) for o in outcomes for f in o.figures)
    assert table.splitlines()[0].split()[:3] == ["figure", "n", "median"]


def test_discovery_order_and_soak_selection(tmp_path: Path) -> None:
    for name in ("zeta", "crash_soak", "sed_speed", "lsp_bench", "harness", "__main__"):
        (tmp_path / f"{name}.py").touch()
    names = discover(tmp_path)
    assert names == ["lsp_bench", "sed_speed", "crash_soak", "zeta"]
    assert select(names, soak=False, only=[]) == ["lsp_bench", "sed_speed", "zeta"]
    assert select(names, soak=True, only=[]) == names
    assert select(names, soak=False, only=["crash_soak"]) == ["crash_soak"]
    with pytest.raises(SystemExit):
        select(names, soak=False, only=["nope"])


def test_goals_read_as_text_and_cross_the_child_boundary_as_json() -> None:
    goals = [
        Goal("ratio", "≤", 2, "×", against="no-op"),
        Goal("p50", "≤", 5, "ms"),
        Goal("peak_rss_mb", "≤", 150, "MB", label="peak RSS"),
        Goal("value", "≥", 99, "%"),
        Condition("resume restores the newest turn"),
    ]
    assert describe(goals) == (
        "≤ 2× no-op, p50 ≤ 5 ms, peak RSS ≤ 150 MB, ≥ 99%, resume restores the newest turn"
    )
    crossed = json.loads(json.dumps([to_json(g) for g in goals]))
    assert [from_json(g) for g in crossed] == goals
    fig = normalise("m", {"name": "edit", "runs": [MS], "goals": crossed})
    assert row(fig)["goal"] == describe(goals)

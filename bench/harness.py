"""Run every bench module's ``figures()``, print a table, rewrite ``bench/results.md``.

A bench module is any ``bench/*.py`` with a ``figures() -> list[dict]``; each figure is
``{"name", "runs": [seconds…], "baseline": str, "baseline_runs": [seconds…],
"goals": [Goal…], "extra": {...}}`` (goals: ``bench/goals.py``). Counts and rates come as
``"value"`` (with ``"baseline"`` a number when the baseline is a count too), and a module may
give its own verdict as ``"met": bool``.
Modules named ``*_soak`` run only with ``--soak``.

Each module runs in its own child process, one after the other: a crash, ``sys.exit`` or
hang in one bench is reported with its error and the others still run, and no two benches
share the two cores of the machine.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.goals import (
    Clause,
    Condition,
    Goal,
    from_json,
    number,
    to_json,
)
from bench.machine import machine_info

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
RESULTS = BENCH_DIR / "results.md"

# Cheap, self-contained benches first so a slow one cannot hide the others' results.
ORDER = (
    "lsp_bench",
    "anchors_speed",
    "anchors_replay",
    "sed_speed",
    "sed_coverage",
    "history_bench",
    "crash_soak",
    "anchors_soak",
    "sed_soak",
    "history_soak",
)
NOT_BENCHES = {"__init__", "__main__", "harness", "report", "goals", "machine"}
TIMEOUT = {False: 600.0, True: 3600.0}  # seconds per module: normal, soak


@dataclass
class Figure:
    module: str
    name: str
    runs: list[float] = field(default_factory=list)
    baseline: str = ""
    baseline_runs: list[float] = field(default_factory=list)
    goals: tuple[Clause, ...] = ()
    value: float | None = None
    baseline_value: float | None = None
    unit: str = ""
    met: bool | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def timed(self) -> bool:
        """Runs are the figure itself, not just how long computing a count or rate took."""
        return bool(self.runs) and self.value is None

    @property
    def median(self) -> float | None:
        return statistics.median(self.runs) if self.timed else self.value

    @property
    def baseline_median(self) -> float | None:
        if self.baseline_runs and self.baseline_value is None:
            return statistics.median(self.baseline_runs)
        return self.baseline_value

    @property
    def ratio(self) -> float | None:
        mine, theirs = self.median, self.baseline_median
        if mine is None or not theirs:
            return None
        return mine / theirs


@dataclass
class Outcome:
    module: str
    seconds: float
    figures: list[Figure] = field(default_factory=list)
    error: str | None = None


# ---------------------------------------------------------------- discovery and normalising


def discover(bench_dir: Path = BENCH_DIR) -> list[str]:
    names = {p.stem for p in bench_dir.glob("*.py") if p.stem not in NOT_BENCHES}
    known = [n for n in ORDER if n in names]
    return known + sorted(names - set(known))


def is_soak(name: str) -> bool:
    return name.endswith("_soak")


def select(names: list[str], *, soak: bool, only: list[str]) -> list[str]:
    if only:
        unknown = [n for n in only if n not in names]
        if unknown:
            raise SystemExit(f"unknown bench {', '.join(unknown)}; have: {', '.join(names)}")
        return [n for n in names if n in only]
    return [n for n in names if soak or not is_soak(n)]


def _seconds(value: object) -> list[float]:
    if isinstance(value, list | tuple):
        return [float(v) for v in value if number(v) is not None]
    return []


def normalise(module: str, raw: dict[str, Any]) -> Figure:
    """One module's figure dict in whatever dialect it speaks → a :class:`Figure`."""
    extra = dict(raw.get("extra") or {})
    runs = raw.get("runs", raw.get("times", raw.get("samples")))
    baseline = raw.get("baseline", "")
    baseline_runs = raw.get("baseline_runs")
    # Soak modules report how many trials they ran as an integer "runs".
    if number(runs) is not None:
        extra.setdefault("cases", int(runs))
    if number(baseline_runs) is not None:
        extra.setdefault("baseline_cases", int(baseline_runs))
    if isinstance(baseline, dict):
        baseline_runs = baseline.get("runs", baseline_runs)
        baseline = baseline.get("name", "")
    return Figure(
        module=module,
        name=str(raw.get("name") or raw.get("figure") or "(unnamed)"),
        runs=_seconds(runs),
        baseline="" if number(baseline) is not None else str(baseline),
        baseline_runs=_seconds(baseline_runs),
        goals=tuple(from_json(goal) for goal in raw.get("goals") or ()),
        value=number(raw.get("value")),
        baseline_value=number(baseline),
        unit=str(raw.get("unit", "")),
        met=raw["met"] if isinstance(raw.get("met"), bool) else None,
        extra=extra,
    )


# ---------------------------------------------------------------- running


def run_module(name: str, timeout: float) -> Outcome:
    """Run ``bench.<name>.figures()`` in a child process and collect its figures."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"waymark-bench-{name}-") as tmp:
        out, log = Path(tmp) / "figures.json", Path(tmp) / "output.log"
        path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
        env = dict(os.environ, PYTHONPATH=path)
        cmd = [sys.executable, "-m", "bench.harness", "--child", name, str(out)]
        with log.open("wb") as sink:
            # Its own session, so a timeout ends the bench and every process it started.
            child = subprocess.Popen(
                cmd, cwd=ROOT, env=env, stdout=sink, stderr=sink, start_new_session=True
            )
            try:
                code = child.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(child.pid, signal.SIGKILL)
                child.wait()
                code = None
        seconds = time.monotonic() - started
        tail = " / ".join(log.read_text(errors="replace").strip().splitlines()[-6:])
        if code is None:
            return Outcome(name, seconds, error=f"timed out after {timeout:.0f} s; {tail}")
        if code != 0 or not out.exists():
            return Outcome(name, seconds, error=f"exit {code}: {tail}")
        raws = json.loads(out.read_text())
    if not isinstance(raws, list):
        return Outcome(name, seconds, error=f"figures() returned {type(raws).__name__}, not list")
    return Outcome(name, seconds, [normalise(name, r) for r in raws if isinstance(r, dict)])


def _child(name: str, out: Path) -> None:
    module = importlib.import_module(f"bench.{name}")
    raws = module.figures()
    out.write_text(json.dumps(raws, default=_jsonable))


def _jsonable(value: object) -> object:
    if isinstance(value, Goal | Condition):
        return to_json(value)
    return str(value)


def _byte_compile() -> None:
    """Byte-compile the ``waymark`` the benches run, as pip does at install. Without it a
    machine with PYTHONDONTWRITEBYTECODE set compiles every module from source at each start
    of a door, while the baselines' packages were compiled when installed."""
    import compileall

    import waymark

    compileall.compile_dir(os.path.dirname(waymark.__file__), quiet=1)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        _child(argv[1], Path(argv[2]))
        return 0
    parser = argparse.ArgumentParser(prog="bench/run", description=__doc__.splitlines()[0])
    parser.add_argument("--soak", action="store_true", help="also run the *_soak modules")
    parser.add_argument(
        "--only", action="append", default=[], metavar="NAME", help="run only these modules"
    )
    parser.add_argument("--output", type=Path, default=RESULTS, help="markdown to rewrite")
    args = parser.parse_args(argv)
    only = [n for value in args.only for n in value.split(",") if n]
    names = select(discover(), soak=args.soak, only=only)
    command = shlex.join([os.environ.get("BENCH_PROG", "python -m bench"), *argv])
    date = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    started = time.monotonic()
    _byte_compile()
    outcomes = []
    for name in names:
        print(f"▸ {name} …", flush=True)
        outcome = run_module(name, TIMEOUT[is_soak(name)])
        status = f"error: {outcome.error}" if outcome.error else f"{len(outcome.figures)} figures"
        print(f"  {outcome.seconds:.1f} s, {status}", flush=True)
        outcomes.append(outcome)
    seconds = time.monotonic() - started
    # bench.report reads this module's Figure and Outcome, so it is imported once they exist.
    from bench.report import render_markdown, render_table, row, soak_row

    figures = [f for o in outcomes for f in o.figures]
    print()
    print(render_table(row(f) for f in figures if not is_soak(f.module)))
    if any(is_soak(f.module) for f in figures):
        print()
        print(render_table(soak_row(f) for f in figures if is_soak(f.module)))
    markdown = render_markdown(outcomes, machine_info(), command, date, seconds)
    args.output.write_text(markdown, encoding="utf-8")
    print(f"\n{len(names)} modules in {seconds:.0f} s; wrote {args.output}")
    return 1 if any(o.error for o in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())

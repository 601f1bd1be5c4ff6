"""How a bench run reads: the terminal tables and bench/results.md, from the figures
:mod:`bench.harness` collected."""

from __future__ import annotations

import json
from collections.abc import Iterable

from bench.goals import (
    describe,
    show_number,
    verdict,
)
from bench.harness import Figure, Outcome, is_soak


def fmt_seconds(s: float | None) -> str:
    if s is None:
        return "—"
    if s < 1e-3:
        return f"{s * 1e6:.0f} µs"
    if s < 1:
        return f"{s * 1e3:.3g} ms"
    return f"{s:.3g} s"


def _fmt(fig: Figure, x: float | None, *, timed: bool) -> str:
    if x is None:
        return "—"
    if timed or fig.unit == "s":
        return fmt_seconds(x)
    return f"{show_number(x)} {fig.unit}".rstrip()


def row(fig: Figure) -> dict[str, str]:
    timed = fig.timed
    ratio = fig.ratio
    return {
        "figure": fig.name,
        "n": str(len(fig.runs)) if timed else "—",
        "median": _fmt(fig, fig.median, timed=timed),
        "min": fmt_seconds(min(fig.runs)) if timed else "—",
        "max": fmt_seconds(max(fig.runs)) if timed else "—",
        "baseline": fig.baseline or "—",
        "baseline median": _fmt(fig, fig.baseline_median, timed=timed),
        "ratio": "—" if ratio is None else f"{ratio:.2f}×" if ratio >= 0.1 else f"{ratio:.2g}×",
        "goal": describe(fig.goals) or "—",
        "status": verdict(fig),
    }


def soak_row(fig: Figure) -> dict[str, str]:
    extra = fig.extra

    def count(*keys: str) -> str:
        for key in keys:
            if key in extra:
                v = extra[key]
                return str(len(v)) if isinstance(v, list | tuple | dict) else str(v)
        return "—"

    return {
        "figure": fig.name,
        "cases": count("cases", "trials"),
        "failures": count("failures", "failed", "mismatches"),
        "data lost": count("data_lost", "lost", "torn"),
        "goal": describe(fig.goals) or "—",
        "status": verdict(fig),
    }


def render_table(rows: Iterable[dict[str, str]]) -> str:
    rows = list(rows)
    if not rows:
        return "(no figures)"
    widths = {k: max(len(k), *(len(r[k]) for r in rows)) for k in rows[0]}
    lines = ["  ".join(k.ljust(w) for k, w in widths.items())]
    lines.append("  ".join("-" * w for w in widths.values()))
    lines += ["  ".join(r[k].ljust(w) for k, w in widths.items()) for r in rows]
    return "\n".join(lines)


def _md_table(rows: list[dict[str, str]]) -> str:
    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    head = list(rows[0])
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(cell(r[k]) for k in head) + " |" for r in rows]
    return "\n".join(out)


def _short(value: object, limit: int = 160) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render_markdown(
    outcomes: list[Outcome], machine: dict[str, str], command: str, date: str, seconds: float
) -> str:
    figures = [f for o in outcomes for f in o.figures]
    normal = [f for f in figures if not is_soak(f.module)]
    soak = [f for f in figures if is_soak(f.module)]
    soak_seconds = sum(o.seconds for o in outcomes if is_soak(o.module))
    wall = f"{seconds:.0f} s"
    if soak_seconds:
        wall += f" ({seconds - soak_seconds:.0f} s without the soak modules)"
    out = [
        "# Waymark benchmarks",
        "",
        "Written by `bench/run` from a real run; do not edit by hand. Every time is measured "
        "side by side with its baseline in the same run, on a noisy shared machine: read the "
        "**ratio**, not the absolute times.",
        "",
        f"- Command: `{command}`",
        f"- Date: {date}",
        f"- Wall time: {wall}",
        "",
        "## Machine",
        "",
        _md_table([{"": k, "value": v} for k, v in machine.items()]),
        "",
        "## Figures",
        "",
        "median / min / max over n runs; ratio = median ÷ baseline median.",
        "",
        _md_table([row(f) for f in normal]) if normal else "No figures in this run.",
        "",
        "## Soak runs",
        "",
    ]
    if soak:
        out.append(_md_table([soak_row(f) for f in soak]))
    elif any(is_soak(o.module) for o in outcomes):
        out.append("Every soak module failed; see Errors.")
    else:
        out.append("Not run by this command (pass `--soak`).")
    details = [f for f in figures if f.extra]
    if details:
        out += ["", "## Details", ""]
        out += [f"- **{f.name}**: {_short(f.extra, 600)}" for f in details]
    out += ["", "## Modules", ""]
    out.append(
        _md_table(
            [
                {
                    "module": o.module,
                    "seconds": f"{o.seconds:.1f}",
                    "figures": str(len(o.figures)),
                    "error": o.error or "",
                }
                for o in outcomes
            ]
        )
        if outcomes
        else "No bench modules ran."
    )
    return "\n".join(out) + "\n"

"""History that stays small: journal bytes per turn, resume cost, the disk budget, compaction.

Every history here is built through the real store (``History``: backups, journal appends,
eviction, compaction), then measured:

- 2,000 turns over 500 tracked files (3 edited per turn), 100 kept: journal bytes appended
  per turn and the journal's size, then resume (``History.open``) in fresh processes: time
  and peak RSS (VmHWM). The baseline is a fresh process that only imports
  ``waymark.history`` and reads the journal's bytes: the ratio is what replaying costs.
- 200 turns × 3 files × 20 KB with a 1 MB budget: the directory's largest size, and whether
  the oldest kept turn rewinds byte-exactly.
- 600 turns keeping 3: the journal's largest size over its size after 20 turns.

    python bench/history_scale.py [--turns N] [--files F] [--keep K]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "language_server"))
sys.path.insert(0, str(ROOT))  # for bench.goals when run as a script
from bench.goals import Condition, Goal  # noqa: E402
from bench.machine import bytes_under  # noqa: E402

from waymark.store.files import atomic_write, digest  # noqa: E402
from waymark.store.history import History, history_workspace  # noqa: E402

RESUMES = 5


def _write(history: History, path: Path, data: bytes) -> None:
    with history.lock:
        history.track_edit(path)
        atomic_write(path, data)
        history.record_write(path, digest(data))


def build_large(base: Path, turns: int, files: int, keep: int) -> dict[str, Any]:
    """``turns`` turns over ``files`` tracked files, a few edited per turn."""
    ws = base / "ws"
    ws.mkdir()
    paths = [ws / f"d{n % 20}" / f"f{n}.txt" for n in range(files)]
    for path in paths:
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(f"file {path.name}\n".encode() * 20)
    history = History.open(
        base / "h", history_workspace(base / "h", [ws]), session="bench", max_snapshots=keep
    )
    # Every file tracked in the first turn, so each later snapshot records all of them.
    history.make_snapshot("t0")
    for path in paths:
        _write(history, path, path.read_bytes() + b"tracked\n")
    # Snapshots reuse a backup only for files already older than the racy window.
    time.sleep(2.1)
    rng = random.Random(5)
    journal = history.dir / "journal.jsonl"
    peak = appended = 0
    last = journal.stat().st_size
    start = time.perf_counter()
    for turn in range(1, turns):
        history.make_snapshot(f"t{turn}")
        for path in rng.sample(paths, 3):
            _write(history, path, path.read_bytes()[:200] + f"turn {turn}\n".encode())
        size = journal.stat().st_size
        # A compaction shrinks the file; what the turn appended is the growth otherwise.
        appended += max(size - last, 0)
        last = size
        peak = max(peak, size)
    build_s = time.perf_counter() - start
    usage = history.usage()
    history.close()
    return {
        "ws": ws,
        "root": base / "h",
        "journal_bytes": usage.journal_bytes,
        "journal_bytes_per_turn": appended // max(turns - 1, 1),
        "journal_peak_bytes": peak,
        "kept": usage.turns,
        "build_s": round(build_s, 1),
    }


def resume_child(ws: Path, root: Path, keep: int) -> dict[str, Any]:
    start = time.perf_counter()
    history = History.open(root, history_workspace(root, [ws]), max_snapshots=keep)
    seconds = time.perf_counter() - start
    return {"s": seconds, "turns": len(history.turns()), "peak_rss_mb": _hwm_mb()}


def baseline_child(root: Path) -> dict[str, Any]:
    start = time.perf_counter()
    for journal in root.glob("ws-*/journal.jsonl"):
        journal.read_bytes()
    return {"s": time.perf_counter() - start, "peak_rss_mb": _hwm_mb()}


def _hwm_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _child(*args: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", *args], check=True, capture_output=True, text=True
    )
    return dict(json.loads(out.stdout))


def budget_run(base: Path, turns: int = 200, budget: int = 1 << 20) -> dict[str, Any]:
    ws = base / "budget-ws"
    ws.mkdir()
    history = History.open(
        base / "budget-h",
        history_workspace(base / "budget-h", [ws]),
        session="bench",
        max_bytes=budget,
    )
    rng = random.Random(9)
    moments: dict[str, dict[str, bytes]] = {}
    peak = 0
    for turn in range(turns):
        moments[f"t{turn}"] = {p.name: p.read_bytes() for p in ws.iterdir()}
        history.make_snapshot(f"t{turn}")
        for name in ("a.bin", "b.bin", "c.bin"):
            _write(history, ws / name, rng.randbytes(20_000))
        peak = max(peak, bytes_under(history.dir))
    oldest = history.turns()[0].prompt_id
    kept = len(history.turns())
    result = history.rewind(oldest)
    exact = {p.name: p.read_bytes() for p in ws.iterdir()} == moments[oldest] and not result.keys(
        "conflict", "failed"
    )
    return {"peak_bytes": peak, "budget": budget, "kept": kept, "oldest": oldest, "exact": exact}


def compaction_run(base: Path, turns: int = 600, keep: int = 3) -> dict[str, Any]:
    ws = base / "compact-ws"
    ws.mkdir()
    history = History.open(
        base / "compact-h",
        history_workspace(base / "compact-h", [ws]),
        session="bench",
        max_snapshots=keep,
    )
    journal = history.dir / "journal.jsonl"
    at_20 = peak = 0
    for turn in range(turns):
        history.make_snapshot(f"t{turn}")
        for name in ("a.txt", "b.txt", "c.txt"):
            _write(history, ws / name, f"{name} {turn}\n".encode() * 20)
        size = journal.stat().st_size
        if turn == 19:
            at_20 = size
        if turn >= 19:
            peak = max(peak, size)
    history.close()
    resumed = History.open(
        base / "compact-h", history_workspace(base / "compact-h", [ws]), max_snapshots=keep
    )
    newest = resumed.turns()[-1].prompt_id
    return {"at_20": at_20, "peak": peak, "ratio": peak / at_20, "newest": newest}


def figures(turns: int = 2000, files: int = 500, keep: int = 100) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="waymark-history-scale-") as tmp:
        base = Path(tmp)
        large = build_large(base, turns, files, keep)
        resumes = [_child("resume", str(large["ws"]), str(large["root"]), str(keep))]
        resumes += [
            _child("resume", str(large["ws"]), str(large["root"]), str(keep))
            for _ in range(RESUMES - 1)
        ]
        baselines = [_child("baseline", str(large["root"])) for _ in range(RESUMES)]
        budget = budget_run(base)
        compaction = compaction_run(base)
    peak_rss = max(r["peak_rss_mb"] for r in resumes)
    return [
        {
            "name": f"history resume after {turns:,} turns × {files} files, {keep} kept",
            "runs": [r["s"] for r in resumes],
            "baseline": "fresh process: import waymark.store.history + read the journal's bytes",
            "baseline_runs": [b["s"] for b in baselines],
            "goals": [
                Goal("median", "≤", 1, "s"),
                Goal("peak_rss_mb", "≤", 100, "MB", label="peak RSS"),
            ],
            "met": peak_rss <= 100 and all(r["turns"] == large["kept"] for r in resumes),
            "extra": {
                "peak_rss_mb": round(peak_rss, 1),
                "baseline_peak_rss_mb": round(max(b["peak_rss_mb"] for b in baselines), 1),
                "journal_bytes": large["journal_bytes"],
                "journal_bytes_per_turn": large["journal_bytes_per_turn"],
                "journal_peak_bytes": large["journal_peak_bytes"],
                "turns_kept": large["kept"],
                "build_s": large["build_s"],
            },
        },
        {
            "name": "history budget: 200 turns × 3 files × 20 KB, 1 MB budget (directory peak)",
            "value": budget["peak_bytes"],
            "unit": "bytes",
            "goals": [
                Goal("value", "≤", budget["budget"], "bytes"),
                Condition("oldest kept turn rewinds byte-exactly"),
            ],
            "met": budget["peak_bytes"] <= budget["budget"] and budget["exact"],
            "extra": budget,
        },
        {
            "name": "history compaction: 600 turns keeping 3 (journal peak ÷ size after 20 turns)",
            "value": round(compaction["ratio"], 2),
            "unit": "×",
            "goals": [Goal("value", "≤", 3, "×"), Condition("resume restores the newest turn")],
            "met": compaction["ratio"] <= 3 and compaction["newest"] == "t599",
            "extra": compaction,
        },
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--files", type=int, default=500)
    parser.add_argument("--keep", type=int, default=100)
    parser.add_argument("--child", nargs="+")
    args = parser.parse_args()
    if args.child:
        kind, *rest = args.child
        if kind == "resume":
            print(json.dumps(resume_child(Path(rest[0]), Path(rest[1]), int(rest[2]))))
        else:
            print(json.dumps(baseline_child(Path(rest[0]))))
        return
    for figure in figures(args.turns, args.files, args.keep):
        print(json.dumps(figure, indent=2, default=str))


if __name__ == "__main__":
    main()

"""File history against a shadow-git checkpoint, side by side in one run.

A generated workspace (5,000 files / 200 MB by default) gets 50 edited files. Waymark's cost
is what history adds to those edits: the 50 backups (``track_edit`` + ``record_write``) and
the next turn's snapshot. The baseline is what a shadow-git checkpointer does: ``git add -A
&& git commit`` of the whole tree, first and incremental, and ``git checkout`` to go back.
Waymark's writes fsync behind (store/flush.py) where git's loose objects and checkouts are
not fsynced at all; the flusher is drained between measurements, off the clock.

diffStats runs over 1,000 changed files in a fresh child process, which reports its peak
RSS (VmHWM), so the bound on memory is measured rather than assumed.

    python bench/history_bench.py [--files N] [--mb M] [--runs R]
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "language_server"))
sys.path.insert(0, str(ROOT))  # for bench.goals when run as a script
from bench.goals import Goal, describe  # noqa: E402

from waymark.commands.history import rewind_json, stats_json  # noqa: E402
from waymark.store import flush  # noqa: E402
from waymark.store.files import atomic_write, digest  # noqa: E402
from waymark.store.history import History, history_workspace  # noqa: E402

GIT = [
    "git",
    "-c",
    "user.name=bench",
    "-c",
    "user.email=bench@example.invalid",
    "-c",
    "gc.auto=0",
    "-c",
    "core.autocrlf=false",
]


def make_workspace(ws: Path, files: int, total_mb: int, seed: int = 1) -> list[Path]:
    """``files`` text files of random base64 lines, ``total_mb`` in all, 100 per directory."""
    rng = random.Random(seed)
    size = total_mb * 1024 * 1024 // files
    paths = []
    for n in range(files):
        path = ws / f"dir{n // 100:03d}" / f"file{n:05d}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        raw = base64.encodebytes(rng.randbytes(size * 3 // 4))
        path.write_bytes(raw[:size])
        paths.append(path)
    return paths


def git(git_dir: Path, ws: Path, *args: str) -> None:
    env = {**os.environ, "GIT_DIR": str(git_dir), "GIT_WORK_TREE": str(ws)}
    subprocess.run([*GIT, *args], cwd=ws, env=env, check=True, capture_output=True)


def timed_git(git_dir: Path, ws: Path, *commands: tuple[str, ...]) -> float:
    start = time.perf_counter()
    for args in commands:
        git(git_dir, ws, *args)
    return time.perf_counter() - start


def edit(path: Path, n: int) -> bytes:
    data = path.read_bytes() + f"edit {n}\n".encode()
    return data


def first_commits(ws: Path, base: Path, runs: int) -> list[float]:
    out = []
    for n in range(runs):
        git_dir = base / f"first{n}.git"
        git(git_dir, ws, "init", "-q", "-b", "main")
        out.append(timed_git(git_dir, ws, ("add", "-A"), ("commit", "-q", "-m", "first")))
        if n:
            shutil.rmtree(git_dir)
    return out


def checkpoint_runs(
    ws: Path, base: Path, paths: list[Path], runs: int, edited: int
) -> dict[str, list[float]]:
    """Per run: 50 edits, then history (backups + snapshot, rewind) and git (commit, checkout)."""
    git_dir = base / "first0.git"
    originals = {p: p.read_bytes() for p in paths[:: len(paths) // edited][:edited]}
    times: dict[str, list[float]] = {
        "history": [],
        "track_edit": [],
        "record_write": [],
        "snapshot": [],
        "rewind": [],
        "commit": [],
        "checkout": [],
    }
    for run in range(runs):
        history = History.open(
            base / f"history-{run}",
            history_workspace(base / f"history-{run}", [ws]),
            session="bench",
        )
        history.make_snapshot("t0")
        spent = tracking = 0.0
        for path, before in originals.items():
            new = before + f"edit {run}\n".encode()
            start = time.perf_counter()
            history.track_edit(path)
            tracking += time.perf_counter() - start
            atomic_write(path, new)
            start = time.perf_counter()
            history.record_write(path, digest(new))
            spent += time.perf_counter() - start
        start = time.perf_counter()
        history.make_snapshot("t1")
        snapshot = time.perf_counter() - start
        # The writes' fsyncs run behind (store/flush.py); done here, off the clock, they do
        # not run into the next measurement, Waymark's or git's.
        flush.drain()
        times["history"].append(spent + tracking + snapshot)
        times["track_edit"].append(tracking)
        times["record_write"].append(spent)
        times["snapshot"].append(snapshot)
        start = time.perf_counter()
        result = rewind_json(history, history.rewind("t0"))
        times["rewind"].append(time.perf_counter() - start)
        flush.drain()
        assert len(result["restored"]) == edited, result
        assert all(p.read_bytes() == b for p, b in originals.items())
        # The same 50 edits, checkpointed and undone by git.
        for path, before in originals.items():
            path.write_bytes(before + f"edit {run}\n".encode())
        times["commit"].append(
            timed_git(git_dir, ws, ("add", "-A"), ("commit", "-q", "-m", f"run {run}"))
        )
        times["checkout"].append(timed_git(git_dir, ws, ("checkout", "-q", "-f", "HEAD~1")))
        assert all(p.read_bytes() == b for p, b in originals.items())
        git(git_dir, ws, "checkout", "-q", "-B", "main", "HEAD")
    return times


def diffstats_child(ws: Path, history_root: Path) -> dict[str, Any]:
    """Run in a fresh process: resume the session, run diffStats, report time and peak RSS."""
    rss_start = _status_kb("VmRSS")
    start = time.perf_counter()
    history = History.open(history_root, history_workspace(history_root, [ws]), session="stats")
    resume = time.perf_counter() - start
    rss_open = _status_kb("VmRSS")
    runs = []
    result: dict[str, Any] = {}
    for _ in range(5):
        start = time.perf_counter()
        result = stats_json(history, "t0")
        runs.append(time.perf_counter() - start)
    return {
        "runs": runs,
        "resume_s": resume,
        "files_changed": result["filesChanged"],
        "insertions": result["insertions"],
        "deletions": result["deletions"],
        "rss_start_mb": rss_start / 1024,
        "rss_after_open_mb": rss_open / 1024,
        "peak_rss_mb": _status_kb("VmHWM") / 1024,
    }


def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def diffstats_runs(
    ws: Path, base: Path, paths: list[Path], changed: int
) -> tuple[dict[str, Any], list[float]]:
    history = History.open(
        base / "history", history_workspace(base / "history", [ws]), session="stats"
    )
    history.make_snapshot("t0")
    rng = random.Random(7)
    targets = paths[:changed]
    for n, path in enumerate(targets):
        lines = path.read_bytes().splitlines(keepends=True)
        for _ in range(3):
            lines[rng.randrange(len(lines))] = f"changed {n}\n".encode()
        lines.insert(rng.randrange(len(lines)), b"inserted\n")
        new = b"".join(lines)
        history.track_edit(path)
        atomic_write(path, new)
        history.record_write(path, digest(new))
    proc = subprocess.run(
        [sys.executable, __file__, "--diffstats-child", str(ws), str(base / "history")],
        check=True,
        capture_output=True,
        text=True,
    )
    child = json.loads(proc.stdout)
    git_dir = base / "first0.git"
    baseline = [timed_git(git_dir, ws, ("diff", "--numstat")) for _ in range(5)]
    history.rewind("t0")
    return child, baseline


def figures(files: int = 5000, total_mb: int = 200, runs: int = 5) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="waymark-history-bench-") as tmp:
        base = Path(tmp)
        ws = base / "ws"
        ws.mkdir()
        paths = make_workspace(ws, files, total_mb)
        first = first_commits(ws, base, max(3, runs // 2))
        times = checkpoint_runs(ws, base, paths, runs, 50)
        stats, numstat = diffstats_runs(ws, base, paths, min(1000, files))
    label = f"{files:,} files / {total_mb} MB"
    history_median = statistics.median(times["history"])
    return [
        {
            "name": f"history: backups + snapshot of 50 edited files ({label})",
            "runs": times["history"],
            "baseline": "shadow git: git add -A && git commit, incremental after the 50 edits",
            "baseline_runs": times["commit"],
            "goals": [Goal("ratio", "≤", 0.1, "×")],
            "extra": {
                "per_file_ms": round(history_median / 50 * 1000, 3),
                "track_edit_50_ms": _ms(times["track_edit"]),
                "record_write_50_ms": _ms(times["record_write"]),
                "make_snapshot_ms": _ms(times["snapshot"]),
            },
        },
        {
            "name": f"history: backups + snapshot of 50 edited files vs first commit ({label})",
            "runs": times["history"],
            "baseline": "shadow git: git add -A && git commit, first commit of the tree",
            "baseline_runs": first,
            "goals": [Goal("ratio", "≤", 0.002, "×")],
            "extra": {"first_commit_runs": len(first)},
        },
        {
            "name": "history: rewind of the 50 files (atomic writes, fsynced behind)",
            "runs": times["rewind"],
            "baseline": "git checkout -f <previous commit>",
            "baseline_runs": times["checkout"],
            "goals": [Goal("ratio", "≤", 1, "×")],
            "extra": {
                "note": "rewind includes its undo snapshot and per-file conflict checks; its "
                "fsyncs run after it returns (WAYMARK_DURABILITY=sync: before)"
            },
        },
        {
            "name": f"history: diffStats over {stats['files_changed']:,} changed files",
            "runs": stats["runs"],
            "baseline": "git diff --numstat of the same changes",
            "baseline_runs": numstat,
            "goals": [
                Goal("ratio", "≤", 1, "×"),
                Goal("peak_rss_mb", "≤", 150, "MB", label="peak RSS"),
            ],
            "met": stats["peak_rss_mb"] <= 150,
            "extra": {
                "peak_rss_mb": round(stats["peak_rss_mb"], 1),
                "rss_after_resume_mb": round(stats["rss_after_open_mb"], 1),
                "resume_s": round(stats["resume_s"], 3),
                "insertions": stats["insertions"],
                "deletions": stats["deletions"],
            },
        },
    ]


def _ms(runs: list[float]) -> float:
    return round(statistics.median(runs) * 1000, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--mb", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--diffstats-child", nargs=2, metavar=("WS", "HISTORY"))
    args = parser.parse_args()
    if args.diffstats_child:
        ws, root = (Path(p) for p in args.diffstats_child)
        print(json.dumps(diffstats_child(ws, root)))
        return
    rows = figures(args.files, args.mb, args.runs)
    print(f"{'figure':<74} {'median':>10} {'baseline':>10} {'ratio':>8}  goal")
    for row in rows:
        med = statistics.median(row["runs"])
        base = statistics.median(row["baseline_runs"])
        print(
            f"{row['name']:<74} {med * 1000:>8.1f}ms {base * 1000:>8.1f}ms "
            f"{med / base:>7.4f}×  {describe(row['goals'])}"
        )
        for key, value in row["extra"].items():
            print(f"    {key}: {value}")


if __name__ == "__main__":
    main()

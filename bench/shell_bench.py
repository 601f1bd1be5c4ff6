"""Shell tracking's cost per command, side by side with the command and with ``git status``.

A generated git work tree (5,000 files / 200 MB by default, committed) runs a command that
appends to one file. Measured in one run, each ``--runs`` times:

- the command alone (``sh -c 'printf … >> file'``),
- ``git status --porcelain`` on the same tree (the baseline: what any git-aware tool pays),
- the tracking around it in-process (``begin`` + ``finish``: scan, diff, record into the
  turn) — what the hooks add besides starting Python,
- ``waymark run -- COMMAND`` end to end (a fresh process, like a hook),
- the same tracking on the tree without git (a bounded stat walk and the pre-image cache),

and the history bytes one tracked turn adds (journal + blobs + the shell cache).

    python bench/shell_bench.py [--files N] [--mb M] [--runs R]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR.parent / "language_server"))
sys.path.insert(0, str(BENCH_DIR))
sys.path.insert(0, str(BENCH_DIR.parent))  # for bench.goals when run as a script
from bench.goals import Goal  # noqa: E402
from bench.machine import bytes_under  # noqa: E402

from history_bench import make_workspace  # noqa: E402
from waymark.store.history import History, history_workspace  # noqa: E402
from waymark.store.shelltrack.track import begin, finish  # noqa: E402

GIT_ENV = {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}
GIT = ["git", "-c", "user.email=b@example.com", "-c", "user.name=b"]


def _time(fn: Any) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _tracked_runs(ws: Path, history: History, target: Path, runs: int) -> tuple[list[float], int]:
    script = f"printf 'x\\n' >> {target}"
    times: list[float] = []
    grown = 0
    # Without git the first commands copy the folder a part at a time (docs/history.md,
    # `not_backed_up_yet`): warm up until the cache holds the target, then time steady state.
    for n in range(-20, 0):
        history.make_snapshot(f"warm-{ws.name}-{n}")
        begin(history, f"w{n}", command=script, cwd=ws)
        subprocess.run(["sh", "-c", script], cwd=ws, check=True)
        warm = finish(history, f"w{n}")
        if warm is not None and warm.modified:
            break
    for n in range(runs + 1):
        before = bytes_under(history.dir)
        history.make_snapshot(f"turn-{ws.name}-{n}")
        start = time.perf_counter()
        begin(history, f"c{n}", command=script, cwd=ws)
        middle = time.perf_counter()
        subprocess.run(["sh", "-c", script], cwd=ws, check=True)
        resumed = time.perf_counter()
        report = finish(history, f"c{n}")
        end = time.perf_counter()
        assert report is not None and report.modified, report
        if n:  # the first run fills caches (page cache, git's stat data): not steady state
            times.append((middle - start) + (end - resumed))
            grown = max(grown, bytes_under(history.dir) - before)
    return times, grown


def figures(files: int = 5000, mb: int = 200, runs: int = 5) -> list[dict[str, Any]]:
    tmp = Path(tempfile.mkdtemp(prefix="shell-bench-"))
    try:
        ws = tmp / "ws"
        paths = make_workspace(ws, files, mb)
        subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
        subprocess.run([*GIT, "add", "-A"], cwd=ws, check=True)
        subprocess.run([*GIT, "commit", "-qm", "tree"], cwd=ws, check=True)
        target = paths[len(paths) // 2]
        script = f"printf 'x\\n' >> {target}"

        def command() -> None:
            subprocess.run(["sh", "-c", script], cwd=ws, check=True)

        def status() -> None:
            subprocess.run(
                ["git", "status", "--porcelain"],
                cwd=ws,
                env=GIT_ENV,
                check=True,
                capture_output=True,
            )

        status()
        command_runs = [_time(command) for _ in range(runs)]
        status_runs = [_time(status) for _ in range(runs)]
        history = History.open(
            tmp / "history", history_workspace(tmp / "history", [ws]), session="bench"
        )
        tracked, grown = _tracked_runs(ws, history, target, runs)
        history.close()

        env = {**os.environ, "XDG_STATE_HOME": str(tmp / "state")}
        run_cmd = [sys.executable, "-m", "waymark", "run", "--", "sh", "-c", script]
        waymark_run = [
            _time(lambda: subprocess.run(run_cmd, cwd=ws, env=env, check=True, capture_output=True))
            for _ in range(runs)
        ]

        plain = tmp / "plain"
        shutil.copytree(ws, plain, ignore=shutil.ignore_patterns(".git"))
        # Every copied file's ctime is now, and a copy made within two seconds of a file's
        # last change is not trusted later (the racy-stat rule, as git's index has it), so
        # warming up at once would leave the timed calls re-reading files at random. A real
        # session's tree is older than that: let this one age past the window first.
        time.sleep(2.1)
        plain_history = History.open(
            tmp / "history-plain",
            history_workspace(tmp / "history-plain", [plain]),
            session="bench",
        )
        plain_target = plain / target.relative_to(ws)
        walk_runs, walk_grown = _tracked_runs(plain, plain_history, plain_target, runs)
        plain_history.close()

        tree = {"files": files, "mb": mb}
        return [
            {
                "name": f"shell tracking: begin+finish, 1-file command, git tree ({files} files)",
                "runs": tracked,
                "baseline": "git status --porcelain on the same tree",
                "baseline_runs": status_runs,
                "goals": [Goal("ratio", "≤", 3, "×")],
                "extra": {
                    **tree,
                    "command_alone_median_s": sorted(command_runs)[len(command_runs) // 2],
                    "history_bytes_per_turn": grown,
                },
            },
            {
                "name": "shell tracking: begin+finish vs the command itself (git tree)",
                "runs": tracked,
                "baseline": "sh -c 'printf x >> file' (the command alone)",
                "baseline_runs": command_runs,
                "extra": tree,
            },
            {
                "name": "shell tracking: `waymark run -- CMD` end to end (fresh process, git tree)",
                "runs": waymark_run,
                "baseline": "the command alone",
                "baseline_runs": command_runs,
                "extra": tree,
            },
            {
                "name": "shell tracking: begin+finish, same tree without git (stat walk + cache)",
                "runs": walk_runs,
                "baseline": "git status --porcelain on the git tree",
                "baseline_runs": status_runs,
                "extra": {**tree, "history_bytes_per_turn": walk_grown},
            },
        ]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--mb", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    for figure in figures(args.files, args.mb, args.runs):
        runs, base = sorted(figure["runs"]), sorted(figure["baseline_runs"])
        median, base_median = runs[len(runs) // 2], base[len(base) // 2]
        print(
            json.dumps(
                {
                    "name": figure["name"],
                    "median_s": round(median, 4),
                    "baseline": figure["baseline"],
                    "baseline_median_s": round(base_median, 4),
                    "ratio": round(median / base_median, 2),
                    **figure.get("extra", {}),
                }
            )
        )


if __name__ == "__main__":
    main()

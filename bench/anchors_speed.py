"""Throughput of anchored reads and edits on a 200,000-line, ~8 MB file, against ``xxhsum``.

``read``: decode the bytes, ``annotate`` every line, ``render`` the model text.
``edit``: plan a three-operation batch on the decoded file and encode the result.
``page`` / ``full read`` / ``one-line edit`` (issue 43): what an agent feels through the CLI,
a read of the first 100 lines with hashes, of the whole file with hashes, and a one-line
anchored edit (history on), on the 200,000-line file against the same request on a 100-line
file plus ``xxhsum`` of the big file.
The floor is ``xxhsum`` (Debian package ``xxhash``) hashing the same file, timed in the same
run; the figure that matters is the ratio.
The figures with goals run the path the product runs: the compiled core when it is built
(waymark.engine._core). The same read and edit on the pure-Python path (what a machine without
a C compiler runs, or ``WAYMARK_PURE_PYTHON=1``) are timed in the same loop, as rows without
a goal.

Usage: PYTHONPATH=language_server python bench/anchors_speed.py [RUNS]
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for bench.goals when run as a script
from bench.goals import Goal, describe

from waymark.commands.edit_ops import parse_operations
from waymark.engine import core
from waymark.engine.anchors import annotate, render
from waymark.engine.edits.anchored import plan_anchored_edit
from waymark.engine.text import TextFile

LINES = 200_000
GOALS = [Goal("ratio", "≤", 40, "×")]
_WORDS = ["self", "value", "result", "items", "config", "path", "name", "data", "key"]


def make_file(lines: int = LINES, seed: int = 7) -> bytes:
    """Python-looking code with the usual share of blank, brace and repeated lines."""
    rng = random.Random(seed)
    out = []
    for n in range(lines):
        indent = "    " * rng.randint(0, 3)
        roll = rng.random()
        if roll < 0.10:
            out.append("")
        elif roll < 0.14:
            out.append(indent + rng.choice(["return None", "pass", "else:", ")", "]", "}"]))
        else:
            words = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(3, 6)))
            out.append(f"{indent}{words.replace(' ', '_', 1)} = compute({n}, {rng.random():.6f})")
    return ("\n".join(out) + "\n").encode()


def cli_files() -> dict[str, bytes]:
    """The CLI rows' two files: the 200k-line one and the 100-line one it is measured against
    (bench/compare's side-by-side scripts take the same bytes)."""
    return {"big.py": make_file(), "small.py": make_file(100, seed=8)}


def _times(fn: Callable[[], object], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        out.append(time.perf_counter() - started)
    return out


def _xxhsum() -> str:
    found = shutil.which("xxhsum")
    if found is None:
        sys.exit("xxhsum is missing: apt-get install -y xxhash")
    return found


def _cli(root: Path, *args: str, pure: bool = False) -> str:
    command = [sys.executable, "-m", "waymark", *args, "--root", str(root)]
    env = {**os.environ, "WAYMARK_PURE_PYTHON": "1" if pure else ""}
    return subprocess.run(command, check=True, capture_output=True, text=True, env=env).stdout


# The CLI rows: (key, name, goals). The same requests on the pure-Python path are timed in the
# same loop, as rows without a goal.
_CLI_ROWS = [
    (
        "page",
        "paged read (first 100 lines, hashes) of a 200k-line file, CLI",
        [Goal("ratio", "≤", 1.2, "×")],
    ),
    # What `waymark read --hashes` of the whole file costs over the CLI's own start (which the
    # small file's run holds); informational, the engine rows carry goals.
    ("full", "full read (hashes) of a 200k-line file, CLI", []),
    (
        "edit",
        "one-line anchored edit of a 200k-line file, CLI (history on)",
        [Goal("ratio", "≤", 1.2, "×")],
    ),
]


def _agent_figures(runs: int, xxhsum: str) -> list[dict[str, Any]]:
    """A page and a one-line edit through the CLI: the 200k-line file vs a 100-line one."""
    files = cli_files()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name, data in files.items():
            (root / name).write_bytes(data)

        def page(name: str, pure: bool) -> None:
            _cli(root, "read", name, "--hashes", "--limit", "100", pure=pure)

        def full(name: str, pure: bool) -> None:
            _cli(root, "read", name, "--hashes", pure=pure)

        def one_line_edit(name: str, pure: bool) -> float:
            # A fresh read record each time the file is put back, as an agent would hold.
            (root / name).write_bytes(files[name])
            shown = _cli(root, "read", name, "--hashes", "--limit", "20", pure=pure)
            anchor = next(r.split("|")[0] for r in shown.splitlines() if "~|" not in r)
            ops = json.dumps([{"op": "replace_line", "hash": anchor, "content": "x = 0"}])
            started = time.perf_counter()
            _cli(root, "edit", name, "--ops", ops, pure=pure)
            return time.perf_counter() - started

        timed: dict[tuple[str, str, bool], list[float]] = {}
        hashed: list[float] = []
        for _ in range(runs):
            for name in files:
                for pure in (False, True):
                    timed.setdefault(("page", name, pure), []).extend(
                        _times(partial(page, name, pure), 1)
                    )
                    timed.setdefault(("full", name, pure), []).extend(
                        _times(partial(full, name, pure), 1)
                    )
                    timed.setdefault(("edit", name, pure), []).append(one_line_edit(name, pure))
            hashed += _times(
                partial(
                    subprocess.run,
                    [xxhsum, str(root / "big.py")],
                    check=True,
                    stdout=subprocess.DEVNULL,
                ),
                1,
            )
    extra = {
        "lines": LINES,
        "bytes": len(files["big.py"]),
        "cpus": os.cpu_count(),
        "core": _core_name(),
    }
    rows = []
    for pure in (False, True):
        for key, name, goals in _CLI_ROWS:
            small_runs = sorted(timed[(key, "small.py", pure)])
            rows.append(
                {
                    "name": f"{name}, pure-Python path" if pure else name,
                    "runs": timed[(key, "big.py", pure)],
                    "baseline": "the same on a 100-line file + xxhsum of the big file",
                    "baseline_runs": [
                        a + b for a, b in zip(small_runs, sorted(hashed), strict=True)
                    ],
                    "goals": [] if pure else goals,
                    "extra": {**extra, "core": "pure Python"} if pure else extra,
                }
            )
    return rows


def figures(runs: int = 7) -> list[dict[str, Any]]:
    data = make_file()
    xxhsum = _xxhsum()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.py"
        path.write_bytes(data)

        def floor() -> None:
            subprocess.run([xxhsum, str(path)], check=True, capture_output=True)

        def read() -> None:
            render(annotate(TextFile.decode(path.read_bytes())))

        tf = TextFile.decode(data)
        anchored = annotate(tf)
        picks = [a for a in anchored if a.quality == "high"]
        first, middle, last = picks[10], picks[len(picks) // 2], picks[-10]
        ops = parse_operations(
            [
                {"op": "replace_line", "hash": first.hash, "content": "changed = 1"},
                {"op": "insert_after", "hash": middle.hash, "content": "inserted = 2\nmore = 3"},
                {"op": "delete_line", "hash": last.hash},
            ]
        )

        def edit() -> None:
            plan_anchored_edit(tf, ops).encode(data)

        floor()  # warm the page cache and the binary
        floor_runs, read_runs, edit_runs, pure_read, pure_edit = [], [], [], [], []
        for _ in range(runs):  # interleaved, so load on the machine hits them all alike
            floor_runs += _times(floor, 1)
            read_runs += _times(read, 1)
            edit_runs += _times(edit, 1)
            with core.using(None):
                pure_read += _times(read, 1)
                pure_edit += _times(edit, 1)
    extra = {"lines": LINES, "bytes": len(data), "core": _core_name()}
    pure_extra = {**extra, "core": "pure Python"}
    return [
        {
            "name": "read with hashes, 200k lines (decode+annotate+render)",
            "runs": read_runs,
            "baseline": "xxhsum of the file",
            "baseline_runs": floor_runs,
            "goals": GOALS,
            "extra": extra,
        },
        {
            "name": "anchored edit, 200k lines (plan 3 ops+encode)",
            "runs": edit_runs,
            "baseline": "xxhsum of the file",
            "baseline_runs": floor_runs,
            "goals": GOALS,
            "extra": extra,
        },
        {
            "name": "read with hashes, 200k lines, pure-Python path",
            "runs": pure_read,
            "baseline": "xxhsum of the file",
            "baseline_runs": floor_runs,
            "goals": [],
            "extra": pure_extra,
        },
        {
            "name": "anchored edit, 200k lines, pure-Python path",
            "runs": pure_edit,
            "baseline": "xxhsum of the file",
            "baseline_runs": floor_runs,
            "goals": [],
            "extra": pure_extra,
        },
        *_agent_figures(max(3, runs // 2), xxhsum),
    ]


def _core_name() -> str:
    return "compiled (waymark.engine._core)" if core.native is not None else "pure Python"


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    print(f"{'figure':58s} {'median':>9s} {'xxhsum':>9s} {'ratio':>7s}  goal")
    for fig in figures(runs):
        mine = statistics.median(fig["runs"])
        base = statistics.median(fig["baseline_runs"])
        print(
            f"{fig['name']:58s} {mine * 1000:7.1f}ms {base * 1000:7.1f}ms "
            f"{mine / base:6.1f}×  {describe(fig['goals'])}"
        )


if __name__ == "__main__":
    main()

"""Replay real code changes through anchored edits, as a careful agent would write them.

Two released versions of real pure-Python packages are downloaded at run time with pip (not
committed). For every ``.py`` file present in both and different, the agent reads the old
file with anchors (``annotate``), turns each difflib hunk into one operation — single-line ops
only on lines that are not low quality, range ends moved outwards past low-quality lines,
inserts anchored on a good neighbor — merges hunks that grew into each other, and sends one
batch per file. A file counts as *exact* when the result is byte-identical to the new
version; *wrong* when the edit applied but the bytes differ; *rejected* when Waymark refused.

Usage: PYTHONPATH=language_server python bench/anchors_replay.py
"""

from __future__ import annotations

import difflib
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for bench.goals when run as a script
from bench.goals import Goal

from waymark.commands.edit import plan_edit
from waymark.commands.edit_ops import parse_operations
from waymark.engine.anchors import LOW, AnchoredLine, annotate
from waymark.engine.edits.from_bytes import plan_from_bytes
from waymark.engine.errors import WaymarkError
from waymark.engine.text import TextFile

PAIRS = (("requests", "2.31.0", "2.32.3"), ("attrs", "22.2.0", "23.2.0"))
GOALS = [Goal("value", "≥", 99, "%")]


def _wheel_sources(package: str, version: str, into: Path) -> dict[str, bytes]:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary",
            ":all:",
            "-q",
            "-d",
            str(into),
            f"{package}=={version}",
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = into.glob(f"{package}-{version}-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        return {n: zf.read(n) for n in zf.namelist() if n.endswith(".py")}


def _regions(old: list[str], new: list[str], anchored: list[AnchoredLine]) -> list[list[int]]:
    """Old-line regions [a, b) to rewrite, grown until their edges are good anchors."""
    good = [a.quality != LOW for a in anchored]
    out: list[list[int]] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, _, _ in matcher.get_opcodes():
        if tag == "equal":
            continue
        a, b = i1, i2
        # A pure insert next to a good line stays an insert.
        if a == b and ((a > 0 and good[a - 1]) or (a < len(old) and good[a])):
            if out and a <= out[-1][1]:
                continue  # already inside the previous region
            out.append([a, b])
            continue
        while a > 0 and (a == b or not good[a]):
            a -= 1
        while b < len(old) and (b == a or not good[b - 1]):
            b += 1
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def _content(
    opcodes: list[tuple[str, int, int, int, int]], new: list[str], a: int, b: int
) -> list[str]:
    """The new lines that old region [a, b) becomes (regions hold whole hunks)."""
    out: list[str] = []
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            out += new[j1 + max(i1, a) - i1 : j1 + min(i2, b) - i1] if i1 < b and a < i2 else []
        elif a <= i1 and i2 <= b:
            out += new[j1:j2]
    return out


def _operations(
    old: list[str], new: list[str], anchored: list[AnchoredLine]
) -> list[dict[str, Any]]:
    opcodes = difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
    ops: list[dict[str, Any]] = []
    for a, b in _regions(old, new, anchored):
        content = _content(opcodes, new, a, b)
        text = "".join(f"{line}\n" for line in content)
        if a == b:
            if a > 0 and anchored[a - 1].quality != LOW:
                ops.append({"op": "insert_after", "hash": anchored[a - 1].hash, "content": text})
            else:
                ops.append({"op": "insert_before", "hash": anchored[a].hash, "content": text})
        elif b - a == 1:
            op: dict[str, Any] = {"hash": anchored[a].hash, "line": a + 1}
            kind = "replace_line" if content else "delete_line"
            ops.append({"op": kind, **op, **({"content": text} if content else {})})
        else:
            ends = {"start_hash": anchored[a].hash, "end_hash": anchored[b - 1].hash}
            kind = "replace_range" if content else "delete_range"
            ops.append({"op": kind, **ends, **({"content": text} if content else {})})
    return ops


def replay(workdir: Path) -> dict[str, Any]:
    tally: dict[str, Any] = {"files": 0, "exact": 0, "wrong": 0, "rejected": 0, "from_bytes": 0}
    tally.update({"hunks": 0, "hunks_exact": 0, "operations": 0, "problems": [], "ops": {}})
    for package, v_old, v_new in PAIRS:
        before = _wheel_sources(package, v_old, workdir / f"{package}-{v_old}")
        after = _wheel_sources(package, v_new, workdir / f"{package}-{v_new}")
        for name in sorted(before.keys() & after.keys()):
            if before[name] == after[name]:
                continue
            old_tf, new_tf = TextFile.decode(before[name]), TextFile.decode(after[name])
            old, new = list(old_tf.lines), list(new_tf.lines)
            hunks = sum(
                tag != "equal"
                for tag, *_ in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
            )
            ops = _operations(old, new, annotate(old_tf))
            tally["files"] += 1
            tally["hunks"] += hunks
            tally["operations"] += len(ops)
            for op in ops:
                tally["ops"][op["op"]] = tally["ops"].get(op["op"], 0) + 1
            # As the command plans it: from the bytes when that answers, else decoded.
            quick = plan_from_bytes(before[name], None, parse_operations(ops))
            tally["from_bytes"] += quick is not None
            try:
                edit = None if quick is not None else plan_edit(old_tf, parse_operations(ops))
            except WaymarkError as exc:
                tally["rejected"] += 1
                tally["problems"].append(f"{package} {name}: {exc.code}: {exc.message}")
                continue
            written = quick.after if quick is not None else edit.encode(before[name])
            if written == after[name]:
                tally["exact"] += 1
                tally["hunks_exact"] += hunks
            else:
                tally["wrong"] += 1
                tally["problems"].append(f"{package} {name}: WRONG RESULT")
    return tally


def figures() -> list[dict[str, Any]]:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        r = replay(Path(tmp))
    seconds = time.perf_counter() - started
    pairs = ", ".join(f"{p} {a}→{b}" for p, a, b in PAIRS)
    kept = ("files", "exact", "wrong", "rejected", "hunks", "operations", "from_bytes")
    extra = {k: r[k] for k in kept}
    extra.update(pairs=pairs, problems=r["problems"][:10], by_op=r["ops"])
    return [
        {
            "name": "real-code replay: hunks applied byte-exactly",
            "runs": [seconds],
            "value": 100.0 * r["hunks_exact"] / max(r["hunks"], 1),
            "unit": "%",
            "baseline": "100",
            "baseline_runs": [],
            "goals": GOALS,
            "met": r["hunks_exact"] >= 0.99 * r["hunks"] and r["wrong"] == 0,
            "extra": {**extra, "files_exact_pct": 100.0 * r["exact"] / max(r["files"], 1)},
        }
    ]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        r = replay(Path(tmp))
    print(
        f"{'files':>6s} {'exact':>6s} {'wrong':>6s} {'rejected':>9s} {'hunks':>6s} {'exact%':>7s}"
    )
    pct = 100.0 * r["hunks_exact"] / max(r["hunks"], 1)
    print(
        f"{r['files']:6d} {r['exact']:6d} {r['wrong']:6d} {r['rejected']:9d} "
        f"{r['hunks']:6d} {pct:6.1f}%"
    )
    print("operations:", ", ".join(f"{k} {v}" for k, v in sorted(r["ops"].items())))
    print(f"files planned from their bytes: {r['from_bytes']}")
    for problem in r["problems"]:
        print("  " + problem)


if __name__ == "__main__":
    main()

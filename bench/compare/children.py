"""What the CLI side-by-side scripts share: a tree's environment, a child's CPU, the
report of big-file ratios."""

import json
import os
import shutil
import statistics
import subprocess
import sys
from collections.abc import Iterable
from typing import Any


def env_of(tree: str, pure: bool) -> dict[str, str]:
    """The environment running ``tree``'s source, on the pure-Python path or the core."""
    return {**os.environ, "PYTHONPATH": tree, "WAYMARK_PURE_PYTHON": "1" if pure else ""}


def cpu(command: list[str], env: dict[str, str]) -> float:
    """CPU ms (user + sys) of ``command`` run to its end, which must succeed."""
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    assert status == 0, command
    return (usage.ru_utime + usage.ru_stime) * 1000


def announce(trees: dict[str, str]) -> str:
    """Print whether each tree's compiled core is built; the path of ``xxhsum``."""
    which = "from waymark.engine import core; print(core.BUILT is not None)"
    for side, tree in trees.items():
        built = subprocess.run(
            [sys.executable, "-c", which],
            env=env_of(tree, False),
            text=True,
            capture_output=True,
            check=True,
        ).stdout.strip()
        print(f"{side}: {tree}, compiled core built: {built}")
    return shutil.which("xxhsum") or sys.exit("xxhsum is missing: apt-get install -y xxhash")


def report(
    times: dict[Any, list[float]], floor: list[float], kinds: Iterable[str], trees: Iterable[str]
) -> None:
    """Per path, kind and tree: the big file's median CPU over the small file's plus
    ``xxhsum`` of the big file, as the bench takes the ratio."""
    print(f"xxhsum of the big file: {statistics.median(floor):.1f} ms")
    for pure in (False, True):
        for kind in kinds:
            for side in trees:
                big = statistics.median(times[(side, pure, kind, "big.py")])
                small = statistics.median(times[(side, pure, kind, "small.py")])
                ratio = big / (small + statistics.median(floor))
                path = "pure" if pure else "core"
                sizes = f"big {big:6.1f} ms, small {small:6.1f} ms"
                print(f"{kind:6s} {path} {side:4s} {sizes}: {ratio:.2f}x")


def interleaved(
    code: str, args: list[str], trees: dict[str, Any], runs: int
) -> dict[str, list[float]]:
    """``python -c code *args`` in each tree's source, tree after tree, ``runs`` rounds: the
    float each child prints last, by tree."""
    samples: dict[str, list[float]] = {name: [] for name in trees}
    for _ in range(runs):
        for name, tree in trees.items():
            done = subprocess.run(
                [sys.executable, "-c", code, *args],
                env={"PYTHONPATH": f"{tree}/language_server", "PATH": "/usr/bin:/bin"},
                capture_output=True,
                text=True,
                check=True,
            )
            samples[name].append(float(done.stdout.splitlines()[-1]))
    return samples


def last_json(code: str, args: list[str], tree: str) -> Any:
    """``python -c code *args`` in ``tree``'s source (this machine's ``TMPDIR`` and ``HOME``
    kept): the JSON value the child prints last."""
    env = {"PYTHONPATH": f"{tree}/language_server", "PATH": "/usr/bin:/bin"}
    env |= {name: os.environ[name] for name in ("TMPDIR", "HOME") if name in os.environ}
    done = subprocess.run(
        [sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.splitlines()[-1])


def medians(samples: dict[str, list[float]], per: str, digits: int) -> None:
    """Each tree's median in µs ``per`` what was timed, its samples, and this / base."""
    for name, values in samples.items():
        shown = " / ".join(f"{v * 1e6:.{digits}f}" for v in values)
        middle = statistics.median(values) * 1e6
        print(f"{name:4} {middle:7.{digits}f} µs per {per} (median; {shown})")
    ratio = statistics.median(samples["this"]) / statistics.median(samples["base"])
    print(f"this / base {ratio:.2f}×")


def one_line_ops(root: Any, name: str, line: int, env: dict[str, str]) -> str:
    """``--ops`` of a one-line ``replace_line`` at or after ``line`` (0-based) of ``root/name``,
    anchored on what ``waymark read`` shows there (the first line with an anchor of its own)."""
    read = [sys.executable, "-m", "waymark", "read", name, "--hashes", "--limit", "20"]
    shown = subprocess.run(
        [*read, "--offset", str(line + 1), "--root", str(root)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    anchor = next(r.split("|")[0] for r in shown.splitlines() if "~|" not in r)
    return json.dumps([{"op": "replace_line", "hash": anchor, "content": "x = 0"}])


def cli_edit(root: Any, name: str, data: bytes, line: int, env: dict[str, str]) -> float:
    """CPU ms of one ``waymark edit`` through the CLI as the bench's one-line edit row runs it:
    ``root/name`` put back to ``data``, a ``read`` for the anchor at ``line``, then the edit."""
    (root / name).write_bytes(data)
    ops = one_line_ops(root, name, line, env)
    command = [sys.executable, "-m", "waymark", "edit", name, "--ops", ops, "--root", str(root)]
    return cpu(command, env)

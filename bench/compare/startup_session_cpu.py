"""CPU ms (user + sys) of ``waymark-ls`` of the base tree and of this tree, interleaved, in two
sessions: spawn → ``initialize`` answered → end of input (the start-up the bench measures),
and spawn → ``initialize`` → ``initialized`` → the first ``waymark.read`` → the first
``waymark.edit`` → ``shutdown`` (what a user's session pays before its first edit is back).
Their difference is what the first requests cost: a start-up made cheaper by moving work to
them shows there. A bare ``import pygls.lsp.server`` runs alongside (the bench's baseline).

Usage: python bench/compare/startup_session_cpu.py BASE_TREE [RUNS]
"""

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(HERE))
from bench.lsp_bench import Connection  # noqa: E402

LS_MAIN = "from waymark.doors.lsp import main; main()"
LINES = 1000


def workspace(base: Path) -> tuple[Path, Path]:
    root, history = base / "ws", base / "history"
    root.mkdir()
    text = "".join(f"value_{i:04d} = {i}\n" for i in range(1, LINES + 1))
    (root / "big.py").write_text(text, encoding="utf-8")
    return root, history


def session(tree: str | None, full: bool) -> float:
    """The child's CPU ms: ``full`` runs the session through its first edit."""
    with tempfile.TemporaryDirectory(prefix="h54-") as tmp:
        root, history = workspace(Path(tmp))
        env = dict(os.environ, HOME=tmp, XDG_STATE_HOME=tmp)
        env.pop("PYTHONPATH", None)
        if tree is None:
            child = subprocess.Popen([sys.executable, "-c", "import pygls.lsp.server"], env=env)
            return wait(child)
        env["PYTHONPATH"] = f"{tree}/language_server"
        conn = Connection.__new__(Connection)
        conn.log = tempfile.TemporaryFile()  # noqa: SIM115
        conn.ids = 0
        conn.proc = subprocess.Popen(
            [sys.executable, "-c", LS_MAIN],
            cwd=root,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=conn.log,
        )
        try:
            conn.initialize(root, history)
            if full:
                conn.notify("initialized", {})
                read = conn.command("waymark.read", {"path": "big.py", "hashes": True})
                anchor = read["lines"][499]["hash"]
                op = {"op": "replace_line", "hash": anchor, "content": "value_0500 = 0"}
                done = conn.command("waymark.edit", {"path": "big.py", "operations": [op]})
                assert done.get("ok"), done
                conn.request("shutdown", None)
                conn.notify("exit", None)
            conn.stdin.close()
            return wait(conn.proc)
        finally:
            if conn.proc.poll() is None:
                conn.proc.kill()
                conn.proc.wait()
            conn.log.close()


def wait(child: subprocess.Popen) -> float:
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = status
    return (usage.ru_utime + usage.ru_stime) * 1000


def main() -> None:
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    trees = {"base": sys.argv[1], "this": str(HERE)}
    samples: dict[str, list[float]] = {}
    for _ in range(runs):
        for name, tree in trees.items():
            for full in (False, True):
                samples.setdefault(f"{name} {'session' if full else 'init'}", []).append(
                    session(tree, full)
                )
        samples.setdefault("bare pygls", []).append(session(None, False))
    bare = statistics.median(samples["bare pygls"])
    print(
        f"bare pygls import {bare:6.1f} ms CPU (range {min(samples['bare pygls']):.0f}-"
        f"{max(samples['bare pygls']):.0f})"
    )
    for name in trees:
        init = statistics.median(samples[f"{name} init"])
        full = statistics.median(samples[f"{name} session"])
        print(
            f"{name:4} init {init:6.1f} ms ({init / bare:.3f}x bare)  session through the first "
            f"edit {full:6.1f} ms  first requests {full - init:6.1f} ms"
        )


if __name__ == "__main__":
    main()

"""CPU ms of ``waymark-ls`` of the base tree and of this tree at the moment its ``initialize``
answer is read (every thread's run time, ``/proc/PID/task/*/schedstat``), and at its exit
(rusage), next to a bare ``import pygls.lsp.server`` run to its exit: the window the bench's
start-up row times (spawn → initialize response against the bare import's whole run), in CPU,
interleaved. ``startup_cpu.py`` counts the server's exit too (~10 ms: its thread pool, the
interpreter's teardown), which no user waits for. Linux only.

Usage: python bench/compare/startup_answer_cpu.py BASE_TREE [RUNS]
"""

import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
LS_MAIN = "from waymark.doors.lsp import main; main()"


def frame(root: Path) -> bytes:
    params = {"processId": None, "rootUri": root.as_uri(), "capabilities": {}}
    body = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
    return b"Content-Length: %d\r\n\r\n" % len(body) + body.encode()


def run(command: list[str], tree: str | None, tmp: Path, payload: bytes | None) -> tuple:
    """(CPU ms at the answer or None, CPU ms at exit)."""
    env = dict(os.environ, HOME=str(tmp), XDG_STATE_HOME=str(tmp))
    env.pop("PYTHONPATH", None)
    if tree:
        env["PYTHONPATH"] = f"{tree}/language_server"
    child = subprocess.Popen(
        command,
        cwd=tmp / "ws",
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    at_answer = None
    if payload is not None:
        child.stdin.write(payload)
        child.stdin.flush()
        child.stdout.read1(65536)  # the initialize answer
        tasks = glob.glob(f"/proc/{child.pid}/task/*/schedstat")
        at_answer = sum(int(Path(t).read_text().split()[0]) for t in tasks) / 1e6
    child.stdin.close()
    _, status, usage = os.wait4(child.pid, 0)
    assert status == 0, command
    return at_answer, (usage.ru_utime + usage.ru_stime) * 1000


def main() -> None:
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 9
    trees = {"base": sys.argv[1], "this": str(HERE)}
    tmp = Path(tempfile.mkdtemp())
    (tmp / "ws").mkdir()
    (tmp / "ws" / "m.py").write_text("x\n")
    samples: dict[str, list[float]] = {}
    for _ in range(runs):
        for name, tree in trees.items():
            answer, end = run([sys.executable, "-c", LS_MAIN], tree, tmp, frame(tmp / "ws"))
            samples.setdefault(f"{name} at the answer", []).append(answer)
            samples.setdefault(f"{name} at exit", []).append(end)
        _, end = run([sys.executable, "-c", "import pygls.lsp.server"], None, tmp, None)
        samples.setdefault("bare import at exit", []).append(end)
    bare = statistics.median(samples["bare import at exit"])
    for name, values in samples.items():
        middle = statistics.median(values)
        print(
            f"{name:20} {middle:6.1f} ms CPU  {middle / bare:.3f}x the bare import  "
            f"(range {min(values):.0f}-{max(values):.0f})"
        )


if __name__ == "__main__":
    main()

"""CPU ms (user + sys) a door's process spends from spawn through its ``initialize`` answer
and its exit at end of input: ``waymark mcp`` and ``waymark-ls`` of the base tree and of this
tree, next to the baselines of ``bench/mcp_bench.py`` (a minimal server on the same SDK) and
``bench/lsp_bench.py`` (a bare ``import pygls.lsp.server``), interleaved.

Usage: python bench/compare/startup_cpu.py BASE_TREE [RUNS]
"""

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(HERE))
from bench.mcp_bench import INITIALIZE, MINIMAL  # noqa: E402

# waymark-ls's entry: ``waymark.doors.lsp:main`` since issue 43, the server module's before.
LS_MAIN = (
    "import importlib, waymark.doors.lsp as door\n"
    "serve = getattr(door, 'main', None)\n"
    "(serve or importlib.import_module('waymark.doors.lsp.server').main)()"
)
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 7
trees = {"base": f"{sys.argv[1]}/language_server", "mine": str(HERE / "language_server")}
tmp = Path(tempfile.mkdtemp())
ws = tmp / "ws"
ws.mkdir()
(ws / "m.py").write_text("x\n")
LSP_INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"processId": None, "rootUri": ws.as_uri(), "capabilities": {}},
}


def lsp_frame(m):
    b = json.dumps(m).encode()
    return b"Content-Length: %d\r\n\r\n" % len(b) + b


def cpu(cmd, pp, payload):
    e = dict(os.environ, HOME=str(tmp), XDG_STATE_HOME=str(tmp))
    e.pop("PYTHONPATH", None)
    if pp:
        e["PYTHONPATH"] = pp
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.Popen(
        cmd, cwd=ws, env=e, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    if payload is not None:
        p.stdin.write(payload)
        p.stdin.flush()
        p.stdout.read1(65536)  # the initialize answer
    p.stdin.close()
    p.wait(timeout=60)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


res = {}
py = sys.executable
for _ in range(runs):
    for k, pp in trees.items():
        res.setdefault(f"mcp {k}", []).append(
            cpu([py, "-m", "waymark", "mcp"], pp, json.dumps(INITIALIZE).encode() + b"\n")
        )
        res.setdefault(f"ls {k}", []).append(
            cpu(
                [py, "-c", LS_MAIN],
                pp,
                lsp_frame(LSP_INIT),
            )
        )
    res.setdefault("mcp minimal", []).append(
        cpu([py, "-c", MINIMAL], None, json.dumps(INITIALIZE).encode() + b"\n")
    )
    res.setdefault("ls bare pygls", []).append(
        cpu([py, "-c", "import pygls.lsp.server"], None, None)
    )
for door, base in (("mcp", "mcp minimal"), ("ls", "ls bare pygls")):
    b = statistics.median(res[base])
    for k in ("base", "mine"):
        v = res[f"{door} {k}"]
        m = statistics.median(v)
        print(
            f"{door:4} {k:5} {m * 1000:6.0f} ms CPU  vs {base} {b * 1000:6.0f} ms  "
            f"{m / b:.3f}x  (range {min(v) * 1000:.0f}-{max(v) * 1000:.0f})"
        )

"""LSP round trip, start-up and idle memory of the real ``waymark-ls`` over stdio.

- Round trip: ``waymark.edit`` (an anchored ``replace_line`` in a 1,000-line file, flipping
  one line between two contents so every call really writes) interleaved with a no-op,
  ``waymark.discardPending`` of an unknown token (params parsed, ``ok: false
  unknown_token``, no file touched): the same transport, framing and dispatch, minus the edit.
- Start-up: spawn → ``initialize`` response, interleaved with spawn → exit of a bare
  ``python -c "import pygls.lsp.server"``, the floor any pygls server pays.
- Idle RSS (VmRSS) of the server after ``initialized``, next to the bare import's process.

The client is a few lines of raw JSON-RPC over the child's pipes, so the figures are the
server's and the pipe's, not a client library's.

    python bench/lsp_bench.py [--calls 500] [--starts 7] [--profile DIR]

``--profile DIR`` also runs the round trip with the server under cProfile and prints where
its time goes, and prints the slowest imports of its start-up (``-X importtime``).
"""

from __future__ import annotations

import argparse
import json
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for bench.goals when run as a script
from bench.goals import Goal

LINES = 1000
TARGET = 500  # the line the edits flip, in the middle so the whole file is split and joined
CONTENTS = (f"value_{TARGET:04d} = {TARGET}", f"value_{TARGET:04d} = {TARGET + 1}")
WARMUP = 20
BARE_IMPORT = "import pygls.lsp.server"


def server_command() -> list[str]:
    script = Path(sys.executable).with_name("waymark-ls")
    entry = "from waymark.doors.lsp import main; main()"
    return [str(script)] if script.exists() else [sys.executable, "-c", entry]


class ServerError(RuntimeError):
    pass


class Connection:
    """A blocking JSON-RPC client over a child's stdin/stdout (LSP base protocol framing)."""

    def __init__(self, command: list[str], cwd: Path) -> None:
        # Lives as long as the connection (closed in close()): the server's stderr, for errors.
        self.log: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115
        self.proc = subprocess.Popen(
            command, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log
        )
        self.ids = 0

    @property
    def stdin(self) -> IO[bytes]:
        assert self.proc.stdin is not None
        return self.proc.stdin

    @property
    def stdout(self) -> IO[bytes]:
        assert self.proc.stdout is not None
        return self.proc.stdout

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message).encode()
        self.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        self.stdin.flush()

    def receive(self) -> dict[str, Any]:
        length = None
        while True:
            line = self.stdout.readline()
            if not line:
                self.log.seek(0)
                tail = self.log.read().decode(errors="replace").strip().splitlines()[-5:]
                raise ServerError(f"server closed its stdout: {' / '.join(tail)}")
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode("ascii").partition(":")
            if name.lower() == "content-length":
                length = int(value)
        if length is None:
            raise ServerError("a message without Content-Length")
        message: dict[str, Any] = json.loads(self.stdout.read(length))
        return message

    def request(self, method: str, params: Any) -> Any:
        self.ids += 1
        self.send({"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params})
        while True:
            message = self.receive()
            if "method" not in message:
                if message.get("id") != self.ids:
                    raise ServerError(f"answer to an unknown request: {message}")
                if "error" in message:
                    raise ServerError(f"{method}: {message['error']}")
                return message.get("result")
            if "id" in message:  # a request from the server (none expected): decline politely
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})

    def notify(self, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def command(self, name: str, params: dict[str, Any]) -> dict[str, Any]:
        result: dict[str, Any] = self.request(
            "workspace/executeCommand", {"command": name, "arguments": [params]}
        )
        return result

    def initialize(self, root: Path, history: Path) -> None:
        self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": root.as_uri(),
                "capabilities": {},
                "workspaceFolders": [{"uri": root.as_uri(), "name": "bench"}],
                "initializationOptions": {"sessionId": "bench", "historyDir": str(history)},
            },
        )

    def close(self) -> None:
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.proc.wait(10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self.log.close()


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise ServerError(f"no VmRSS for pid {pid}")


def percentile(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def workspace(base: Path) -> tuple[Path, Path]:
    root, history = base / "workspace", base / "history"
    root.mkdir()
    lines = [f"value_{i:04d} = {i}" for i in range(1, LINES + 1)]
    (root / "big.py").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root, history


def _anchor(conn: Connection, text: str) -> str:
    read = conn.command("waymark.read", {"path": "big.py", "hashes": True})
    entry = read["lines"][TARGET - 1]
    if entry["text"] != text:
        raise ServerError(f"line {TARGET} reads {entry['text']!r}, expected {text!r}")
    return str(entry["hash"])


def _edit(conn: Connection, anchor: str, content: str) -> None:
    result = conn.command(
        "waymark.edit",
        {
            "path": "big.py",
            "operations": [{"op": "replace_line", "hash": anchor, "content": content}],
        },
    )
    if not result.get("ok"):
        raise ServerError(f"waymark.edit failed: {result.get('error')}: {result.get('message')}")


def _noop(conn: Connection) -> None:
    result = conn.command("waymark.discardPending", {"token": "no-such-token"})
    if result.get("ok") or result.get("error") != "unknown_token":
        raise ServerError(f"the no-op did something: {result}")


def _durable_write(directory: Path, data: bytes) -> None:
    """The disk's share of any crash-safe save: temp file, fsync, rename, fsync directory."""
    tmp = directory / "floor.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, directory / "floor.py")
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def round_trips(calls: int, command: list[str]) -> dict[str, list[float]]:
    """Seconds per ``waymark.edit``, per no-op and per bare durable write, interleaved.

    The durable write (done here, outside the server, on the same disk) is not a baseline of
    the goal: it says how much of an edit's time the disk alone takes at that moment.
    """
    samples: dict[str, list[float]] = {"edit": [], "noop": [], "floor": []}
    with tempfile.TemporaryDirectory(prefix="waymark-lsp-bench-") as tmp:
        root, history = workspace(Path(tmp))
        floor = Path(tmp) / "floor"
        floor.mkdir()
        data = (root / "big.py").read_bytes()
        conn = Connection(command, root)
        try:
            conn.initialize(root, history)
            conn.notify("initialized", {})
            # One pass by hand learns both anchors from the server's own read.
            anchors = [_anchor(conn, CONTENTS[0]), ""]
            _edit(conn, anchors[0], CONTENTS[1])
            anchors[1] = _anchor(conn, CONTENTS[1])
            _edit(conn, anchors[1], CONTENTS[0])
            steps = {
                "edit": lambda i: _edit(conn, anchors[i % 2], CONTENTS[(i + 1) % 2]),
                "noop": lambda i: _noop(conn),
                "floor": lambda i: _durable_write(floor, data),
            }
            order = list(steps)
            clock = time.perf_counter
            for i in range(WARMUP + calls):
                # Rotate the order so no step always follows another's write.
                for name in order[i % 3 :] + order[: i % 3]:
                    start = clock()
                    steps[name](i)
                    elapsed = clock() - start
                    if i >= WARMUP:
                        samples[name].append(elapsed)
            expected = CONTENTS[(WARMUP + calls) % 2]
            on_disk = (root / "big.py").read_text(encoding="utf-8").splitlines()[TARGET - 1]
            if on_disk != expected:
                raise ServerError(f"line {TARGET} on disk is {on_disk!r}, expected {expected!r}")
        finally:
            conn.close()
    return samples


def start_ups(
    starts: int, command: list[str]
) -> tuple[list[float], list[float], list[float], float]:
    """Server spawn → initialize response, bare-import spawn → exit, server and bare RSS."""
    server: list[float] = []
    bare: list[float] = []
    rss: list[float] = []
    with tempfile.TemporaryDirectory(prefix="waymark-lsp-start-") as tmp:
        root, history = workspace(Path(tmp))
        for _ in range(starts):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", BARE_IMPORT], check=True)
            bare.append(time.perf_counter() - start)

            start = time.perf_counter()
            conn = Connection(command, root)
            try:
                conn.initialize(root, history)
                server.append(time.perf_counter() - start)
                conn.notify("initialized", {})
                _noop(conn)  # answered after initialized ran: the server is idle now
                rss.append(rss_mb(conn.proc.pid))
            finally:
                conn.close()
        bare_rss = _bare_import_rss()
    return server, bare, rss, bare_rss


def _bare_import_rss() -> float:
    code = f"{BARE_IMPORT}; import sys; print(flush=True); sys.stdin.read()"
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    try:
        assert proc.stdout is not None
        proc.stdout.readline()
        return rss_mb(proc.pid)
    finally:
        proc.communicate()


def figures(calls: int = 500, starts: int = 7) -> list[dict[str, Any]]:
    command = server_command()
    trips = round_trips(calls, command)
    edits, noops = trips["edit"], trips["noop"]
    server, bare, rss, bare_rss = start_ups(starts, command)
    setup = f"{LINES}-line file, replace_line flipping line {TARGET}, {calls} calls each"
    noop = "waymark.discardPending, unknown token (no-op)"
    return [
        {
            "name": "LSP round trip p50: waymark.edit",
            "runs": edits,
            "baseline": noop,
            "baseline_runs": noops,
            "goals": [Goal("ratio", "≤", 2, "×", against="no-op"), Goal("p50", "≤", 5, "ms")],
            "extra": {
                "setup": setup,
                "server": " ".join(command),
                "durable_write_p50_ms": round(statistics.median(trips["floor"]) * 1e3, 2),
                "durable_write_note": "temp file + fsync + rename + fsync dir of the same "
                "1,000 lines, by the bench process on the same disk, interleaved",
            },
        },
        {
            "name": "LSP round trip p99: waymark.edit",
            "value": percentile(edits, 99),
            "unit": "s",
            "baseline": percentile(noops, 99),
            "extra": {"baseline": f"p99 of {noop}"},
        },
        {
            "name": "server start-up to initialize response",
            "runs": server,
            "baseline": f'python -c "{BARE_IMPORT}"',
            "baseline_runs": bare,
            "goals": [Goal("ratio", "≤", 1.05, "×")],
            "extra": {"server": " ".join(command)},
        },
        {
            "name": "server idle RSS after initialized",
            "value": round(statistics.median(rss), 1),
            "unit": "MB",
            "baseline": round(bare_rss, 1),
            "extra": {
                "baseline": f'process after "{BARE_IMPORT}"',
                "rss_mb": [round(r, 1) for r in rss],
            },
        },
    ]


def profile(directory: Path, calls: int) -> None:
    """Where the server's time goes: cProfile over a round-trip run, imports at start-up."""
    directory.mkdir(parents=True, exist_ok=True)
    stats = directory / "server.prof"
    command = [sys.executable, "-m", "cProfile", "-o", str(stats), "-m", "waymark.doors.lsp.server"]
    round_trips(calls, command)
    print(f"\n== server cProfile over {calls} edits + {calls} no-ops ({stats})")
    pstats.Stats(str(stats)).sort_stats("cumulative").print_stats("waymark", 30)
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import waymark.doors.lsp.server"],
        capture_output=True,
        text=True,
        check=True,
    )
    (directory / "importtime.txt").write_text(done.stderr)
    rows = []
    for line in done.stderr.splitlines()[1:]:
        fields = line.removeprefix("import time:").split("|")
        self_us, cumulative_us, name = (part.strip() for part in fields)
        rows.append((int(cumulative_us), int(self_us), name))
    print("\n== slowest imports of waymark.server (cumulative µs, self µs)")
    for cumulative_us, self_us, name in sorted(rows, reverse=True)[:25]:
        print(f"{cumulative_us:>9} {self_us:>9}  {name}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--starts", type=int, default=7)
    parser.add_argument("--profile", type=Path, metavar="DIR")
    args = parser.parse_args()
    for figure in figures(args.calls, args.starts):
        if "runs" in figure:
            mine, base = (
                statistics.median(figure["runs"]),
                statistics.median(figure["baseline_runs"]),
            )
            unit = "s"
        else:
            mine, base, unit = figure["value"], figure["baseline"], figure["unit"]
        print(f"{figure['name']}: {mine:.4g} {unit} vs {base:.4g} {unit} ({mine / base:.2f}×)")
        if "durable_write_p50_ms" in figure["extra"]:
            print(f"  durable write alone: {figure['extra']['durable_write_p50_ms']} ms")
    if args.profile:
        profile(args.profile, args.calls)
    return 0


if __name__ == "__main__":
    sys.exit(main())

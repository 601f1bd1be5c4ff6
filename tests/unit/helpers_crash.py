"""SIGKILL-at-random-points rig for ``files.atomic_write`` (used by test_crash and the soak).

A *zygote* process imports waymark once; for each trial it forks a writer that rewrites the
target in a loop, alternating two large distinct contents, and SIGKILLs it after the delay
the test asked for. Forking from a warm zygote keeps a trial at a few milliseconds instead of
an interpreter start-up each, so hundreds of trials fit in a unit-test budget while every
writer is still a real separate process killed with no chance to clean up.

The checking is done by the test process, not the zygote: after each kill it reads the target
and compares digests with the two contents, lists temp files, sweeps them and lists again.

Run as a script it is the zygote: ``python helpers_crash.py TARGET SIZE MODE``, MODE being
``atomic`` (``files.atomic_write``) or ``naive`` (``open(target, "wb").write`` — the
control that shows the rig does catch torn files).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path


def contents(size: int) -> tuple[bytes, bytes]:
    """Two contents of ``size`` bytes that differ in every line, so any mix is detectable."""
    line_a = b"old old old old old old old old old old old old old old old old\r\n"
    line_b = b"NEW NEW NEW NEW NEW NEW NEW NEW NEW NEW NEW NEW NEW NEW NEW NEW\n"
    return (line_a * (size // len(line_a) + 1))[:size], (line_b * (size // len(line_b) + 1))[
        : size - 7
    ]


@dataclass
class Tally:
    trials: int = 0
    old: int = 0
    new: int = 0
    torn: int = 0
    temps_seen: int = 0  # kills that landed while a temp file existed
    leftover_after_sweep: int = 0
    failures: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, int]:
        return {
            "trials": self.trials,
            "old": self.old,
            "new": self.new,
            "torn": self.torn,
            "temps_seen": self.temps_seen,
            "leftover_after_sweep": self.leftover_after_sweep,
        }


class CrashRig:
    """One zygote over one target file in ``directory``."""

    def __init__(self, directory: Path, *, size: int, mode: str = "atomic") -> None:
        from waymark.store import files

        self.files = files
        self.directory = directory
        self.target = directory / "target.txt"
        self.old, self.new = contents(size)
        self.digests = {files.digest(self.old): "old", files.digest(self.new): "new"}
        self.target.write_bytes(self.old)
        self.proc = subprocess.Popen(
            [sys.executable, __file__, str(self.target), str(size), mode],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        assert self.proc.stdout is not None
        ready = self.proc.stdout.readline().strip()
        if ready != "zygote-ready":
            raise RuntimeError(f"crash zygote did not start: {ready!r}")

    def kill_once(self, delay: float) -> str:
        """Fork a writer, SIGKILL it ``delay`` s after it starts; return the zygote's report."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"{delay:.6f}\n")
        self.proc.stdin.flush()
        return self.proc.stdout.readline().strip()

    def run(self, trials: int, *, seed: int, max_delay: float = 0.030) -> Tally:
        rng = random.Random(seed)
        tally = Tally()
        marker = self.files.TEMP_MARKER
        for index in range(trials):
            delay = rng.uniform(0.0, max_delay)
            report = self.kill_once(delay)
            if report != "killed":
                tally.failures.append(f"trial {index}: zygote said {report!r}")
                break
            tally.trials += 1
            state = self.files.read_state(self.target)
            which = self.digests.get(state.digest or "")
            if which is None:
                tally.torn += 1
                size = len(state.data) if state.data is not None else None
                tally.failures.append(f"trial {index} (delay {delay:.6f}s): torn, {size} bytes")
                # Put the old content back so later trials still start from a whole file.
                self.target.write_bytes(self.old)
            elif which == "old":
                tally.old += 1
            else:
                tally.new += 1
            temps = sorted(p for p in self.directory.iterdir() if marker in p.name)
            tally.temps_seen += bool(temps)
            swept = sorted(self.files.sweep_temp_files(self.directory))
            if swept != temps:
                tally.failures.append(f"trial {index}: swept {swept} but saw {temps}")
            left = sorted(p.name for p in self.directory.iterdir())
            if left != ["target.txt"]:
                tally.leftover_after_sweep += 1
                tally.failures.append(f"trial {index}: after sweep the directory holds {left}")
        return tally

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _writer(target: Path, size: int, mode: str, ready_fd: int) -> None:
    from waymark.store import files

    old, new = contents(size)
    os.write(ready_fd, b"r")
    if mode == "naive":
        while True:
            for data in (new, old):
                with open(target, "wb") as handle:
                    handle.write(data)
    while True:
        files.atomic_write(target, new)
        files.atomic_write(target, old)


def _zygote(target: Path, size: int, mode: str) -> None:
    from waymark.store import files  # noqa: F401  # warm the import before forking writers

    print("zygote-ready", flush=True)
    for line in sys.stdin:
        delay = float(line)
        ready_r, ready_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(ready_r)
                _writer(target, size, mode, ready_w)
            finally:
                os._exit(70)
        os.close(ready_w)
        started = os.read(ready_r, 1)
        os.close(ready_r)
        if started:
            time.sleep(delay)
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        killed = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
        print("killed" if killed else f"writer ended on its own: status {status}", flush=True)


if __name__ == "__main__":
    _zygote(Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3])

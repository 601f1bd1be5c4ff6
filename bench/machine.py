"""The machine a bench run ran on, for the head of ``bench/results.md``; and what a run
left on its disk."""

from __future__ import annotations

import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _output(*cmd: str) -> str:
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=10, check=False)
    except OSError:
        return ""
    return done.stdout.strip()


def _first_line(*cmd: str) -> str:
    lines = _output(*cmd).splitlines()
    return lines[0] if lines else "unavailable"


def _proc_field(path: str, key: str) -> str:
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(key):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def machine_info() -> dict[str, str]:
    kib = _proc_field("/proc/meminfo", "MemTotal").split()[0]
    dirty = _output("git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no")
    try:
        pygls = metadata.version("pygls")
    except metadata.PackageNotFoundError:
        pygls = "not installed"
    return {
        "CPU": _proc_field("/proc/cpuinfo", "model name"),
        "cores": str(os.cpu_count()),
        "RAM": f"{int(kib) / 2**20:.1f} GiB" if kib.isdigit() else "unknown",
        "kernel": f"{platform.system()} {platform.release()}",
        "Python": platform.python_version(),
        "pygls": pygls,
        "GNU sed": _first_line("sed", "--version"),
        "git": _first_line("git", "--version"),
        "commit": _first_line("git", "-C", str(ROOT), "rev-parse", "--short", "HEAD")
        + (" + uncommitted changes" if dirty else ""),
    }


def bytes_under(path: Path) -> int:
    """The size of every file under ``path`` (links not followed)."""
    total = 0
    for dirpath, _, names in os.walk(path):
        for name in names:
            total += os.lstat(os.path.join(dirpath, name)).st_size
    return total

"""The VS Code extension's footprint: each platform .vsix's size; start-up in a real VS Code.

Activation is read from the extension's own log line ("activated in N ms") during one run of
the code-server end-to-end test; activation → server ready is the time between that line and
"server started" (finding a Python for the bundled server, starting it, initialize). There is
no baseline to divide by: these are absolute figures.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from datetime import datetime
from pathlib import Path
from typing import Any

EXTENSION = Path(__file__).resolve().parent.parent / "vscode-extension"
# No Windows package: the server needs POSIX calls (docs/vscode.md).
TARGETS = ("linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64")


def _npm(*args: str, timeout: int) -> str:
    proc = subprocess.run(
        ["npm", "--loglevel=error", *args],
        cwd=EXTENSION,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "npm_config_yes": "true"},
    )
    if proc.returncode != 0:
        raise RuntimeError(
            f"npm {' '.join(args)} failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}"
        )
    return proc.stdout + proc.stderr


def _log_ms(output: str, what: str) -> float:
    match = re.search(rf"{what} in (\d+) ms", output)
    if match is None:
        raise RuntimeError(f"the e2e run printed no '{what} in N ms' line:\n{output[-3000:]}")
    return float(match.group(1))


def _log_time(output: str, what: str) -> datetime:
    match = re.search(rf"(\d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{{3}}) \[info\] {what} in", output)
    if match is None:
        raise RuntimeError(f"the e2e run printed no timestamped '{what}' line:\n{output[-3000:]}")
    return datetime.strptime(match.group(1), "%Y-%m-%d %H:%M:%S.%f")


def figures() -> list[dict[str, Any]]:
    if shutil.which("waymark-ls") is None:
        raise RuntimeError("waymark-ls is not on PATH; run from the project's .venv")
    if not (EXTENSION / "node_modules").is_dir():
        _npm("ci", timeout=600)
    _npm("run", "--silent", "package", timeout=300)
    subprocess.run(
        ["bash", "scripts/install-code-server.sh"],
        cwd=EXTENSION,
        check=True,
        capture_output=True,
        timeout=900,
    )
    output = _npm("run", "--silent", "test:e2e", timeout=600)
    sizes = {t: (EXTENSION / "dist" / f"waymark-{t}.vsix").stat().st_size for t in TARGETS}
    ready = _log_time(output, "server started") - _log_time(output, "activated")
    return [
        *(
            {
                "name": f"VS Code .vsix size, {target} (server + libraries bundled)",
                "value": round(size / 1024, 1),
                "unit": "KB",
                "extra": {"bytes": size},
            }
            for target, size in sizes.items()
        ),
        {
            "name": "VS Code extension activation (real code-server 4.100.3)",
            "value": _log_ms(output, "activated"),
            "unit": "ms",
            "extra": {
                "server start as logged (finding Python included), ms": _log_ms(
                    output, "server started"
                )
            },
        },
        {
            "name": "VS Code activation -> bundled server ready (system python3)",
            "value": round(ready.total_seconds() * 1000),
            "unit": "ms",
            "extra": {},
        },
    ]


def main() -> None:
    for figure in figures():
        print(f"{figure['name']}: {figure['value']} {figure['unit']}  {figure['extra']}")


if __name__ == "__main__":
    main()

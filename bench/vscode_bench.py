"""The VS Code extension's footprint: ``.vsix`` size, and activation in a real VS Code.

Activation is read from the extension's own log line ("activated in N ms") during one run of
the code-server end-to-end test, which also reports how long the language server took to
start under the extension. There is no baseline to divide by: these are absolute figures.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

EXTENSION = Path(__file__).resolve().parent.parent / "vscode-extension"
VSIX = EXTENSION / "dist" / "waymark.vsix"


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
    return [
        {
            "name": "VS Code extension .vsix size",
            "value": round(VSIX.stat().st_size / 1024, 1),
            "unit": "KB",
            "goal": "",
            "extra": {"bytes": VSIX.stat().st_size},
        },
        {
            "name": "VS Code extension activation (real code-server 4.100.3)",
            "value": _log_ms(output, "activated"),
            "unit": "ms",
            "goal": "",
            "extra": {
                "language server started (as seen by the extension), ms": _log_ms(
                    output, "server started"
                )
            },
        },
    ]


def main() -> None:
    for figure in figures():
        print(f"{figure['name']}: {figure['value']} {figure['unit']}  {figure['extra']}")


if __name__ == "__main__":
    main()

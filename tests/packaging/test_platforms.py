"""Packages are built only for the platforms the server runs on (Linux, macOS; Windows through
WSL, where VS Code runs the Linux package)."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVED = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64"]


def test_package_builds_only_the_platforms_the_server_runs_on() -> None:
    script = (ROOT / "vscode-extension" / "scripts" / "package.mjs").read_text()
    targets = re.search(r"export const TARGETS = (\[.*?\]);", script)
    assert targets is not None
    assert json.loads(targets.group(1)) == SERVED


def test_the_bundler_knows_only_those_platforms() -> None:
    spec = importlib.util.spec_from_file_location(
        "bundle_server", ROOT / "scripts/bundle_server.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert sorted(module.PLATFORMS) == sorted(SERVED)


def test_the_docs_offer_no_windows_package() -> None:
    for doc in ("README.md", "docs/vscode.md"):
        assert "win32" not in (ROOT / doc).read_text(), doc

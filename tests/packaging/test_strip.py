"""The Linux .vsix carries its native libraries stripped (scripts/bundle_server.py)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _bundler() -> object:
    spec = importlib.util.spec_from_file_location(
        "bundle_server", ROOT / "scripts/bundle_server.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ELF libraries")
def test_stripped_libraries_lose_their_symbols_and_still_import(tmp_path: Path) -> None:
    xxhash = importlib.util.find_spec("xxhash")
    assert xxhash is not None and xxhash.origin is not None
    libs = tmp_path / "libs"
    shutil.copytree(Path(xxhash.origin).parent, libs / "xxhash")
    (library,) = (libs / "xxhash").glob("_xxhash*.so")
    before = library.read_bytes()
    assert b".symtab" in before, "the wheel's library should arrive unstripped"
    _bundler().strip_libraries(libs)  # type: ignore[attr-defined]
    after = library.read_bytes()
    assert b".symtab" not in after and b".debug_info" not in after
    assert len(after) < len(before) / 2
    script = "import sys; sys.path.insert(0, sys.argv[1]); import xxhash; "
    script += "print(xxhash.xxh64_hexdigest(b'a'))"
    imported = subprocess.run(
        [sys.executable, "-I", "-S", "-c", script, str(libs)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert imported.stdout == "d24ec4f1a98c6e5b\n", imported.stderr

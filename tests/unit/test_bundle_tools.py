"""Packaging on a machine without another architecture's binutils: what is missing is said
before anything is built, with the command that installs it."""

from __future__ import annotations

import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _check(target: str, path: Path) -> subprocess.CompletedProcess[str]:
    script = ROOT / "scripts" / "bundle_server.py"
    return subprocess.run(
        [sys.executable, str(script), "--target", target, "--check-tools"],
        capture_output=True,
        text=True,
        env={"PATH": str(path)},
        timeout=60,
    )


def test_a_missing_strip_is_named_with_its_package(tmp_path: Path) -> None:
    done = _check("linux-arm64", tmp_path)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "linux-arm64 needs aarch64-linux-gnu-strip to strip its libraries; install it "
        "(Debian: sudo apt-get install binutils-aarch64-linux-gnu)\n"
    )


def test_a_present_strip_or_a_mac_target_needs_nothing(tmp_path: Path) -> None:
    strip = tmp_path / "aarch64-linux-gnu-strip"
    strip.write_text("#!/bin/sh\n")
    strip.chmod(0o755)
    assert _check("linux-arm64", tmp_path).returncode == 0
    assert _check("darwin-arm64", tmp_path / "nowhere").returncode == 0


def test_the_compiled_core_ships_only_for_this_machines_target(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import bundle_server
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    engine = tmp_path / "waymark" / "engine"
    engine.mkdir(parents=True)
    built = engine / "_core.cpython-311-x86_64-linux-gnu.so"
    built.write_bytes(b"\x7fELF")
    store = tmp_path / "waymark" / "store"
    store.mkdir()
    walk = store / "_nofollow.cpython-311-x86_64-linux-gnu.so"
    walk.write_bytes(b"\x7fELF")
    here = bundle_server.HOST_TARGET.get((platform.system(), platform.machine()))
    for target in bundle_server.PLATFORMS:
        expected = [built, walk] if target == here else []
        assert bundle_server.native_core(target, tmp_path / "waymark") == expected, target

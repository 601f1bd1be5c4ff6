"""Fill vscode-extension/bundled/libs with the server and its dependencies for one VS Code target.

Wheels come from the package index with pip (binary only, no builds, every file checked
against the hashes of bundled/requirements.txt), one set per supported CPython; compiled
modules carry ABI-tagged names, so all versions share one directory. The downloads are cached,
and a target already resolved against the same requirements is not asked of the index again.
Linux libraries are stripped of their symbols and debug information (the manylinux wheels
ship them), with the binutils `strip` of their architecture.

Waymark's own compiled modules (the core, waymark.engine._core, and the one-call walk,
waymark.store._nofollow, built in place by `pip install -e .`) can only ship for the target
this machine is, and for the CPython they were built with: every other target and CPython runs
the pure-Python path (docs/architecture.md, "The compiled core").
"""

from __future__ import annotations

import argparse
import hashlib
import platform
import shutil
import struct
import subprocess
import sys
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXTENSION = ROOT / "vscode-extension"
REQUIREMENTS = EXTENSION / "bundled" / "requirements.txt"
PYTHONS = ("3.11", "3.12", "3.13", "3.14")
# VS Code target -> the oldest platform tag pip should accept for it (pip widens to older ones).
# Only where the server runs: no Windows (it uses POSIX-only calls; Windows users go through WSL,
# where VS Code installs the Linux package).
PLATFORMS = {
    "linux-x64": "manylinux2014_x86_64",
    "linux-arm64": "manylinux2014_aarch64",
    "darwin-x64": "macosx_11_0_x86_64",
    "darwin-arm64": "macosx_11_0_arm64",
}
# ELF e_machine -> the binutils strip for it and the Debian package that has it.
STRIP = {
    62: ("x86_64-linux-gnu-strip", "binutils-x86-64-linux-gnu"),
    183: ("aarch64-linux-gnu-strip", "binutils-aarch64-linux-gnu"),
}
# The ELF machine of each Linux target's libraries (macOS libraries are not stripped).
MACHINE = {"linux-x64": 62, "linux-arm64": 183}
# (platform.system(), platform.machine()) -> the VS Code target this machine is.
HOST_TARGET = {
    ("Linux", "x86_64"): "linux-x64",
    ("Linux", "aarch64"): "linux-arm64",
    ("Darwin", "x86_64"): "darwin-x64",
    ("Darwin", "arm64"): "darwin-arm64",
}
# Waymark's compiled modules, by their folder in the package.
COMPILED = {"engine": "_core.*.so", "store": "_nofollow.*.so"}


def missing_tool(target: str) -> str | None:
    """What this machine lacks to bundle ``target``, as the sentence that says how to get it."""
    machine = MACHINE.get(target)
    if machine is None:
        return None
    tool, package = STRIP[machine]
    if shutil.which(tool) is not None:
        return None
    return (
        f"{target} needs {tool} to strip its libraries; install it "
        f"(Debian: sudo apt-get install {package})"
    )


def resolve(target: str, python: str, cache: Path) -> list[Path]:
    """Download (or reuse) the wheels for one target and CPython; return their paths."""
    key = hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()[:16]
    dest = cache / key / f"{target}-cp{python.replace('.', '')}"
    done = dest / "complete"
    if not done.exists():
        subprocess.run(
            [
                *(sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"),
                *("--only-binary=:all:", "--implementation", "cp", "--python-version", python),
                *("--platform", PLATFORMS[target], "--dest", str(dest)),
                *("-r", str(REQUIREMENTS)),
            ],
            check=True,
        )
        done.touch()
    return sorted(dest.glob("*.whl"))


def bundle(target: str, cache: Path, libs: Path) -> None:
    cache.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(len(PYTHONS)) as pool:
        found = pool.map(lambda python: resolve(target, python, cache), PYTHONS)
    # The pure wheels are the same file under every CPython: unpack each once.
    wheels = sorted({w.name: w for ws in found for w in ws}.values())
    shutil.rmtree(libs, ignore_errors=True)
    libs.mkdir(parents=True)
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(libs)
    source = ROOT / "language_server" / "waymark"
    shutil.copytree(
        source,
        libs / "waymark",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", *COMPILED.values()),
    )
    cores = native_core(target, source)
    for core in cores:
        shutil.copy2(core, libs / core.relative_to(source.parent))
    print(
        f"compiled modules for {target}: {', '.join(c.name for c in cores)}"
        if cores
        else f"no compiled modules for {target}: the pure-Python path runs there"
    )
    if target.startswith("linux-"):
        strip_libraries(libs)
    (libs / "TARGET").write_text(target + "\n")
    print(f"bundled {len(wheels)} wheels + waymark for {target} into {libs.relative_to(ROOT)}")


def native_core(target: str, source: Path) -> list[Path]:
    """The compiled modules built on this machine, when ``target`` is this machine's platform
    (none otherwise: another platform's library would only be dead weight)."""
    if HOST_TARGET.get((platform.system(), platform.machine())) != target:
        return []
    return sorted(
        built for folder, glob in COMPILED.items() for built in (source / folder).glob(glob)
    )


def strip_libraries(libs: Path) -> None:
    """Strip every ELF shared library under ``libs`` in place (--strip-unneeded keeps what the
    dynamic loader needs)."""
    for library in sorted(libs.rglob("*.so")):
        header = library.read_bytes()[:20]
        if header[:4] != b"\x7fELF":
            continue
        (machine,) = struct.unpack_from("<H", header, 18)
        tool, package = STRIP.get(machine, ("strip", "binutils"))
        if machine not in STRIP or shutil.which(tool) is None:
            raise SystemExit(
                f"cannot strip {library.name} (ELF machine {machine}): install {tool} "
                f"(Debian: sudo apt-get install {package})"
            )
        before = library.stat().st_size
        subprocess.run([tool, "--strip-unneeded", str(library)], check=True)
        print(f"stripped {library.name}: {before} -> {library.stat().st_size} bytes")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", required=True, choices=sorted(PLATFORMS))
    parser.add_argument("--cache", type=Path, default=EXTENSION / ".cache" / "wheels")
    parser.add_argument("--libs", type=Path, default=EXTENSION / "bundled" / "libs")
    parser.add_argument(
        "--check-tools",
        action="store_true",
        help="bundle nothing: exit 1 with what to install when a tool the target needs is missing",
    )
    args = parser.parse_args()
    if args.check_tools:
        missing = missing_tool(args.target)
        if missing:
            print(missing, file=sys.stderr)
        raise SystemExit(1 if missing else 0)
    bundle(args.target, args.cache, args.libs.resolve())


if __name__ == "__main__":
    main()

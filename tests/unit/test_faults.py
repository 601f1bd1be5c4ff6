"""OS faults under ``files.atomic_write``: ENOSPC, EACCES, EROFS (and EFBIG).

Each fault must surface as ``IoError`` with code ``io_error`` and ``details.errno`` naming the
errno, leave the original byte-for-byte as it was, and leave no temp file behind.

How the faults are made on a stock Linux box, without touching the real system:
- ENOSPC: a 64 KB tmpfs (or one with 2 inodes) mounted in a private mount namespace
  (``unshare -rm``; ``unshare -m`` as root is the fallback).
- EROFS: a read-only bind mount of the test directory in such a namespace.
- EACCES: the child drops to uid/gid 65534 with setgroups/setresgid/setresuid — what
  ``setpriv --reuid=65534 --regid=65534 --clear-groups`` does — after importing waymark,
  because the interpreter lives under /root (0700), which uid 65534 cannot even execute.
- EFBIG: RLIMIT_FSIZE with SIGXFSZ ignored (RLIMIT_FSIZE gives EFBIG, not ENOSPC).

A fault that cannot be set up FAILS the test with the reason: a skipped fault test would hide
exactly the gap it exists to close.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HELPER = Path(__file__).resolve().parent / "helpers_write_faults.py"
# Keep equal to helpers_write_faults.ORIGINAL.
ORIGINAL = b"original line 1\r\noriginal line 2\r\n" * 32
NAMESPACES = (["unshare", "-rm"], ["unshare", "-m"])


def _parse(proc: subprocess.CompletedProcess[str]) -> dict[str, Any] | None:
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("{"):
            result: dict[str, Any] = json.loads(line)
            return result
    return None


def run_child(mode: str, directory: Path, *, prefix: list[str] | None = None) -> dict[str, Any]:
    proc = subprocess.run(
        [*(prefix or []), sys.executable, str(HELPER), mode, str(directory)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    result = _parse(proc)
    if result is None:
        pytest.fail(f"fault child {mode} reported nothing (rc {proc.returncode}): {proc.stderr}")
    return result


def run_in_mount_namespace(setup: str, mode: str, directory: Path) -> dict[str, Any]:
    """Run ``setup`` (sh, the directory is $1) then the child, in a private mount namespace."""
    script = setup + ' && exec "$2" "$3" "$4" "$1"'
    reasons = []
    for prefix in NAMESPACES:
        if shutil.which(prefix[0]) is None:
            reasons.append(f"{prefix[0]} is not installed")
            continue
        proc = subprocess.run(
            [*prefix, "sh", "-c", script, "sh", str(directory), sys.executable, str(HELPER), mode],
            capture_output=True,
            text=True,
            timeout=120,
        )
        result = _parse(proc)
        if result is not None:
            result["mechanism"] = " ".join(prefix)
            return result
        reasons.append(f"{' '.join(prefix)}: rc {proc.returncode}: {proc.stderr.strip()}")
    pytest.fail(f"could not set up the {mode} fault: " + "; ".join(reasons))


def assert_clean_io_error(result: dict[str, Any], errno_name: str, target: Path) -> None:
    assert result["raised"] == "IoError", result
    assert result["code"] == "io_error", result
    assert result["details"] == {"errno": errno_name, "path": str(target)}, result
    assert f"({errno_name})" in result["message"]
    assert result["original_intact"] is True, result
    assert result["listing"] == ["target.txt"], result  # no temp file left


@pytest.mark.parametrize(
    ("mode", "options"),
    [("enospc-data", "size=64k"), ("enospc-inodes", "size=1m,nr_inodes=2")],
)
def test_enospc_is_io_error_and_keeps_the_original(tmp_path: Path, mode: str, options: str) -> None:
    directory = tmp_path / "small"
    directory.mkdir()
    result = run_in_mount_namespace(
        f'mount -t tmpfs -o {options} waymark-enospc "$1"', mode, directory
    )
    # The child ran on the tmpfs, not on the real disk: the real directory stays empty.
    assert os.listdir(directory) == []
    if mode == "enospc-data":
        assert result["setup"]["free_bytes"] < len(b"replacement line\n" * 65536)
    else:
        assert result["setup"]["free_inodes"] == 0
    assert_clean_io_error(result, "ENOSPC", directory / "target.txt")


def test_erofs_is_io_error_and_keeps_the_original(tmp_path: Path) -> None:
    directory = tmp_path / "ro"
    directory.mkdir()
    target = directory / "target.txt"
    target.write_bytes(ORIGINAL)
    os.chmod(target, 0o640)
    result = run_in_mount_namespace(
        'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1"', "erofs", directory
    )
    assert result["setup"] == {"readonly": True}
    assert_clean_io_error(result, "EROFS", target)
    # The bind mount was private to the child; the real file is checked here too.
    assert target.read_bytes() == ORIGINAL
    assert os.listdir(directory) == ["target.txt"]
    assert os.stat(target).st_mode & 0o777 == 0o640


@pytest.fixture
def world_traversable_dir() -> Iterator[Path]:
    # pytest's tmp_path sits under a 0700 directory that uid 65534 cannot traverse at all,
    # which would give EACCES for the wrong reason.
    directory = Path(tempfile.mkdtemp(prefix="waymark-eacces-", dir="/tmp"))
    try:
        os.chmod(directory, 0o755)
        yield directory
    finally:
        shutil.rmtree(directory)


def test_eacces_is_io_error_and_keeps_the_original(world_traversable_dir: Path) -> None:
    if os.geteuid() != 0:
        pytest.fail("the EACCES test drops to uid 65534 and needs to start as root (CI does)")
    directory = world_traversable_dir
    target = directory / "target.txt"
    target.write_bytes(ORIGINAL)
    os.chmod(target, 0o644)
    result = run_child("eacces", directory)
    assert result["euid"] == 65534
    assert result["setup"] == {"writable": False}
    assert_clean_io_error(result, "EACCES", target)
    assert target.read_bytes() == ORIGINAL
    assert os.listdir(directory) == ["target.txt"]
    st = os.stat(target)
    assert (st.st_uid, st.st_mode & 0o777) == (0, 0o644)


def test_efbig_from_rlimit_fsize_is_io_error_and_keeps_the_original(tmp_path: Path) -> None:
    target = tmp_path / "target.txt"
    target.write_bytes(ORIGINAL)
    result = run_child("efbig", tmp_path)
    assert_clean_io_error(result, "EFBIG", target)
    assert target.read_bytes() == ORIGINAL
    assert os.listdir(tmp_path) == ["target.txt"]

"""Class 6 (edits): compare and replace are one step; the lock serialises processes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from waymark.engine.errors import FileChangedSinceRead, WaymarkError
from waymark.store import files, locks


def test_write_with_a_stale_digest_changes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_bytes(b"theirs\n")
    with pytest.raises(FileChangedSinceRead) as info:
        files.atomic_write(target, b"mine\n", expected=files.digest(b"mine before\n"))
    assert info.value.code == "file_changed_since_read"
    assert target.read_bytes() == b"theirs\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]
    files.atomic_write(target, b"mine\n", expected=files.digest(b"theirs\n"))
    assert target.read_bytes() == b"mine\n"


def test_create_expecting_absence_refuses_an_existing_file(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_bytes(b"theirs\n")
    with pytest.raises(FileChangedSinceRead):
        files.atomic_write(target, b"mine\n", expected=None)
    assert target.read_bytes() == b"theirs\n"


def test_delete_with_a_stale_digest_keeps_the_file(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_bytes(b"theirs\n")
    with pytest.raises(FileChangedSinceRead):
        files.delete_file(target, expected=files.digest(b"old\n"))
    assert target.read_bytes() == b"theirs\n"
    files.delete_file(target, expected=files.digest(b"theirs\n"))
    assert not target.exists()
    with pytest.raises(FileChangedSinceRead):
        files.delete_file(target, expected=files.digest(b"theirs\n"))


def test_the_lock_excludes_another_process(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_bytes(b"x\n")
    holder = textwrap.dedent(
        f"""
        import sys, time
        from pathlib import Path
        from waymark.store import locks
        with locks.locked(Path({str(target)!r})):
            print("held", flush=True)
            sys.stdin.readline()
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", holder], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "held\n"
        with pytest.raises(WaymarkError) as info, locks.locked(target, timeout=0.2):
            pass
        assert info.value.details["errno"] == "EAGAIN"
    finally:
        assert proc.stdin is not None
        proc.stdin.write("\n")
        proc.stdin.close()
        proc.wait(timeout=10)
    with locks.locked(target, tmp_path / "b.txt", timeout=5), locks.locked(target):
        pass  # reentrant within a process, one lock per directory

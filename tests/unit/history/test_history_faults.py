"""Faults are reported per file: no false "restored", no stale restore, no data lost."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import helpers_faults
import pytest
from helpers_history import (
    Agent,
    loose_history,
    open_history,
    overwrite_blob,
    stored_blobs,
    tree,
)

from waymark.store.files import digest

HERE = Path(__file__).parent


@pytest.fixture
def shared_base() -> Iterator[Path]:
    """A directory outside pytest's 0700 tmp tree, so an unprivileged child can reach it."""
    base = Path(tempfile.mkdtemp(prefix="waymark-history-"))
    base.chmod(0o755)
    yield base
    shutil.rmtree(base, ignore_errors=True)


def test_unwritable_backup_dir_eacces(shared_base: Path) -> None:
    out = helpers_faults.run_as_nobody(helpers_faults.unwritable_backups, shared_base)
    eacces = "a.txt: its backup failed (EACCES), so this change cannot be rewound."
    assert out["first_write"] == [eacces]
    assert out["second_write"] == [eacces]  # the pre-image is gone: nothing to heal from
    assert out["create"] == []  # an absent pre-image needs no blob
    assert out["a_after_edit"] == "newer\n"  # the edit proceeded
    assert [t["canRestore"] for t in out["turns"]] == [False]
    # Disk unwritable: the undo snapshot cannot hold the current bytes, so nothing is touched.
    full = out["rewind_full"]
    assert full["restored"] == full["deleted"] == full["unchanged"] == []
    assert full["failed"] == [
        {"path": "a.txt", "reason": "backup_failed", "errno": "EACCES"},
        {"path": "b.txt", "reason": "undo_backup_failed", "errno": "EACCES"},
        {"path": "ro/c.txt", "reason": "undo_backup_failed", "errno": "EACCES"},
    ]
    assert out["tree_after_full"] == {"a.txt": "newer\n", "b.txt": "b\n", "ro/c.txt": "c1\n"}
    # Backups writable again, but ro/ is read-only: each file gets its own honest outcome.
    again = out["rewind"]
    assert again["restored"] == [] and again["deleted"] == ["b.txt"]
    assert again["failed"] == [
        {"path": "a.txt", "reason": "backup_failed", "errno": "EACCES"},
        {"path": "ro/c.txt", "reason": "write_failed", "errno": "EACCES"},
    ]
    assert out["tree_after"] == {"a.txt": "newer\n", "ro/c.txt": "c1\n"}
    # Healing: t1's failed backup of heal.txt is stored on the next write, with one record.
    # (the other files' current bytes were already stored, so only heal.txt needed a blob)
    assert out["t1"]["warnings"] == [
        "heal.txt: its backup failed (EACCES), so this change cannot be rewound."
    ]
    assert out["heal_write"] == []
    assert out["heal_lines"] == 1  # the healed backup and the write, recorded ahead together
    assert out["heal_content"] == "h1\n"
    assert out["heal_rewind"]["restored"] == ["heal.txt"]


def _can_unshare() -> bool:
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True, check=False)
    return probe.returncode == 0


@pytest.mark.skipif(not shutil.which("unshare") or not _can_unshare(), reason="needs unshare -rm")
def test_full_backup_disk_enospc(shared_base: Path) -> None:
    ws = shared_base / "ws"
    ws.mkdir()
    (shared_base / "h").mkdir()
    (ws / "a.txt").write_bytes(b"a0\n")
    big = os.urandom(48 * 1024)
    (ws / "big.txt").write_bytes(big)
    mount = 'mount -t tmpfs -o size=96k tmpfs "$1/h" && exec "$2" helpers_faults.py disk_full "$1"'
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(HERE), str(HERE.parents[2] / "language_server")]),
    }
    proc = subprocess.run(
        ["unshare", "-rm", "sh", "-c", mount, "sh", str(shared_base), sys.executable],
        cwd=HERE,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert (
        "big.txt: its backup failed (ENOSPC), so this change cannot be rewound."
        in (out["big_write"])
    )
    full = out["rewind_full"]
    assert full["restored"] == full["deleted"] == []
    assert full["failed"] == [
        {"path": "a.txt", "reason": "undo_backup_failed", "errno": "ENOSPC"},
        {"path": "big.txt", "reason": "backup_failed", "errno": "ENOSPC"},
    ]
    assert out["tree_after_full"] == {"a.txt": 3 * 4096, "big.txt": 6}
    again = out["rewind"]
    assert again["restored"] == ["a.txt"]
    assert again["failed"] == [{"path": "big.txt", "reason": "backup_failed", "errno": "ENOSPC"}]
    assert out["tree_after"] == {"a.txt": 3, "big.txt": 6}
    assert (ws / "a.txt").read_bytes() == b"a0\n"
    assert "t0" in out["resume_turns"]


def test_blob_deleted_behind_our_back(agent: Agent, workspace: Path, history_root: Path) -> None:
    (workspace / "a.txt").write_bytes(b"a0\n")
    (workspace / "b.txt").write_bytes(b"b0\n")
    agent.history.make_snapshot("t0")
    agent.write("a.txt", b"a1\n")
    agent.write("b.txt", b"b1\n")
    # A segment deleted by hand takes every backup it held.
    shutil.rmtree(agent.history.dir / "packs")
    assert [t["canRestore"] for t in agent.history.turns()] == [True]  # not re-checked here
    stats = agent.history.diff_stats("t0")
    assert stats["unavailable"] == [
        {"path": "a.txt", "reason": "backup_missing"},
        {"path": "b.txt", "reason": "backup_missing"},
    ]
    result = agent.history.rewind("t0")
    assert result["failed"] == [
        {"path": "a.txt", "reason": "backup_missing", "errno": "ENOENT"},
        {"path": "b.txt", "reason": "backup_missing", "errno": "ENOENT"},
    ]
    assert result["restored"] == []
    assert tree(workspace) == {"a.txt": b"a1\n", "b.txt": b"b1\n"}


def test_loose_blob_deleted_behind_our_back(
    agent: Agent, workspace: Path, history_root: Path
) -> None:
    """A history written before pack segments keeps a file per blob; one lost fails one file."""
    (workspace / "a.txt").write_bytes(b"a0\n")
    (workspace / "b.txt").write_bytes(b"b0\n")
    agent.history.make_snapshot("t0")
    agent.write("a.txt", b"a1\n")
    agent.write("b.txt", b"b1\n")
    loose_history(agent.history.dir)
    (agent.history.dir / "blobs" / digest(b"a0\n")).unlink()
    resumed = open_history(history_root, workspace)
    result = resumed.rewind("t0")
    assert result["failed"] == [{"path": "a.txt", "reason": "backup_missing", "errno": "ENOENT"}]
    assert result["restored"] == ["b.txt"]
    assert tree(workspace) == {"a.txt": b"a1\n", "b.txt": b"b0\n"}


def test_corrupt_blob_is_never_restored(agent: Agent, workspace: Path, history_root: Path) -> None:
    (workspace / "a.txt").write_bytes(b"a0\n")
    agent.history.make_snapshot("t0")
    agent.write("a.txt", b"a1\n")
    overwrite_blob(agent.history.dir, digest(b"a0\n"), b"XX\n")
    result = agent.history.rewind("t0")
    assert result["failed"] == [{"path": "a.txt", "reason": "backup_corrupt"}]
    assert (workspace / "a.txt").read_bytes() == b"a1\n"
    # A fresh process (another door) reports it the same way.
    resumed = open_history(history_root, workspace)
    assert resumed.rewind("t0")["failed"] == [{"path": "a.txt", "reason": "backup_corrupt"}]
    assert (workspace / "a.txt").read_bytes() == b"a1\n"


def test_corrupt_loose_blob_is_never_restored(
    agent: Agent, workspace: Path, history_root: Path
) -> None:
    (workspace / "a.txt").write_bytes(b"a0\n")
    agent.history.make_snapshot("t0")
    agent.write("a.txt", b"a1\n")
    loose_history(agent.history.dir)
    (agent.history.dir / "blobs" / digest(b"a0\n")).write_bytes(b"XX\n")
    result = open_history(history_root, workspace).rewind("t0")
    assert result["failed"] == [{"path": "a.txt", "reason": "backup_corrupt"}]
    assert (workspace / "a.txt").read_bytes() == b"a1\n"


def test_snapshot_restores_a_deleted_blob_of_unchanged_content(
    agent: Agent, workspace: Path, history_root: Path
) -> None:
    agent.history.make_snapshot("t0")
    agent.write("a.txt", b"a1\n")
    agent.history.make_snapshot("t1")
    shutil.rmtree(agent.history.dir / "packs")
    agent.history.make_snapshot("t2")
    assert digest(b"a1\n") in stored_blobs(agent.history)
    agent.write("a.txt", b"a2\n")
    assert agent.history.rewind("t1")["restored"] == ["a.txt"]


def test_target_replaced_by_a_directory(agent: Agent, workspace: Path) -> None:
    (workspace / "a.txt").write_bytes(b"a0\n")
    agent.history.make_snapshot("t0")
    agent.write("a.txt", b"a1\n")
    agent.write("b.txt", b"b1\n")
    (workspace / "a.txt").unlink()
    (workspace / "a.txt").mkdir()
    (workspace / "a.txt" / "inner").write_bytes(b"user data")
    result = agent.history.rewind("t0")
    assert result["failed"] == [{"path": "a.txt", "reason": "is_directory", "errno": "EISDIR"}]
    assert result["deleted"] == ["b.txt"] and result["restored"] == []
    assert (workspace / "a.txt" / "inner").read_bytes() == b"user data"
    # Its own undo snapshot could not capture a directory either; undo reports it the same way.
    undo = agent.history.rewind(result["undoPromptId"])
    assert undo["failed"] == [{"path": "a.txt", "reason": "is_directory", "errno": "EISDIR"}]
    assert undo["restored"] == ["b.txt"]


def test_history_dir_that_cannot_be_created_never_blocks_edits(
    tmp_path: Path, workspace: Path
) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_bytes(b"a file where the history dir should be")
    history = open_history(blocker, workspace, "s")
    assert history.warnings and "could not be created" in history.warnings[0]
    agent = Agent(history, workspace)
    warnings = agent.write("a.txt", b"x")
    assert (workspace / "a.txt").read_bytes() == b"x"
    assert warnings[-1].endswith("cannot be rewound after a restart.")

"""Disk budget, journal compaction, retention, and several processes on one history."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers_history import Agent, open_history, stored_blobs, tree

from waymark.store.files import digest
from waymark.store.history import History, history_workspace, workspace_dir
from waymark.store.history.journal import Journal


def du(directory: Path) -> int:
    return sum(p.stat().st_size for p in directory.rglob("*") if p.is_file())


def test_budget_bounds_the_directory_and_the_oldest_kept_turn_rewinds_exactly(
    workspace: Path, history_root: Path
) -> None:
    budget = 1 << 20
    agent = Agent(open_history(history_root, workspace, max_bytes=budget), workspace)
    rng = random.Random(3)
    moments: dict[str, dict[str, bytes]] = {}
    for turn in range(200):
        moments[f"t{turn}"] = tree(workspace)
        agent.history.make_snapshot(f"t{turn}")
        for name in ("a.bin", "b.bin", "c.bin"):
            agent.write(name, rng.randbytes(20_000))
        assert du(agent.history.dir) <= budget
    kept = [t["promptId"] for t in agent.history.turns()]
    assert 5 < len(kept) < 200 and kept[-1] == "t199"
    result = agent.history.rewind(kept[0])
    assert result["conflicts"] == [] and result["failed"] == []
    assert tree(workspace) == moments[kept[0]]
    # Evicted turns say so exactly (in the command layer's words).
    with pytest.raises(Exception, match="No snapshot has promptId 't0'"):
        agent.history.rewind("t0")


def test_journal_stays_compact_and_resume_restores_the_newest_turn(
    workspace: Path, history_root: Path
) -> None:
    agent = Agent(open_history(history_root, workspace, max_snapshots=3), workspace)
    journal = agent.history.dir / "journal.jsonl"
    size_at_20 = 0
    for turn in range(600):
        agent.history.make_snapshot(f"t{turn}")
        for name in ("a.txt", "b.txt", "c.txt"):
            agent.write(name, f"{name} in turn {turn}\n".encode() * 20)
        if turn == 19:
            size_at_20 = journal.stat().st_size
        assert journal.stat().st_size <= 3 * max(size_at_20, 1) or turn < 20
    expected = tree(workspace)
    agent.history.make_snapshot("last")
    agent.write("a.txt", b"after\n")
    resumed = open_history(history_root, workspace, max_snapshots=3)
    assert [t["promptId"] for t in resumed.turns()] == ["t598", "t599", "last"]
    assert resumed.rewind("last")["restored"] == ["a.txt"]
    assert tree(workspace) == expected


def test_a_failed_compaction_leaves_the_old_journal(
    agent: Agent, workspace: Path, history_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for turn in range(5):
        agent.history.make_snapshot(f"t{turn}")
        agent.write("a.txt", f"{turn}\n".encode())
    journal = agent.history.dir / "journal.jsonl"
    before = journal.read_bytes()

    def killed(*args: object) -> None:
        raise OSError("killed before the rename")

    monkeypatch.setattr("waymark.store.history.journal.os.replace", killed)
    agent.history.compact()
    monkeypatch.undo()
    assert journal.read_bytes() == before
    assert not list(agent.history.dir.glob(".journal.tmp-*"))
    turns = agent.history.turns()
    agent.history.compact()
    assert len(journal.read_bytes()) < len(before)
    assert open_history(history_root, workspace).turns() == turns


CHILD = """
import sys
from pathlib import Path
from waymark.store.history import History, history_workspace
root = Path(sys.argv[1])
h = History.open(root, history_workspace(root, [Path(sys.argv[2])]), session="child")
h.make_snapshot("from-child")
path = Path(sys.argv[2]) / "child.txt"
h.track_edit(path)
path.write_bytes(b"child\\n")
h.record_write(path, None)
if sys.argv[3] == "compact":
    h.compact()
"""


@pytest.mark.parametrize("mode", ["append", "compact"])
def test_another_process_s_turns_show_up_without_reopening(
    agent: Agent, workspace: Path, history_root: Path, mode: str
) -> None:
    agent.history.make_snapshot("t0")
    agent.write("a.txt", b"a\n")
    subprocess.run(
        [sys.executable, "-c", CHILD, str(history_root), str(workspace), mode], check=True
    )
    turns = agent.history.turns()
    assert [t["promptId"] for t in turns] == ["t0", "from-child"]
    assert turns[1]["edited"] == ["child.txt"]
    agent.write("a.txt", b"a2\n")
    assert open_history(history_root, workspace).turns() == agent.history.turns()


def test_untouched_workspace_histories_are_removed_after_the_retention(
    tmp_path: Path, history_root: Path
) -> None:
    old, recent = tmp_path / "old", tmp_path / "recent"
    for folder in (old, recent):
        folder.mkdir()
        open_history(history_root, folder).make_snapshot("t0")
    stale = time.time() - 31 * 86400
    for path in [
        workspace_dir(history_root, [old]),
        *workspace_dir(history_root, [old]).rglob("*"),
    ]:
        os.utime(path, (stale, stale))
    History.open(history_root, history_workspace(history_root, [tmp_path / "third"]))
    assert not workspace_dir(history_root, [old]).exists()
    assert workspace_dir(history_root, [recent]).exists()


def test_resume_streams(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    path.write_bytes(b"")
    seen: list[object] = []
    replay = Journal(path).replay(seen.append)
    assert replay.records == 0 and replay.offset == 0 and seen == []


COMPACT_FOREVER = """
import sys
from pathlib import Path
from waymark.store.history import History, history_workspace
root = Path(sys.argv[1])
h = History.open(root, history_workspace(root, [Path(sys.argv[2])]), session="s1")
print("ready", flush=True)
while True:
    h.compact()
"""


def test_sigkill_during_compaction_resumes_to_the_same_state(
    agent: Agent, workspace: Path, history_root: Path
) -> None:
    moments = {}
    for turn in range(30):
        moments[f"t{turn}"] = tree(workspace)
        agent.history.make_snapshot(f"t{turn}")
        agent.write(f"f{turn % 4}.txt", f"{turn}\n".encode() * 50)
    turns = agent.history.turns()
    agent.history.close()
    rng = random.Random(11)
    for _ in range(8):
        child = subprocess.Popen(
            [sys.executable, "-c", COMPACT_FOREVER, str(history_root), str(workspace)],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert child.stdout is not None and child.stdout.readline() == "ready\n"
            time.sleep(rng.uniform(0, 0.05))
        finally:
            child.kill()
            child.wait()
        assert open_history(history_root, workspace).turns() == turns
    resumed = open_history(history_root, workspace)
    assert resumed.rewind("t3")["failed"] == []
    assert tree(workspace) == moments["t3"]


def test_first_backups_go_last_and_only_those_no_turn_needs(
    workspace: Path, history_root: Path
) -> None:
    original = random.Random(1).randbytes(150_000)
    (workspace / "big.bin").write_bytes(original)
    budget = 100_000
    agent = Agent(open_history(history_root, workspace, max_bytes=budget), workspace)
    agent.history.make_snapshot("t0")
    agent.write("big.bin", b"small\n")
    for turn in range(1, 4):
        agent.history.make_snapshot(f"t{turn}")
        agent.write("notes.txt", f"{turn}\n".encode())
    assert du(agent.history.dir) <= budget
    # t0 went first; then the original, which no remaining turn rewinds to.
    assert [t["promptId"] for t in agent.history.turns()] == ["t1", "t2", "t3"]
    result = agent.history.rewind("t1")
    assert result["deleted"] == ["notes.txt"] and result["unchanged"] == ["big.bin"]
    assert digest(original) not in stored_blobs(agent.history)
    resumed = open_history(history_root, workspace, max_bytes=budget)
    assert resumed.turns() == agent.history.turns()

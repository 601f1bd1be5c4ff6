"""Conflicts, two sessions, previews, options, serialization and eviction."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest
from helpers_history import Agent, open_history, stored_blobs, tree

from waymark.engine.errors import InvalidParams, RewindInProgress, UnknownPrompt
from waymark.store.files import digest
from waymark.store.history.sweep_stamp import STAMP


def test_user_edit_is_a_conflict_and_force_keeps_it_undoable(agent: Agent, workspace: Path) -> None:
    agent.history.make_snapshot("t0")
    agent.write("a.txt", b"agent\n")
    agent.write("b.txt", b"agent b\n")
    (workspace / "a.txt").write_bytes(b"user edit\n")
    result = agent.history.rewind("t0")
    assert result["conflicts"] == [{"path": "a.txt", "reason": "changed_since_agent_write"}]
    assert result["deleted"] == ["b.txt"]
    assert (workspace / "a.txt").read_bytes() == b"user edit\n"
    forced = agent.history.rewind("t0", force=True)
    assert forced["deleted"] == ["a.txt"] and forced["unchanged"] == ["b.txt"]
    undo = agent.history.rewind(forced["undoPromptId"])
    assert undo["restored"] == ["a.txt"] and undo["conflicts"] == []
    assert (workspace / "a.txt").read_bytes() == b"user edit\n"


def test_user_edit_between_turns_is_never_silently_overwritten(
    agent: Agent, workspace: Path
) -> None:
    agent.history.make_snapshot("t0")
    agent.write("a.txt", b"agent\n")
    (workspace / "a.txt").write_bytes(b"user\n")
    agent.history.make_snapshot("t1")  # records the user's version as t1's start
    assert agent.history.rewind("t1")["unchanged"] == ["a.txt"]
    assert agent.history.rewind("t0")["conflicts"] == [
        {"path": "a.txt", "reason": "changed_since_agent_write"}
    ]


def test_sessions_share_one_history_and_never_clobber_each_other(
    workspace: Path, history_root: Path
) -> None:
    one = Agent(open_history(history_root, workspace, "one"), workspace)
    two = Agent(open_history(history_root, workspace, "two"), workspace)
    (workspace / "shared.txt").write_bytes(b"base\n")
    one.history.make_snapshot("t0")
    assert two.history.turns() == one.history.turns()
    one.write("shared.txt", b"one\n")
    one.write("mine.txt", b"one's\n")
    two.write("shared.txt", b"two\n")
    two.write("theirs.txt", b"two's\n")
    result = one.history.rewind("t0")
    assert result["deleted"] == ["mine.txt"]
    assert result["conflicts"] == [
        {"path": "shared.txt", "reason": "written_by_other_session"},
        {"path": "theirs.txt", "reason": "written_by_other_session"},
    ]
    assert tree(workspace) == {"shared.txt": b"two\n", "theirs.txt": b"two's\n"}
    # Session two sees one's rewind turn and rewinds its own writes cleanly.
    assert [t["promptId"] for t in two.history.turns()] == [
        t["promptId"] for t in one.history.turns()
    ]
    again = two.history.rewind("t0")
    assert again["restored"] == ["shared.txt"] and again["deleted"] == ["theirs.txt"]
    assert tree(workspace) == {"shared.txt": b"base\n"}
    assert sorted(p.name for p in history_root.iterdir()) == [STAMP, one.history.dir.name]


def test_a_door_without_session_rewinds_every_session_s_writes(
    workspace: Path, history_root: Path
) -> None:
    agent = Agent(open_history(history_root, workspace, "host"), workspace)
    agent.history.make_snapshot("t0")
    agent.write("a.txt", b"a\n")
    cli = open_history(history_root, workspace, None)
    assert cli.rewind("t0")["deleted"] == ["a.txt"]


def test_plan_writes_nothing_and_apply_rechecks(agent: Agent, workspace: Path) -> None:
    (workspace / "a.txt").write_bytes(b"a0\n")
    (workspace / "b.txt").write_bytes(b"b0\n")
    agent.history.make_snapshot("t0")
    agent.write("a.txt", b"a1\n")
    agent.write("b.txt", b"b1\n")
    agent.write("c.txt", b"c1\n")
    plan = agent.history.plan_rewind("t0")
    assert tree(workspace) == {"a.txt": b"a1\n", "b.txt": b"b1\n", "c.txt": b"c1\n"}
    assert [(f.path, f.outcome) for f in plan.files] == [
        ("a.txt", "restore"),
        ("b.txt", "restore"),
        ("c.txt", "delete"),
    ]
    a = plan.files[0]
    assert (a.target, a.current, a.target_digest) == (b"a0\n", b"a1\n", digest(b"a0\n"))
    assert plan.files[2].target is None and not plan.files[2].target_exists
    agent.write("b.txt", b"b2\n")  # after the preview was shown
    agent.write("d.txt", b"d1\n")  # tracked after the preview
    result = agent.history.rewind("t0", plan=plan)
    assert result["restored"] == ["a.txt"] and result["deleted"] == ["c.txt"]
    assert result["conflicts"] == [
        {"path": "b.txt", "reason": "changed_since_preview"},
        {"path": "d.txt", "reason": "tracked_after_preview"},
    ]
    assert tree(workspace) == {"a.txt": b"a0\n", "b.txt": b"b2\n", "d.txt": b"d1\n"}
    with pytest.raises(InvalidParams):
        agent.history.rewind("other", plan=plan)


def test_plan_reports_conflicts_and_force(agent: Agent, workspace: Path) -> None:
    agent.history.make_snapshot("t0")
    agent.write("a.txt", b"a1\n")
    (workspace / "a.txt").write_bytes(b"user\n")
    [conflict] = agent.history.plan_rewind("t0").files
    assert (conflict.outcome, conflict.reason) == ("conflict", "changed_since_agent_write")
    [forced] = agent.history.plan_rewind("t0", force=True).files
    assert forced.outcome == "delete"
    assert agent.history.rewind("t0", plan=agent.history.plan_rewind("t0", force=True))[
        "deleted"
    ] == ["a.txt"]


def six_turns(agent: Agent) -> dict[str, dict[str, bytes]]:
    moments = {}
    for number in range(6):
        moments[f"t{number}"] = tree(agent.workspace)
        agent.history.make_snapshot(f"t{number}")
        agent.write("a.txt", f"a{number}\n".encode())
    return moments


@pytest.mark.parametrize("option", ["conversation", "both"])
def test_conversation_options_drop_later_turns(
    agent: Agent, history_root: Path, option: str
) -> None:
    moments = six_turns(agent)
    before = tree(agent.workspace)
    result = agent.history.rewind("t2", option=option)
    assert result["droppedTurns"] == ["t3", "t4", "t5"]
    ids = [t["promptId"] for t in agent.history.turns()]
    assert ids == ["t0", "t1", "t2", result["undoPromptId"]]
    if option == "conversation":
        assert result["restored"] == [] and tree(agent.workspace) == before
    else:
        assert result["restored"] == ["a.txt"] and tree(agent.workspace) == moments["t2"]
    assert [t["promptId"] for t in open_history(history_root, agent.workspace).turns()] == ids
    with pytest.raises(UnknownPrompt):
        agent.history.rewind("t4")


def test_code_option_keeps_the_turns(agent: Agent) -> None:
    six_turns(agent)
    result = agent.history.rewind("t2")
    ids = [t["promptId"] for t in agent.history.turns()]
    assert ids == ["t0", "t1", "t2", "t3", "t4", "t5", result["undoPromptId"]]


def test_bad_option_and_unknown_prompt(agent: Agent) -> None:
    agent.history.make_snapshot("t0")
    with pytest.raises(InvalidParams):
        agent.history.rewind("t0", option="everything")
    with pytest.raises(UnknownPrompt) as caught:
        agent.history.rewind("nope")
    assert caught.value.details["known"] == ["t0"]
    with pytest.raises(UnknownPrompt):
        agent.history.diff_stats("nope")


def test_second_rewind_while_one_runs(agent: Agent, monkeypatch: pytest.MonkeyPatch) -> None:
    agent.history.make_snapshot("t0")
    agent.write("a.txt", b"a\n")
    agent.history.make_snapshot("t1")
    agent.write("a.txt", b"b\n")
    inside, release = threading.Event(), threading.Event()
    # The rewind replaces files through the directories it walked.
    real_write = __import__("waymark.store.history.rewind", fromlist=["x"]).replace_checked

    def slow_write(walks: Any, path: Path, data: bytes) -> None:
        inside.set()
        release.wait(10)
        real_write(walks, path, data)

    monkeypatch.setattr("waymark.store.history.rewind.replace_checked", slow_write)
    results: list[dict[str, Any]] = []
    worker = threading.Thread(target=lambda: results.append(agent.history.rewind("t1")))
    worker.start()
    assert inside.wait(10)
    assert agent.history.rewinding
    with pytest.raises(RewindInProgress):
        agent.history.rewind("t0")
    edit_done = threading.Event()

    def edit() -> None:
        agent.write("z.txt", b"z")
        edit_done.set()

    editor = threading.Thread(target=edit)
    editor.start()
    assert not edit_done.wait(0.2)  # edits wait for the rewind (the lock)
    release.set()
    worker.join(10)
    editor.join(10)
    assert edit_done.is_set() and results[0]["restored"] == ["a.txt"]
    assert not agent.history.rewinding


def test_eviction_keeps_first_backups_and_deletes_unreferenced_blobs(
    workspace: Path, history_root: Path
) -> None:
    (workspace / "a.txt").write_bytes(b"original\n")
    agent = Agent(open_history(history_root, workspace, max_snapshots=3), workspace)
    moments = six_turns(agent)
    assert [t["promptId"] for t in agent.history.turns()] == ["t3", "t4", "t5"]
    # t3..t5 start with a2..a4; "original" is a.txt's first backup; a0, a1 are gone.
    expected = {digest(b"original\n")} | {digest(f"a{n}\n".encode()) for n in (2, 3, 4)}
    assert stored_blobs(agent.history) == expected
    result = agent.history.rewind("t3")
    assert result["restored"] == ["a.txt"] and tree(workspace) == moments["t3"]
    # The rewind's undo snapshot evicted t3 (max 3): t4, t5, undo remain, a5 now stored.
    assert [t["promptId"] for t in agent.history.turns()][:2] == ["t4", "t5"]
    assert digest(b"a2\n") not in stored_blobs(agent.history)
    assert digest(b"original\n") in stored_blobs(agent.history)
    resumed = open_history(history_root, workspace, max_snapshots=3)
    assert resumed.turns() == agent.history.turns()
    assert resumed.warnings == []


def test_file_first_touched_in_an_evicted_turn_goes_back_to_its_first_backup(
    workspace: Path, history_root: Path
) -> None:
    (workspace / "old.txt").write_bytes(b"pre-agent\n")
    agent = Agent(open_history(history_root, workspace, max_snapshots=2), workspace)
    agent.history.make_snapshot("t0")
    agent.write("old.txt", b"turn 0\n")
    agent.write("made.txt", b"made\n")
    for number in range(1, 4):
        agent.history.make_snapshot(f"t{number}")
        agent.write("old.txt", f"turn {number}\n".encode())
    assert [t["promptId"] for t in agent.history.turns()] == ["t2", "t3"]
    # Files tracked before t2 are in t2; their state there is after t0's and t1's edits.
    assert agent.history.rewind("t2")["restored"] == ["old.txt"]
    assert (workspace / "old.txt").read_bytes() == b"turn 1\n"
    agent.history.make_snapshot("t4")
    agent.write("late.txt", b"late\n")
    reopened = open_history(history_root, workspace, max_snapshots=1)
    assert [t["promptId"] for t in reopened.turns()] == ["t4"]
    assert reopened.rewind("t4")["deleted"] == ["late.txt"]
    assert digest(b"pre-agent\n") in stored_blobs(reopened)


def test_unchanged_files_are_not_reread_unless_racily_clean(
    agent: Agent, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from waymark.store import files
    from waymark.store.history import backups as core

    reads: list[str] = []
    real_read = files.read_found

    def counting_read(path: str, **keywords: Any) -> Any:
        reads.append(os.path.basename(path))
        return real_read(path, **keywords)

    monkeypatch.setattr(core, "read_found", counting_read)
    agent.history.make_snapshot("t0")
    agent.write("a.txt", b"same size 1\n")
    agent.history.make_snapshot("t1")
    reads.clear()
    agent.history.make_snapshot("t2")
    assert reads == ["a.txt"]  # just written: racily clean, so read again
    monkeypatch.setattr(core, "_RACY_NS", -(10**12))  # as if everything were old enough
    reads.clear()
    agent.history.make_snapshot("t3")
    assert reads == []
    # Same size, same mtime, same inode: only ctime tells; it must be re-read.
    path = workspace / "a.txt"
    st = path.stat()
    with open(path, "r+b") as handle:
        handle.write(b"SAME")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    agent.history.make_snapshot("t4")
    assert reads == ["a.txt"]
    assert agent.history.plan_rewind("t3").files[0].target == b"same size 1\n"
    assert agent.history.plan_rewind("t4").files[0].outcome == "unchanged"

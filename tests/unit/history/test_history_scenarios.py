"""Multi-turn sessions: a rewind to any turn gives exactly that moment's bytes, and undoes."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from helpers_history import Agent, open_history, packed_records, stored_blobs, tree
from hypothesis import given, settings
from hypothesis import strategies as st

TURNS: list[list[tuple[str, bytes | None]]] = [
    [("a.py", b"one\n"), ("pkg/b.py", b"b1\n"), ("keep.txt", b"k\n")],
    [("a.py", b"one\ntwo\n"), ("c.bin", b"\x00\x01\x02"), ("pkg/b.py", None)],
    [("a.py", None), ("pkg/b.py", b"b again\r\n"), ("d/e/f.txt", b"deep")],
    [("a.py", b"reborn"), ("c.bin", b"\x00\xff"), ("keep.txt", b"k2\n"), ("keep.txt", b"k3\n")],
]


def run_session(agent: Agent, workspace: Path) -> dict[str, dict[str, bytes]]:
    """Play TURNS (t0..t3) after a bystander file exists; return the tree at each turn start."""
    (workspace / "untracked.txt").write_bytes(b"never touched\n")
    (workspace / "keep.txt").write_bytes(b"original\n")
    moments: dict[str, dict[str, bytes]] = {}
    for number, writes in enumerate(TURNS):
        prompt = f"t{number}"
        moments[prompt] = tree(workspace)
        agent.history.make_snapshot(prompt, label=f"turn {number}")
        for name, data in writes:
            agent.write(name, data)
    moments["end"] = tree(workspace)
    return moments


def test_rewind_to_each_turn_and_undo_gives_exact_bytes(agent: Agent, workspace: Path) -> None:
    moments = run_session(agent, workspace)
    history = agent.history
    for prompt in ["t2", "t0", "t3", "t1", "t0", "t3"]:
        before = tree(workspace)
        result = history.rewind(prompt)
        assert tree(workspace) == moments[prompt], prompt
        assert result["conflicts"] == [] and result["failed"] == []
        undo = history.rewind(result["undoPromptId"])
        assert tree(workspace) == before, f"undo of {prompt}"
        assert undo["conflicts"] == [] and undo["failed"] == []
    assert agent.warnings == []


def test_rewind_reports_exact_per_file_outcomes(agent: Agent, workspace: Path) -> None:
    run_session(agent, workspace)
    result = agent.history.rewind("t1")
    assert result["restored"] == ["a.py", "keep.txt", "pkg/b.py"]
    assert result["deleted"] == ["c.bin", "d/e/f.txt"]
    assert result["unchanged"] == []
    assert result["option"] == "code" and result["droppedTurns"] == []
    again = agent.history.rewind("t1")
    assert again["restored"] == again["deleted"] == []
    assert again["unchanged"] == ["a.py", "c.bin", "d/e/f.txt", "keep.txt", "pkg/b.py"]


def test_snapshot_and_turns_shapes(agent: Agent, workspace: Path) -> None:
    run_session(agent, workspace)
    history = agent.history
    turns = history.turns()
    assert [t["promptId"] for t in turns] == ["t0", "t1", "t2", "t3"]
    assert turns[0]["label"] == "turn 0"
    assert turns[0]["files"] == ["a.py", "keep.txt", "pkg/b.py"]
    assert turns[1]["edited"] == ["a.py", "c.bin", "pkg/b.py"]
    assert all(t["canRestore"] for t in turns)
    snap = history.make_snapshot("t4")
    assert snap["files"] == ["a.py", "c.bin", "d/e/f.txt", "keep.txt", "pkg/b.py"]
    assert history.make_snapshot("t4") == snap  # a retried snapshot is idempotent


def test_resume_in_a_fresh_object_rebuilds_everything(
    agent: Agent, workspace: Path, history_root: Path
) -> None:
    moments = run_session(agent, workspace)
    resumed = open_history(history_root, workspace)
    assert resumed.warnings == []
    assert resumed.turns() == agent.history.turns()
    for prompt in ["t0", "t3", "t1", "t2"]:
        result = resumed.rewind(prompt)
        assert tree(workspace) == moments[prompt]
        assert result["conflicts"] == [] and result["failed"] == []
    # The rewind's own writes were journaled: one more resume can undo without conflicts.
    again = open_history(history_root, workspace)
    last_undo = again.turns()[-1]["promptId"]
    assert again.rewind(last_undo)["conflicts"] == []
    assert tree(workspace) == moments["t1"]


def test_resume_in_a_fresh_process_then_rewind(
    agent: Agent, workspace: Path, history_root: Path
) -> None:
    moments = run_session(agent, workspace)
    script = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from waymark.commands.history import rewind_json\n"
        "from waymark.store.history import History, history_workspace\n"
        "root = Path(sys.argv[1])\n"
        "h = History.open(root, history_workspace(root, [Path(sys.argv[3])]), session='s1')\n"
        "result = rewind_json(h, h.rewind(sys.argv[2]))\n"
        "print(json.dumps({'warnings': h.warnings, 'result': result}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(history_root), "t1", str(workspace)],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[3] / "language_server")},
    )
    answer = json.loads(out.stdout)
    assert answer["warnings"] == []
    assert answer["result"]["restored"] == ["a.py", "keep.txt", "pkg/b.py"]
    assert answer["result"]["deleted"] == ["c.bin", "d/e/f.txt"]
    assert tree(workspace) == moments["t1"]
    # And this process, resuming after the child, can undo the child's rewind.
    resumed = open_history(history_root, workspace)
    undo = resumed.rewind(answer["result"]["undoPromptId"])
    assert undo["conflicts"] == [] and undo["failed"] == []
    assert tree(workspace) == moments["end"]


def test_files_first_touched_later_go_back_to_their_first_backup(
    agent: Agent, workspace: Path
) -> None:
    (workspace / "late.txt").write_bytes(b"before the agent\n")
    agent.history.make_snapshot("t0")
    agent.write("early.txt", b"e\n")
    agent.history.make_snapshot("t1")
    agent.write("late.txt", b"agent 1\n")
    agent.history.make_snapshot("t2")
    agent.write("late.txt", b"agent 2\n")
    result = agent.history.rewind("t0")
    assert (workspace / "late.txt").read_bytes() == b"before the agent\n"
    assert not (workspace / "early.txt").exists()
    assert result["restored"] == ["late.txt"] and result["deleted"] == ["early.txt"]


def test_edits_before_any_snapshot_open_an_implicit_turn(agent: Agent, workspace: Path) -> None:
    agent.write("x.txt", b"x\n")
    turns = agent.history.turns()
    assert len(turns) == 1 and turns[0]["promptId"].startswith("auto-")
    assert turns[0]["label"] == "auto"
    agent.history.rewind(turns[0]["promptId"])
    assert not (workspace / "x.txt").exists()


names = st.sampled_from(["a", "b", "sub/c"])
contents = st.one_of(st.none(), st.sampled_from([b"", b"1\n", b"2\n2\n", b"\x00bin"]))
turn_writes = st.lists(st.tuples(names, contents), max_size=4)


@settings(max_examples=40, deadline=None)
@given(turns=st.lists(turn_writes, min_size=1, max_size=5), order=st.randoms())
def test_random_sessions_rewind_exactly(
    turns: list[list[tuple[str, bytes | None]]], order: random.Random
) -> None:
    with tempfile.TemporaryDirectory() as base:
        workspace = Path(base) / "ws"
        workspace.mkdir()
        agent = Agent(open_history(Path(base) / "h", workspace, "s"), workspace)
        moments = {}
        for number, writes in enumerate(turns):
            moments[f"t{number}"] = tree(workspace)
            agent.history.make_snapshot(f"t{number}")
            for name, data in writes:
                agent.write(name, data)
        prompts = list(moments) * 2
        order.shuffle(prompts)
        for prompt in prompts:
            before = tree(workspace)
            result = agent.history.rewind(prompt)
            assert tree(workspace) == moments[prompt]
            assert result["conflicts"] == [] and result["failed"] == []
            if order.random() < 0.3:
                agent.history.rewind(result["undoPromptId"])
                assert tree(workspace) == before


def test_identical_contents_share_one_blob(
    agent: Agent, workspace: Path, history_root: Path
) -> None:
    agent.history.make_snapshot("t0")
    for n in range(24):
        agent.write(f"copy{n}.txt", b"same bytes\n" * 100)
    agent.history.make_snapshot("t1")  # 24 parallel captures of one content
    for n in range(24):
        agent.write(f"copy{n}.txt", b"changed\n")
    [(segment, _, length)] = packed_records(agent.history.dir).values()
    assert length == len(b"same bytes\n" * 100) and segment.stat().st_mode & 0o777 == 0o600
    result = agent.history.rewind("t1")
    assert len(result["restored"]) == 24
    assert len(stored_blobs(agent.history)) == 2  # + the undo's "changed"
    assert {p.read_bytes() for p in workspace.iterdir()} == {b"same bytes\n" * 100}

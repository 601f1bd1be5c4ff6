"""The journal: record shape, what appends when, and replay over every kind of damage."""

from __future__ import annotations

import errno
import json
import logging
import os
from pathlib import Path
from typing import Any

import pytest
from helpers_history import Agent, Wire, open_history, tree

from waymark.store.files import digest
from waymark.store.history.journal import Journal, encode


def journal_of(root: Path) -> Path:
    [directory] = root.glob("ws-*")
    return directory / "journal.jsonl"


def lines_of(root: Path) -> list[bytes]:
    return journal_of(root).read_bytes().splitlines()


def three_turns(agent: Agent) -> dict[str, dict[str, bytes]]:
    moments = {}
    for number in range(3):
        moments[f"t{number}"] = tree(agent.workspace)
        agent.history.make_snapshot(f"t{number}")
        agent.write("a.txt", f"a{number}\n".encode())
        agent.write(f"f{number}.txt", b"new\n")
    return moments


def test_record_shape(agent: Agent, history_root: Path) -> None:
    agent.history.make_snapshot("t0", "first")
    agent.write("a.txt", b"x")
    full, added = (json.loads(line) for line in lines_of(history_root))
    assert full["type"] == "system" and full["subtype"] == "file_history_snapshot"
    [snap] = full["systemPayload"]["snapshots"]
    assert snap == {
        "promptId": "t0",
        "label": "first",
        "timestamp": snap["timestamp"],
        "seq": 0,
        "isUpdate": False,
        "files": {},
    }
    [update] = added["systemPayload"]["snapshots"]
    key = str(agent.path("a.txt"))
    entry = update["files"][key]
    assert update["isUpdate"] is True
    assert entry == {"display": "a.txt", "state": "absent", "digest": None, "time": entry["time"]}
    # The write is recorded ahead of it, in the backup's record, with what the file held before.
    assert update["writes"] == {key: digest(b"x")} and update["was"] == {key: None}


def test_repeated_track_edit_appends_nothing(agent: Agent, history_root: Path) -> None:
    agent.history.make_snapshot("t0")
    path = agent.path("a.txt")
    assert agent.history.track_edit(path) == []
    count = len(lines_of(history_root))
    assert agent.history.track_edit(path) == []
    assert agent.history.track_edit(path) == []
    assert len(lines_of(history_root)) == count


def test_files_and_dirs_are_private(agent: Agent, history_root: Path) -> None:
    agent.workspace.joinpath("a.txt").write_bytes(b"a")
    agent.write("a.txt", b"b")
    session = agent.history.dir
    modes = {
        p.relative_to(history_root).as_posix(): p.stat().st_mode & 0o777
        for p in [history_root, session, *session.rglob("*")]
    }
    assert {m for p, m in modes.items() if Path(history_root, p).is_dir()} == {0o700}
    assert {m for p, m in modes.items() if Path(history_root, p).is_file()} == {0o600}


def resume_and_check(
    history_root: Path, agent: Agent, moments: dict[str, dict[str, bytes]], turns: list[str]
) -> Wire:
    resumed = open_history(history_root, agent.workspace)
    assert [t["promptId"] for t in resumed.turns()] == turns
    for prompt in reversed(turns):
        result = resumed.rewind(prompt)
        assert result["failed"] == [] and result["conflicts"] == []
        assert tree(agent.workspace) == moments[prompt]
    return resumed


def test_truncated_final_line(agent: Agent, history_root: Path) -> None:
    moments = three_turns(agent)
    agent.write("f2.txt", b"newer\n")
    path = journal_of(history_root)
    data = path.read_bytes()
    count = data.count(b"\n")
    path.write_bytes(data[:-40])  # the last record (t2's second write of f2) loses its tail
    resumed = open_history(history_root, agent.workspace)
    assert len(resumed.warnings) == 1
    assert f"line {count}: truncated or invalid JSON" in resumed.warnings[0]
    # The lost write record makes f2.txt's state unverified: a conflict, never overwritten.
    result = resumed.rewind("t2")
    assert result["conflicts"] == [{"path": "f2.txt", "reason": "changed_since_agent_write"}]
    # The next append started on a fresh line: every line after the damaged one parses.
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b""
    assert all(json.loads(line) for line in lines[count:-1])
    assert lines[count - 1] == data[:-40].split(b"\n")[-1]
    forced = open_history(history_root, agent.workspace).rewind("t1", force=True)
    assert forced["failed"] == [] and tree(agent.workspace) == moments["t1"]


def test_nul_padding(agent: Agent, history_root: Path) -> None:
    moments = three_turns(agent)
    path = journal_of(history_root)
    lines = path.read_bytes().split(b"\n")
    lines.insert(5, b"\x00" * 64)  # a NUL-filled block in the middle
    lines[8] = b"\x00" * 16 + lines[8]  # padding in front of a valid record
    path.write_bytes(b"\n".join(lines) + b"\x00" * 300)  # and a padded tail without a newline
    resumed = open_history(history_root, agent.workspace)
    assert resumed.warnings == [
        "journal line 6: NUL padding skipped",
        "journal line 9: NUL padding around a record dropped",
        f"journal line {len(lines)}: NUL padding skipped",
    ]
    resumed.make_snapshot("t3")
    moments["t3"] = tree(agent.workspace)
    assert path.read_bytes().split(b"\n")[len(lines) - 1] == b"\x00" * 300
    resume_and_check(history_root, agent, moments, ["t0", "t1", "t2", "t3"])


def test_two_records_glued(agent: Agent, history_root: Path) -> None:
    moments = three_turns(agent)
    path = journal_of(history_root)
    lines = path.read_bytes().split(b"\n")
    lines[3:5] = [lines[3] + lines[4]]
    path.write_bytes(b"\n".join(lines))
    resumed = open_history(history_root, agent.workspace)
    assert resumed.warnings == ["journal line 4: records glued on one line, split apart"]
    resume_and_check(history_root, agent, moments, ["t0", "t1", "t2"])


def test_glued_onto_a_truncated_record(agent: Agent, history_root: Path) -> None:
    three_turns(agent)
    path = journal_of(history_root)
    lines = path.read_bytes().split(b"\n")
    lines[7:9] = [lines[7][:30] + lines[8]]  # half a record, then a whole one
    path.write_bytes(b"\n".join(lines))
    resumed = open_history(history_root, agent.workspace)
    assert len(resumed.warnings) == 1
    assert resumed.warnings[0].startswith("journal line 8: truncated or invalid JSON")
    assert len(open_history(history_root, agent.workspace).turns()) == 3
    assert [t["promptId"] for t in resumed.turns()] == ["t0", "t1", "t2"]


def test_invalid_utf8(agent: Agent, history_root: Path) -> None:
    moments = three_turns(agent)
    path = journal_of(history_root)
    lines = path.read_bytes().split(b"\n")
    lines.insert(2, b'{"type":"system","x":"\xff\xfe"}')
    path.write_bytes(b"\n".join(lines))
    resumed = open_history(history_root, agent.workspace)
    # Bytes that are not UTF-8 are read as escapes (file names may be such bytes); this
    # line is still no history record.
    assert resumed.warnings == [
        "journal line 3: not a history record (the record is not a "
        "system/file_history_snapshot record)"
    ]
    resume_and_check(history_root, agent, moments, ["t0", "t1", "t2"])


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("[1, 2]", "the record is not a JSON object"),
        ('{"type": "user", "message": "hi"}', "not a system/file_history_snapshot record"),
        (
            '{"type":"system","subtype":"file_history_snapshot","systemPayload":{}}',
            "no `systemPayload.snapshots` list",
        ),
        (
            '{"type":"system","subtype":"file_history_snapshot","systemPayload":'
            '{"snapshots":[{"promptId":"tX","timestamp":"now","seq":"one"}]}}',
            "non-negative integer `seq`",
        ),
        (
            '{"type":"system","subtype":"file_history_snapshot","systemPayload":'
            '{"snapshots":[{"promptId":"tX","timestamp":"now","seq":1,'
            '"files":{"/x":{"display":"x","state":"present","digest":null,"time":1}}}]}}',
            "present file entry without a digest",
        ),
        ('"just a string"', "the record is not a JSON object"),
    ],
)
def test_valid_json_of_the_wrong_shape(
    agent: Agent, history_root: Path, line: str, why: str
) -> None:
    moments = three_turns(agent)
    path = journal_of(history_root)
    lines = path.read_bytes().split(b"\n")
    lines.insert(4, line.encode())
    path.write_bytes(b"\n".join(lines))
    resumed = open_history(history_root, agent.workspace)
    assert len(resumed.warnings) == 1
    assert resumed.warnings[0].startswith("journal line 5: not a history record")
    assert why in resumed.warnings[0]
    resume_and_check(history_root, agent, moments, ["t0", "t1", "t2"])


def test_journal_write_errors_are_logged_never_fatal(
    agent: Agent, history_root: Path, caplog: pytest.LogCaptureFixture
) -> None:
    agent.history.make_snapshot("t0")
    path = journal_of(history_root)
    path.unlink()
    path.mkdir()  # appends now fail with EISDIR
    with caplog.at_level(logging.WARNING, logger="waymark.history"):
        warnings = agent.write("a.txt", b"x")
    assert (agent.workspace / "a.txt").read_bytes() == b"x"
    assert warnings == [
        "a.txt: the history journal could not be written, so this change cannot be "
        "rewound after a restart."
    ]
    assert any("could not be opened" in r.message for r in caplog.records)
    # In this process the change is still rewindable.
    assert agent.history.rewind("t0")["deleted"] == ["a.txt"]


def test_partial_append_is_followed_by_a_fresh_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal = Journal(tmp_path / "j.jsonl")
    record = {
        "type": "system",
        "subtype": "file_history_snapshot",
        "systemPayload": {"snapshots": []},
    }
    assert journal.append(record)
    real_write = os.write

    calls = []

    def half_then_full(fd: int, data: bytes | memoryview) -> int:
        calls.append(len(data))
        if len(calls) == 1:
            return real_write(fd, bytes(data[:10]))
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("waymark.store.history.journal.os.write", half_then_full)
    assert not journal.append(record)
    monkeypatch.undo()
    assert journal.append(record)
    lines = (tmp_path / "j.jsonl").read_bytes().split(b"\n")
    assert lines[1] == json.dumps(record, separators=(",", ":")).encode()[:10]
    assert json.loads(lines[2]) == record and lines[3] == b""
    records: list[object] = []
    replay = Journal(tmp_path / "j.jsonl").replay(records.append)
    assert len(replay.warnings) == 1 and records == []


@pytest.mark.parametrize(
    "record",
    [
        {"a": None, "b": [1, -2.5, True], "c": {"é": 'π\u2028"\\\n'}},
        {"path": "/ws/caf\udcff.txt", "time": 1795791407.119842, "big": 10**30},
        {"nested": [{"x": []}, {}], "e": 1e300},
    ],
)
def test_a_journal_line_is_the_bytes_json_dumps_made(record: dict[str, Any]) -> None:
    # The line's bytes must not depend on how the encoder is built (journals stay readable
    # by older versions, and compaction compares nothing but bytes).
    old = json.dumps(record, separators=(",", ":"), ensure_ascii=False)
    assert encode(record) == old.encode("utf-8", "surrogateescape")


@pytest.mark.parametrize(
    "record",
    [
        {"type": "system", "payload": {"snapshots": [{"seq": 3, "label": None, "ok": True}]}},
        {"path": "/w/caf\u00e9 \u65e5\u672c.py", "tab": 'a\tb\n"q"\\', "nul": "\x00\x1f\x7f"},
        {"undecodable": "/w/\udcff\udc80.py", "emoji": "\U0001f600", "bom": "\ufeff"},
        {"floats": [0.1, 1e300, -0.0, float("inf"), float("nan")], "big": 2**70, "neg": -1},
        {"empty": {}, "list": [], "nested": [[{"k": [None, False]}]], "": ""},
    ],
)
def test_a_line_is_what_json_dumps_makes_of_the_record(record: dict[str, Any]) -> None:
    expected = json.dumps(record, separators=(",", ":"), ensure_ascii=False)
    assert encode(record) == expected.encode("utf-8", "surrogateescape")


def test_a_value_json_cannot_carry_is_refused_as_json_dumps_refuses_it() -> None:
    with pytest.raises(TypeError) as ours:
        encode({"bytes": b"x"})
    with pytest.raises(TypeError) as theirs:
        json.dumps({"bytes": b"x"})
    assert str(ours.value) == str(theirs.value)

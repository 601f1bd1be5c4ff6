"""Pack segments: torn tails, corrupt records, concurrent appenders, compaction, old histories.

The format is the one docs/history.md describes; these tests read it back the way a person
recovering blobs by hand would (``packed_records``), and kill real processes mid-append.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from helpers_history import (
    Agent,
    loose_history,
    open_history,
    packed_records,
    stored_blobs,
    tree,
)

from waymark.store.files import digest
from waymark.store.history.packgc import compact
from waymark.store.history.packs import HEADER, Packs, RecordCorrupt, header, parse_header

LANGUAGE_SERVER = Path(__file__).resolve().parents[3] / "language_server"


def _blob(n: int, size: int = 100) -> bytes:
    return (f"blob {n} ".encode() * size)[:size]


def _segments(root: Path) -> list[Path]:
    return sorted(root.glob("pack-*"))


def test_records_are_digest_length_and_bytes(tmp_path: Path) -> None:
    packs = Packs(tmp_path / "packs", max_bytes=1 << 30)
    packs.put(digest(b"one\n"), b"one\n")
    packs.put(digest(b"one\n"), b"one\n")  # stored once
    packs.put(digest(b""), b"")
    [segment] = _segments(tmp_path / "packs")
    assert segment.name == "pack-0000000001" and segment.stat().st_mode & 0o777 == 0o600
    assert segment.read_bytes() == (header(digest(b"one\n"), 4) + b"one\n" + header(digest(b""), 0))
    raw = segment.read_bytes()
    assert raw[:4] == b"WMB\x01" and int.from_bytes(raw[4:12], "big") == 4
    assert raw[12:28].hex() == digest(b"one\n") and len(raw) == 2 * HEADER + 4
    fresh = Packs(tmp_path / "packs", max_bytes=1 << 30)
    assert fresh.get(digest(b"one\n")) == b"one\n" and fresh.get(digest(b"")) == b""
    assert fresh.get(digest(b"never stored")) is None


def test_a_released_blob_reads_back_until_compacted(tmp_path: Path) -> None:
    """Released here but referenced again by another process: its record still serves."""
    packs = Packs(tmp_path / "packs", max_bytes=1 << 30)
    packs.put(digest(_blob(1)), _blob(1))
    packs.put(digest(_blob(2)), _blob(2))
    packs.forget(digest(_blob(1)))
    assert packs.get(digest(_blob(1))) == _blob(1)
    # Being read back, it is live again: a compaction keeps it.
    packs.forget(digest(_blob(2)))
    compact(packs, set(), pressed=True)
    assert packs.get(digest(_blob(1))) == _blob(1)
    assert packs.get(digest(_blob(2))) is None


def test_torn_tail_is_never_indexed_and_appends_go_to_a_new_segment(tmp_path: Path) -> None:
    root = tmp_path / "packs"
    packs = Packs(root, max_bytes=1 << 30)
    for n in range(3):
        packs.put(digest(_blob(n)), _blob(n))
    [segment] = _segments(root)
    good = segment.read_bytes()
    torn = _blob(3)
    # A writer killed mid-append: the header and half the bytes landed.
    with open(segment, "ab") as handle:
        handle.write(header(digest(torn), len(torn)) + torn[:50])
    fresh = Packs(root, max_bytes=1 << 30)
    assert [fresh.get(digest(_blob(n))) for n in range(3)] == [_blob(n) for n in range(3)]
    assert fresh.get(digest(torn)) is None
    fresh.put(digest(_blob(4)), _blob(4))
    assert [s.name for s in _segments(root)] == ["pack-0000000001", "pack-0000000002"]
    # The earlier records are untouched, byte for byte, and the torn bytes never read.
    assert segment.read_bytes()[: len(good)] == good
    assert Packs(root, max_bytes=1 << 30).get(digest(_blob(4))) == _blob(4)
    # The process that appended before the tear, still running, sees it the same way.
    packs.stale = True
    packs.put(digest(_blob(5)), _blob(5))
    assert packs.get(digest(_blob(5))) == _blob(5) and packs.get(digest(torn)) is None
    assert len(_segments(root)) == 2


def test_a_partial_header_at_the_tail_is_torn_too(tmp_path: Path) -> None:
    root = tmp_path / "packs"
    Packs(root, max_bytes=1 << 30).put(digest(b"a"), b"a")
    with open(root / "pack-0000000001", "ab") as handle:
        handle.write(header(digest(b"b"), 1)[:10])
    fresh = Packs(root, max_bytes=1 << 30)
    assert fresh.get(digest(b"a")) == b"a"
    fresh.put(digest(b"b"), b"b")
    assert len(_segments(root)) == 2 and Packs(root, max_bytes=1 << 30).get(digest(b"b")) == b"b"


def test_zeros_where_the_last_records_were_are_missing_not_restored(tmp_path: Path) -> None:
    """A power cut on a filesystem that extended the file before its data landed."""
    root = tmp_path / "packs"
    packs = Packs(root, max_bytes=1 << 30)
    for n in range(3):
        packs.put(digest(_blob(n)), _blob(n))
    segment = root / "pack-0000000001"
    _, offset, _ = packed_records(tmp_path)[digest(_blob(1))]
    data = segment.read_bytes()
    segment.write_bytes(data[: offset - HEADER] + bytes(len(data) - offset + HEADER))
    fresh = Packs(root, max_bytes=1 << 30)
    assert fresh.get(digest(_blob(0))) == _blob(0)
    assert fresh.get(digest(_blob(1))) is None and fresh.get(digest(_blob(2))) is None
    fresh.put(digest(_blob(1)), _blob(1))
    assert (
        len(_segments(root)) == 2
        and segment.read_bytes()[: offset - HEADER] == data[: offset - HEADER]
    )
    assert Packs(root, max_bytes=1 << 30).get(digest(_blob(1))) == _blob(1)


def test_corrupt_bytes_are_reported_never_returned(tmp_path: Path) -> None:
    root = tmp_path / "packs"
    Packs(root, max_bytes=1 << 30).put(digest(_blob(1)), _blob(1))
    Packs(root, max_bytes=1 << 30).put(digest(_blob(2)), _blob(2))
    segment, offset, _ = packed_records(tmp_path)[digest(_blob(1))]
    with open(segment, "r+b") as handle:
        handle.seek(offset + 7)
        handle.write(b"X")
    fresh = Packs(root, max_bytes=1 << 30)
    with pytest.raises(RecordCorrupt):
        fresh.get(digest(_blob(1)))
    assert fresh.get(digest(_blob(2))) == _blob(2)


def test_a_damaged_header_loses_only_its_record(tmp_path: Path) -> None:
    root = tmp_path / "packs"
    packs = Packs(root, max_bytes=1 << 30)
    for n in range(4):
        packs.put(digest(_blob(n)), _blob(n))
    segment, offset, _ = packed_records(tmp_path)[digest(_blob(1))]
    with open(segment, "r+b") as handle:
        handle.seek(offset - HEADER + 5)  # inside the length: the header's check fails
        handle.write(b"\xff")
    fresh = Packs(root, max_bytes=1 << 30)
    assert fresh.get(digest(_blob(1))) is None
    assert [fresh.get(digest(_blob(n))) for n in (0, 2, 3)] == [_blob(n) for n in (0, 2, 3)]
    # A damaged segment takes no more appends.
    fresh.put(digest(_blob(9)), _blob(9))
    assert len(_segments(root)) == 2


_APPENDER = textwrap.dedent(
    """
    import os, sys, xxhash
    from pathlib import Path
    from waymark.store.history.packs import Packs
    root, me, count, size = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    packs = Packs(root, max_bytes=int(sys.argv[5]))
    for n in range(count):
        # Half the contents are every appender's, half this one's own.
        data = (f"{n % 2 and me}-{n}:".encode() * size)[:size]
        packs.stale = True
        packs.put(xxhash.xxh3_128_hexdigest(data), data)
        # Acknowledged: what a journal record would now name.
        print(xxhash.xxh3_128_hexdigest(data), flush=True)
    """
)


def _appender(root: Path, me: int, count: int, size: int, max_bytes: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _APPENDER, *map(str, (root, me, count, size, max_bytes))],
        env={**os.environ, "PYTHONPATH": str(LANGUAGE_SERVER)},
        stdout=subprocess.PIPE,
        text=True,
    )


def test_concurrent_appenders_in_separate_processes(tmp_path: Path) -> None:
    """Four processes append at once, without the history's lock: every record lands whole,
    each content once per segment it was first stored in, and every one reads back."""
    root = tmp_path / "packs"
    procs = [_appender(root, me, 60, 3000, 4 << 20) for me in range(4)]
    acknowledged: set[str] = set()
    for proc in procs:
        out, _ = proc.communicate(timeout=120)
        assert proc.returncode == 0
        acknowledged.update(out.split())
    records = packed_records(tmp_path)
    assert set(records) == acknowledged and len(acknowledged) == 30 + 4 * 30
    # Whole records end to end in every segment: nothing torn, nothing interleaved.
    for segment in _segments(root):
        data, pos = segment.read_bytes(), 0
        while pos < len(data):
            parsed = parse_header(data[pos : pos + HEADER])
            assert parsed is not None
            pos += HEADER + parsed[1]
        assert pos == len(data)
    fresh = Packs(root, max_bytes=4 << 20)
    assert all(digest(fresh.get(d) or b"") == d for d in acknowledged)


_DOOR = textwrap.dedent(
    """
    import os, sys
    from pathlib import Path
    from waymark.store.files import atomic_write, digest
    from waymark.store.history import History, history_workspace
    root, ws, me = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    history = History.open(root, history_workspace(root, [ws]), session=me, max_bytes=300_000)
    for n in range(40):
        if n % 10 == 0:
            history.make_snapshot(f"{me}-t{n}")
        path = ws / f"{me}-{n % 7}.txt"
        new = os.urandom(3000 + n)
        history.track_edit(path, (path.read_bytes() if path.exists() else None, new))
        atomic_write(path, new)
    """
)


def test_doors_in_separate_processes_share_one_pack_store(
    workspace: Path, history_root: Path
) -> None:
    """Four processes (as the hook server, waymark-ls and CLI calls are) back up and snapshot
    into one history, under a budget that makes them evict and compact: every backup a turn
    names afterwards reads back intact."""
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _DOOR, str(history_root), str(workspace), f"p{me}"],
            env={**os.environ, "PYTHONPATH": str(LANGUAGE_SERVER)},
        )
        for me in range(4)
    ]
    for proc in procs:
        assert proc.wait(timeout=120) == 0
    fresh = open_history(history_root, workspace, max_bytes=300_000)
    assert fresh.warnings == []
    named = {
        entry.digest
        for snap in fresh.raw.model.snaps.values()
        for entry in snap.files.values()
        if entry.state == "present" and entry.digest
    }
    assert named
    with fresh.raw.lock:
        for name in named:
            assert digest(fresh.raw.blobs.get(name)) == name
    assert _du(fresh.dir) <= 300_000


def test_sigkill_mid_append_loses_nothing_acknowledged(tmp_path: Path) -> None:
    root = tmp_path / "packs"
    for round_ in range(3):
        proc = _appender(root, 10 + round_, 400, 256 * 1024, 1 << 40)
        assert proc.stdout is not None
        acknowledged = [proc.stdout.readline().strip() for _ in range(3 + round_)]
        time.sleep(0.01 * round_)
        os.kill(proc.pid, signal.SIGKILL)
        rest, _ = proc.communicate(timeout=30)
        acknowledged += rest.split()
        fresh = Packs(root, max_bytes=1 << 40)
        for name in acknowledged:
            data = fresh.get(name)
            assert data is not None and digest(data) == name
    # Every segment holds whole records up to its end, or a torn tail after them.
    records = packed_records(tmp_path)
    assert all(digest(Packs(root, max_bytes=1 << 40).get(d) or b"") == d for d in records)


def test_compaction_keeps_the_directory_under_its_budget(
    workspace: Path, history_root: Path
) -> None:
    budget = 400_000
    agent = Agent(open_history(history_root, workspace, max_bytes=budget), workspace)
    peak = 0
    contents: dict[str, bytes] = {}
    for turn in range(60):
        agent.history.make_snapshot(f"t{turn}")
        for n in range(3):
            data = os.urandom(10_000)
            agent.write(f"f{n}.txt", data)
        contents[f"t{turn + 1}"] = (workspace / "f0.txt").read_bytes()
        peak = max(peak, _du(agent.history.dir))
    assert peak <= budget
    kept = [t["promptId"] for t in agent.history.turns()]
    assert 3 <= len(kept) < 60
    # Dropped turns' records were reclaimed: segments were compacted or deleted.
    assert "pack-0000000001" not in {p.name for p in (agent.history.dir / "packs").iterdir()}
    oldest = kept[0]
    before = tree(workspace)
    result = agent.history.rewind(oldest)
    assert result["failed"] == [] and result["conflicts"] == []
    if oldest in contents:
        assert (workspace / "f0.txt").read_bytes() == contents[oldest]
    undo = agent.history.rewind(result["undoPromptId"])
    assert undo["failed"] == [] and tree(workspace) == before
    resumed = open_history(history_root, workspace, max_bytes=budget)
    assert resumed.warnings == [] and resumed.turns() == agent.history.turns()


def test_a_compaction_by_another_process_is_followed(workspace: Path, history_root: Path) -> None:
    """A long-lived door whose index names a segment another process compacted away finds the
    blobs where they went."""
    (workspace / "a.txt").write_bytes(b"original\n")
    first = Agent(open_history(history_root, workspace), workspace)
    first.history.make_snapshot("t0")
    first.write("a.txt", b"a1\n")
    for n in range(30):
        first.write(f"junk{n}.txt", os.urandom(5000))
    first.history.make_snapshot("t1")
    for n in range(30):
        first.write(f"junk{n}.txt", b"small\n")
    first.history.make_snapshot("t2")
    other = open_history(history_root, workspace)
    # Another process keeps only t2: the junk's first contents are released and compacted.
    assert other.raw.prune(1) == ["t0", "t1"]
    assert "pack-0000000001" not in {p.name for p in (other.dir / "packs").iterdir()}
    assert _du(other.dir / "packs") < 30 * 5000
    first.write("a.txt", b"a2\n")
    assert first.history.rewind("t2")["restored"] == ["a.txt"]
    assert (workspace / "a.txt").read_bytes() == b"a1\n"
    assert (workspace / "junk0.txt").read_bytes() == b"small\n"


def _loose(history_root: Path, workspace: Path) -> Path:
    """A history as versions before pack segments left it: t0 (a.txt's 30 KB first backup),
    t1 (a1), a.txt now a2."""
    (workspace / "a.txt").write_bytes(b"a0\n" * 10_000)
    agent = Agent(open_history(history_root, workspace), workspace)
    agent.history.make_snapshot("t0")
    agent.write("a.txt", b"a1\n")
    agent.history.make_snapshot("t1")
    agent.write("a.txt", b"a2\n")
    agent.history.close()
    loose_history(agent.history.dir)
    return agent.history.dir


def test_old_loose_blob_histories_still_rewind(workspace: Path, history_root: Path) -> None:
    directory = _loose(history_root, workspace)
    resumed = Agent(open_history(history_root, workspace), workspace)
    assert resumed.history.rewind("t0")["restored"] == ["a.txt"]
    assert (workspace / "a.txt").read_bytes() == b"a0\n" * 10_000
    # New backups go into segments; the loose ones stay readable beside them.
    assert resumed.history.rewind("t1")["restored"] == ["a.txt"]
    assert (workspace / "a.txt").read_bytes() == b"a1\n"
    assert (directory / "packs").is_dir() and (directory / "blobs").is_dir()
    assert digest(b"a0\n" * 10_000) in stored_blobs(resumed.history)
    again = open_history(history_root, workspace)
    assert again.warnings == []
    assert again.rewind("t0")["restored"] == ["a.txt"]
    assert (workspace / "a.txt").read_bytes() == b"a0\n" * 10_000


def test_old_loose_blobs_count_toward_the_budget(workspace: Path, history_root: Path) -> None:
    directory = _loose(history_root, workspace)
    small = open_history(history_root, workspace, max_bytes=20_000)
    # The 30 KB first backup does not fit: t0 goes, then the backup no live turn needs.
    assert [t["promptId"] for t in small.turns()] == ["t1"]
    assert not (directory / "blobs" / digest(b"a0\n" * 10_000)).exists()
    assert _du(directory) <= 20_000
    assert small.rewind("t1")["restored"] == ["a.txt"]


def _du(directory: Path) -> int:
    return sum(p.stat().st_size for p in directory.rglob("*") if p.is_file())


def test_manual_recovery_reads_every_blob_back(workspace: Path, history_root: Path) -> None:
    """docs/history.md's format is enough to get every backup's bytes back by hand."""
    agent = Agent(open_history(history_root, workspace), workspace)
    agent.history.make_snapshot("t0")
    for n in range(5):
        agent.write(f"f{n}.txt", f"content {n}\n".encode())
    agent.history.make_snapshot("t1")
    journal = (agent.history.dir / "journal.jsonl").read_text()
    named = {
        entry["digest"]
        for line in journal.splitlines()
        for snap in json.loads(line)["systemPayload"]["snapshots"]
        for entry in snap["files"].values()
        if entry.get("digest")
    }
    records = packed_records(agent.history.dir)
    assert named <= set(records)
    for name, (segment, offset, length) in records.items():
        with open(segment, "rb") as handle:
            handle.seek(offset)
            assert digest(handle.read(length)) == name

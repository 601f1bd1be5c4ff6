"""A backup or a recorded write looks each coherence check's file up by path once, and the
ones an open descriptor already answers not at all, yet still sees every change another
process makes (issue 43)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from helpers_history import open_history

from waymark.store.files import atomic_write, digest


def _by_path(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record every ``os.stat`` of a path (not of a name in a directory's descriptor)."""
    calls: list[str] = []
    real = os.stat

    def spy(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        if kwargs.get("dir_fd") is None and not isinstance(path, int):
            calls.append(os.fspath(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", spy)
    return calls


def test_a_backup_and_a_recorded_write_stat_one_path_each(
    workspace: Path, history_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = [workspace / f"f{n}.txt" for n in range(3)]
    for path in paths:
        path.write_bytes(b"x" * 5000)
    history = open_history(history_root, workspace).raw
    history.make_snapshot("t0")
    history.track_edit(paths[0])
    calls = _by_path(monkeypatch)
    for n, path in enumerate(paths[1:]):
        calls.clear()
        history.track_edit(path)
        # The history's lock: renamed away with the directory, so looked up by path. Once it
        # is the one there, the journal and the packs directory are what their descriptors
        # hold while those have a link (the journal replaced only by a rename over it, the
        # directory removed only with the history's); the newest segment is the one appended
        # to (its descriptor's fstat), the file's stat is its read's fstat.
        assert calls == [os.path.join(history.dir, "lock")], calls
        new = b"y" * (n + 1)
        atomic_write(path, new)
        calls.clear()
        history.record_write(path, digest(new))
        assert len(calls) == 1, calls
    monkeypatch.undo()
    assert history.rewind("t0")
    assert all(path.read_bytes() == b"x" * 5000 for path in paths)


def test_a_newest_segment_removed_in_the_same_tick_is_not_appended_to(
    workspace: Path, history_root: Path
) -> None:
    """Another process removed the segment this one appends to and made a new one under its
    name, all within one timestamp tick of the directory: the descriptor is of a file no
    longer linked, so the next backup looks again and lands in the file that is there."""
    first, second = workspace / "a.txt", workspace / "b.txt"
    first.write_bytes(b"first\n" * 100)
    second.write_bytes(b"second\n" * 100)
    history = open_history(history_root, workspace).raw
    history.make_snapshot("t0")
    history.track_edit(first)
    packs = history.dir / "packs"
    (segment,) = sorted(packs.iterdir())
    kept = segment.read_bytes()
    before = os.stat(packs)
    segment.unlink()
    segment.write_bytes(kept)
    os.utime(packs, ns=(before.st_atime_ns, before.st_mtime_ns))
    history.track_edit(second)
    assert bytes.fromhex(digest(second.read_bytes())) in segment.read_bytes()
    atomic_write(second, b"changed\n")
    history.record_write(second, digest(b"changed\n"))
    assert history.rewind("t0")
    assert second.read_bytes() == b"second\n" * 100


def test_a_journal_deleted_or_replaced_by_hand_is_seen_without_its_path_stat(
    workspace: Path, history_root: Path
) -> None:
    """The pinned journal's own stat stands for the path's only while it has a link: one
    deleted by hand is forgotten with its turns, one put there anew is replayed."""
    path = workspace / "a.txt"
    path.write_bytes(b"one\n")
    live = open_history(history_root, workspace).raw
    other = open_history(history_root, workspace).raw
    live.make_snapshot("t1")
    live.track_edit(path)
    assert [t.prompt_id for t in other.turns()] == ["t1"]
    journal = live.dir / "journal.jsonl"
    kept = journal.read_bytes()
    journal.unlink()
    assert other.turns() == []
    assert other.ledger.lost == {"t1"}
    # Written anew under a temporary name and renamed over, as a compaction does.
    spare = live.dir / "spare.jsonl"
    spare.write_bytes(kept)
    os.replace(spare, journal)
    assert [t.prompt_id for t in other.turns()] == ["t1"]


def test_a_packs_directory_removed_by_hand_is_looked_up_again(
    workspace: Path, history_root: Path
) -> None:
    """The held directory counts only while it has a link: once removed, the next backup
    lands in a ``packs/`` made anew, and a rewind finds it there."""
    path = workspace / "a.txt"
    path.write_bytes(b"one\n")
    history = open_history(history_root, workspace).raw
    history.make_snapshot("t0")
    history.track_edit(path)
    packs = history.dir / "packs"
    for segment in packs.iterdir():
        segment.unlink()
    packs.rmdir()
    atomic_write(path, b"two\n")
    history.record_write(path, digest(b"two\n"))
    history.make_snapshot("t1")
    history.track_edit(path)
    assert any(packs.iterdir())
    atomic_write(path, b"three\n")
    history.record_write(path, digest(b"three\n"))
    assert history.rewind("t1")
    assert path.read_bytes() == b"two\n"

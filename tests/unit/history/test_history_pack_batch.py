"""A turn's opening appends the backups of its files together: one write to the segment,
the same records as one append each would make, and all or none of them."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest
from helpers_history import open_history, packed_records

from waymark.store.files import digest
from waymark.store.history.packformat import header


def _edited(workspace: Path, count: int) -> list[Path]:
    paths = []
    for n in range(count):
        path = workspace / f"d{n:02d}" / "f.txt"
        path.parent.mkdir()
        path.write_bytes(b"before %d\n" % n)
        paths.append(path)
    return paths


def test_a_snapshot_appends_its_files_backups_in_one_write(
    workspace: Path, history_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = _edited(workspace, 30)
    history = open_history(history_root, workspace)
    history.make_snapshot("t0")
    for path in paths:
        history.track_edit(path)
        path.write_bytes(path.read_bytes() + b"after\n")
    segment = history.dir / "packs" / "pack-0000000001"
    start = segment.stat().st_size
    writes: list[int] = []
    real = os.writev

    def counted(fd: int, buffers: Any) -> int:
        writes.append(fd)
        return real(fd, buffers)

    monkeypatch.setattr(os, "writev", counted)
    history.make_snapshot("t1")
    monkeypatch.undo()
    assert len(writes) == 1
    # Byte for byte what one append per file, in the turn's order, would have written.
    news = [p.read_bytes() for p in sorted(paths, key=os.fspath)]
    expected = b"".join(header(digest(data), len(data)) + data for data in news)
    assert segment.read_bytes()[start:] == expected
    records = packed_records(history.dir)
    assert all(records[digest(data)][2] == len(data) for data in news)
    assert all(history.backup(digest(data)) == data for data in news)


def test_a_failed_batch_stores_none_and_says_so_for_each_file(
    workspace: Path, history_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = _edited(workspace, 5)
    history = open_history(history_root, workspace)
    history.make_snapshot("t0")
    for path in paths:
        history.track_edit(path)
        path.write_bytes(b"new " + path.read_bytes())
    segment = history.dir / "packs" / "pack-0000000001"
    before = segment.read_bytes()

    def full(fd: int, buffers: Any) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "writev", full)
    _, warnings = history.raw.make_snapshot("t1")
    monkeypatch.undo()
    assert segment.read_bytes() == before
    shown = sorted(os.path.relpath(p, workspace) for p in paths)
    assert warnings == [
        f"{name}: its backup failed (ENOSPC), so this change cannot be rewound." for name in shown
    ]
    assert all(e.state == "failed" for e in history.model.snaps["t1"].files.values())

"""A history's first pack segment is made when the history is, not by its first backup."""

from __future__ import annotations

import stat
from pathlib import Path

from helpers_history import open_history, packed_records

from waymark.store.files import digest


def test_opening_a_history_makes_its_first_segment_once(
    workspace: Path, history_root: Path
) -> None:
    history = open_history(history_root, workspace)
    packs = history.dir / "packs"
    first = packs / "pack-0000000001"
    assert sorted(p.name for p in packs.iterdir()) == [first.name]
    assert first.read_bytes() == b""
    assert stat.S_IMODE(first.stat().st_mode) == 0o600
    history.close()
    again = open_history(history_root, workspace)
    assert sorted(p.name for p in packs.iterdir()) == [first.name]
    # The first backup appends to it.
    (workspace / "a.txt").write_bytes(b"before\n")
    again.make_snapshot("t0")
    again.track_edit(workspace / "a.txt")
    assert sorted(p.name for p in packs.iterdir()) == [first.name]
    assert list(packed_records(again.dir)) == [digest(b"before\n")]
    assert packed_records(again.dir)[digest(b"before\n")][0] == first

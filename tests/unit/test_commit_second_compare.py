"""The batch's compare right before the rename opens the name afresh: whatever happens to the
file between the re-read under the lock and that compare (rewritten, grown, cut, replaced,
moved, a symlink put in its place) is seen, and nothing is written over it."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from helpers_commands import Agent, edit_third_line_with_a_writer_at_stage, put

SOURCE = b"one\ntwo\nthree\n"
EDITED = b"one\ntwo\n3\n"
CHANGED = {
    "ok": False,
    "error": "file_changed_since_read",
    "message": "f.txt changed after this change was planned; read it again and redo the "
    "change against the current content.",
    "details": {"path": "f.txt", "suggested_action": "re-read_file"},
}


def _rewritten_same(path: Path) -> None:
    path.write_bytes(SOURCE)


def _appended(path: Path) -> None:
    with path.open("ab") as handle:
        handle.write(b"four\n")


def _truncated(path: Path) -> None:
    os.truncate(path, 4)


def _replaced_same(path: Path) -> None:
    other = path.with_name("other")
    other.write_bytes(SOURCE)
    other.rename(path)


def _replaced_other(path: Path) -> None:
    other = path.with_name("other")
    other.write_bytes(b"one\nTHEIRS\nthree\n")
    other.rename(path)


def _moved_away(path: Path) -> None:
    path.rename(path.with_name("away"))


def _a_symlink(path: Path) -> None:
    away = path.with_name("away")
    path.rename(away)
    path.symlink_to(away)


CASES: list[tuple[Callable[[Path], None], bytes | None, dict[str, Any] | None]] = [
    (_rewritten_same, EDITED, None),
    (_appended, SOURCE + b"four\n", CHANGED),
    (_truncated, b"one\n", CHANGED),
    (_replaced_same, EDITED, None),
    (_replaced_other, b"one\nTHEIRS\nthree\n", CHANGED),
    (_moved_away, None, CHANGED),
]


@pytest.mark.parametrize(
    ("theirs", "left", "refusal"),
    CASES,
    ids=["rewritten-same", "appended", "truncated", "replaced-same", "replaced-other", "moved"],
)
async def test_what_happens_between_the_two_compares_is_seen_by_the_second(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    theirs: Callable[[Path], None],
    left: bytes | None,
    refusal: dict[str, Any] | None,
) -> None:
    root = tmp_path / "ws"
    path = put(root, "f.txt", SOURCE)
    agent = Agent(root, tmp_path / "history")
    result = await edit_third_line_with_a_writer_at_stage(agent, path, theirs, monkeypatch)
    if refusal is None:
        assert result["ok"], result
    else:
        assert result == refusal
    assert (path.read_bytes() if path.exists() else None) == left
    names = sorted(p.name for p in root.iterdir())
    assert all(".waymark-tmp-" not in name for name in names), names


async def test_a_symlink_swapped_in_between_the_two_compares_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "ws"
    path = put(root, "f.txt", SOURCE)
    agent = Agent(root, tmp_path / "history")
    result = await edit_third_line_with_a_writer_at_stage(agent, path, _a_symlink, monkeypatch)
    assert result["ok"] is False
    assert result["error"] == "path_outside_workspace", result
    assert path.is_symlink()
    assert (root / "away").read_bytes() == SOURCE

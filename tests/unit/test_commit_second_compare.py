"""The batch's compare right before the rename reads through the re-read's descriptor when
the name still links to that file: whatever happens to the file between the two compares
is answered as a fresh open of the name answers it."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import waymark.store.batch as batch
from helpers_commands import Agent, put

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
    read = await agent("read", path="f.txt", hashes=True)
    staged = batch._write_temp

    def theirs_then_stage(*args: Any) -> None:
        theirs(path)
        staged(*args)

    monkeypatch.setattr(batch, "_write_temp", theirs_then_stage)
    result = await agent(
        "edit",
        path="f.txt",
        operations=[{"op": "replace_line", "hash": read["lines"][2]["hash"], "content": "3"}],
    )
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
    read = await agent("read", path="f.txt", hashes=True)
    staged = batch._write_temp

    def theirs_then_stage(*args: Any) -> None:
        _a_symlink(path)
        staged(*args)

    monkeypatch.setattr(batch, "_write_temp", theirs_then_stage)
    result = await agent(
        "edit",
        path="f.txt",
        operations=[{"op": "replace_line", "hash": read["lines"][2]["hash"], "content": "3"}],
    )
    assert result["ok"] is False
    assert result["error"] == "path_outside_workspace", result
    assert path.is_symlink()
    assert (root / "away").read_bytes() == SOURCE

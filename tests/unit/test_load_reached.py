"""A load reads its file in the directory its path's resolution reached (``resolve_reached``:
one walk, one lstat), and probes the declared encoding from there: differential against the
reference, a resolve whose read walks to the file afresh, for every shape of path the
workspace resolves. Same bytes, same digest, same declaration, same refusal word for word,
and no descriptor left open."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from helpers_path_shapes import THROUGH_SHAPES, add_path_shapes

from helpers_commands import Agent
from waymark.commands.changes import Loaded, load, load_path
from waymark.engine.errors import WaymarkError
from waymark.store import workspace
from waymark.store.real_path import Reached, reach

SPELLED = [
    "f.txt",
    "dir/deep/f.txt",
    "dir/deep/latin.txt",
    "dir/utf16.txt",
    "dir/deep",
    "dir",
    "dir/deep/../deep/f.txt",
    "missing.txt",
    "dir/missing.txt",
    "missing/below.txt",
    "big.txt",
    ".env",
    "to_env",
    "dir/deep/",
    ".",
    *THROUGH_SHAPES,
]


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    root = Path(os.path.realpath(tmp_path)) / "ws"
    (root / "dir" / "deep").mkdir(parents=True)
    (root / "f.txt").write_bytes(b"top\n")
    (root / "dir" / "deep" / "f.txt").write_bytes(b"f\xe9\n")
    (root / "dir" / "deep" / "latin.txt").write_bytes(b"caf\xe9\n")
    (root / "dir" / "utf16.txt").write_bytes("hi\n".encode("utf-16-le"))
    # A declaration in the file's own directory (probed from the directory held open) and
    # one above it (probed by path).
    (root / "dir" / "deep" / ".editorconfig").write_text("[latin.txt]\ncharset = latin1\n")
    (root / "dir" / ".gitattributes").write_text("utf16.txt working-tree-encoding=UTF-16LE\n")
    (root / "big.txt").write_bytes(b"x" * 64)
    (root / ".env").write_bytes(b"SECRET=1\n")
    (root / "to_env").symlink_to(".env")
    add_path_shapes(root, tmp_path / "outside")
    made = Agent(root, tmp_path / "history", maxFileSize=32)
    return made


def _outcome(run: Any) -> tuple[str, Any]:
    try:
        loaded: Loaded = run()
    except WaymarkError as exc:
        return "refused", (exc.to_result(), exc.next_step)
    return "loaded", (
        loaded.resolved,
        loaded.disk,
        loaded.data,
        loaded.version,
        loaded.uri,
        loaded.declared,
        loaded.disk_digest,
        loaded.digest,
    )


def _still_open(fd: int, directory: os.stat_result) -> bool:
    """Whether ``fd`` is still the directory reached (its number may have gone to another
    thread's file since: that is no leak)."""
    try:
        now = os.fstat(fd)
    except OSError:
        return False
    return (now.st_dev, now.st_ino) == (directory.st_dev, directory.st_ino)


@pytest.mark.parametrize("must_exist", [True, False], ids=["must-exist", "may-be-absent"])
@pytest.mark.parametrize("spelled", SPELLED)
def test_a_load_reads_what_a_fresh_walk_reads(
    agent: Agent, spelled: str, must_exist: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    ctx = agent.ctx
    handed: list[tuple[int, os.stat_result]] = []

    def spied(path: str) -> tuple[str, Reached | None]:
        real, reached = reach(path)
        if reached is not None:
            handed.append((reached.dir_fd, os.fstat(reached.dir_fd)))
        return real, reached

    monkeypatch.setattr(workspace, "reach", spied)
    reached = _outcome(lambda: load_path(ctx, spelled, must_exist=must_exist))
    assert handed or spelled not in ("f.txt", "dir/deep/f.txt", "missing.txt")
    assert not [fd for fd, directory in handed if _still_open(fd, directory)]
    monkeypatch.undo()
    reference = _outcome(lambda: load(ctx, ctx.workspace.resolve(spelled), must_exist=must_exist))
    assert reached == reference
    if reached[0] == "loaded":
        assert reached[1][4] == reached[1][0].lexical.as_uri()


def test_the_declarations_are_found_from_the_directory_held_open(agent: Agent) -> None:
    ctx = agent.ctx
    assert load_path(ctx, "dir/deep/latin.txt").declared == "latin1"
    assert load_path(ctx, "dir/utf16.txt").declared == "UTF-16LE"
    assert load_path(ctx, "dir/deep/f.txt").declared is None

"""``real_path`` (one open of the directories following no symlink, and an lstat of the
last name, when no component is a symlink) answers what
``os.path.realpath`` answers, for every shape of path the workspace resolves."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers_path_shapes import THROUGH_SHAPES, add_path_shapes

from waymark.store.real_path import reach, real_path
from waymark.store.workspace import Workspace


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path)) / "ws"
    (root / "dir" / "deep").mkdir(parents=True)
    (root / "dir" / "deep" / "f.txt").write_text("f\n")
    add_path_shapes(root, root / "outside")
    (root / "name (deleted)").write_text("a name like an unlinked file's\n")
    return root


PATHS = [
    "dir/deep/f.txt",
    "dir/deep",
    "dir",
    "",
    "missing.txt",
    "missing/below.txt",
    "name (deleted)",
    "to_dir",
    "dir/up",
    "dir/up/to_file",
    "dir/deep/",
    *THROUGH_SHAPES,
]


@pytest.mark.parametrize("spelled", PATHS)
def test_real_path_is_realpath(tree: Path, spelled: str) -> None:
    path = os.path.normpath(os.path.join(tree, spelled))
    assert real_path(path) == os.path.realpath(path)


def test_real_path_of_a_relative_or_doubled_path_is_realpath(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tree)
    for path in (
        "dir/deep/f.txt",
        "to_dir/deep",
        "f.txt",
        "//" + str(tree).lstrip("/") + "/dir",
        "//" + str(tree).lstrip("/") + "/to_dir/deep",
        "/",
        "/tmp",
    ):
        assert real_path(path) == os.path.realpath(path)


@pytest.mark.parametrize("spelled", PATHS[:8])
def test_a_path_resolves_the_same_as_through_realpath(
    tree: Path, spelled: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the workspace's policy sees: the resolved path or the refusal, each the same."""
    workspace = Workspace([tree])

    def outcome() -> object:
        try:
            return workspace.resolve(spelled or ".")
        except Exception as exc:  # the refusal is the outcome compared
            return (type(exc).__name__, str(exc))

    fast = outcome()
    monkeypatch.setattr(
        "waymark.store.workspace.reach", lambda path: (os.path.realpath(path), None)
    )
    assert outcome() == fast


@pytest.mark.parametrize("spelled", PATHS)
def test_real_path_without_the_one_call_is_realpath(
    tree: Path, spelled: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where ``openat2`` is refused or not built, every path is realpath's."""
    monkeypatch.setattr("waymark.store.real_path.dir_at_once", lambda *_: None)
    path = os.path.normpath(os.path.join(tree, spelled))
    assert real_path(path) == os.path.realpath(path)


@pytest.mark.parametrize("spelled", PATHS)
def test_reach_hands_on_the_directory_and_lstat_of_a_path_with_no_symlink(
    tree: Path, spelled: str
) -> None:
    """``reach`` answers realpath's answer, and hands on what it reached only where that is
    the path itself: the file's directory (open) and its name's lstat, those a read reaches."""
    path = os.path.normpath(os.path.join(tree, spelled))
    real, reached = reach(path)
    assert real == os.path.realpath(path)
    if reached is None:
        return
    try:
        assert real == path
        head, name = os.path.split(path)
        assert reached.name == name
        held, there = os.fstat(reached.dir_fd), os.stat(head, follow_symlinks=False)
        assert (held.st_dev, held.st_ino) == (there.st_dev, there.st_ino)
        now = os.lstat(path) if os.path.lexists(path) else None
        if now is None or reached.lstat is None:
            assert now is reached.lstat is None
        else:
            assert (reached.lstat.st_ino, reached.lstat.st_mode) == (now.st_ino, now.st_mode)
    finally:
        os.close(reached.dir_fd)
    assert not os.path.islink(path)


def test_reach_hands_on_nothing_for_a_symlink_or_the_root(tree: Path) -> None:
    for path in (str(tree / "to_file"), str(tree / "dangling"), str(tree / "loop"), "/"):
        assert reach(path)[1] is None

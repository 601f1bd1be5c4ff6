"""The same path resolved again answers for the workspace as it is now: a link moved, a
protected glob added or the folders changed since the last call all count."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from waymark.engine.errors import PathOutsideWorkspace, ProtectedPath
from waymark.store.workspace import Workspace


def test_a_link_moved_outside_between_two_calls_is_refused(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir(), outside.mkdir()
    (root / "inner.txt").write_text("x")
    (outside / "secret.txt").write_text("x")
    os.symlink(root / "inner.txt", root / "link.txt")
    ws = Workspace([root])
    assert ws.resolve("link.txt").real == root / "inner.txt"
    os.remove(root / "link.txt")
    os.symlink(outside / "secret.txt", root / "link.txt")
    with pytest.raises(PathOutsideWorkspace):
        ws.resolve("link.txt")


def test_a_glob_protected_since_the_last_call_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    ws = Workspace([tmp_path])
    assert ws.resolve("notes.txt").display == "notes.txt"
    ws.protected = ("notes.*",)
    with pytest.raises(ProtectedPath) as caught:
        ws.resolve("notes.txt")
    assert caught.value.details == {"path": "notes.txt", "pattern": "notes.*"}


def test_folders_changed_since_the_last_call_count(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir(), two.mkdir()
    ws = Workspace([one])
    assert ws.resolve(str(one / "a.txt")).display == "a.txt"
    ws.set_folders([two])
    with pytest.raises(PathOutsideWorkspace) as caught:
        ws.resolve(str(one / "a.txt"))
    assert caught.value.details["folders"] == [str(two.resolve())]
    ws.set_folders([tmp_path, one])
    # Nested folders: the most specific one names the file.
    assert ws.resolve(str(one / "a.txt")).display == "a.txt"
    assert ws.resolve(str(one / "a.txt")).folder == one.resolve()

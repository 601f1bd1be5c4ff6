"""A tree holding every shape of path a workspace resolves, for differential path tests."""

from __future__ import annotations

import os
from pathlib import Path

# Paths through those shapes, for a test's own list of spelled paths.
THROUGH_SHAPES = [
    "to_dir/deep/f.txt",
    "to_file",
    "dir/up/dir/deep/f.txt",
    "dangling",
    "dangling/below",
    "loop",
    "loop/below",
    "abs/o.txt",
    "fifo",
    "fifo/below",
    "file_on_the_way/below",
]


def add_path_shapes(root: Path, outside: Path) -> None:
    """Under ``root`` (which has ``dir/deep/f.txt``): symlinks to a directory, to a file, up
    (``..``), to nowhere, to themselves and to ``outside`` (made, holding ``o.txt``); a FIFO;
    a file where a directory would be."""
    outside.mkdir()
    (outside / "o.txt").write_text("o\n")
    (root / "to_dir").symlink_to("dir")
    (root / "to_file").symlink_to("dir/deep/f.txt")
    (root / "dir" / "up").symlink_to("..")
    (root / "dangling").symlink_to("nowhere/at/all")
    (root / "loop").symlink_to("loop")
    (root / "abs").symlink_to(outside)
    os.mkfifo(root / "fifo")
    (root / "file_on_the_way").write_text("not a directory\n")

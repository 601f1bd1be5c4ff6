"""Filesystem snapshots for "nothing changed" assertions in the foundation tests."""

from __future__ import annotations

import os
from pathlib import Path


def tree_snapshot(*roots: Path) -> dict[str, tuple[str, object, int]]:
    """Every entry under ``roots``: files by bytes and mode, links by target, dirs by mode."""
    snap: dict[str, tuple[str, object, int]] = {}
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
            for name in dirnames + filenames:
                path = Path(dirpath) / name
                st = os.lstat(path)
                if path.is_symlink():
                    snap[str(path)] = ("link", os.readlink(path), 0)
                elif path.is_dir():
                    snap[str(path)] = ("dir", None, st.st_mode)
                else:
                    snap[str(path)] = ("file", path.read_bytes(), st.st_mode)
    return snap

"""Which directories a folder's scans skip, so the watches of a resident process
(:mod:`.watch`) skip them too: a walk's (protected paths, the usual tool directories, host
state) or ``git status``'s (all but ``.git``; tool directories only where git shows them)."""

from __future__ import annotations

import os
from pathlib import Path

from waymark.store.shelltrack.scan import GitUnavailable, git_out, not_descended, run_git
from waymark.store.walk import SKIP_DIRS
from waymark.store.workspace import Workspace, matches_any_glob


class WalkPolicy:
    """The directories :func:`.scan.walk` skips, for the watches of a folder without git."""

    def __init__(self, folder: Path, workspace: Workspace) -> None:
        self.folder = folder
        self.workspace = workspace
        self._private = {os.fspath(d) for d in workspace.protected_dirs}
        self._key = (
            "walk",
            os.fspath(folder),
            tuple(workspace.protected),
            tuple(sorted(self._private)),
            tuple(workspace.host_state),
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, WalkPolicy) and other._key == self._key

    def __hash__(self) -> int:
        return hash(self._key)

    def excluded(self, relative: str) -> bool:
        if not relative:
            return False
        return (
            os.path.join(self.folder, relative) in self._private
            or matches_any_glob(relative, self.workspace.protected)
            or not_descended(self.workspace, relative.rpartition("/")[2], relative)
        )

    def held_back(self, relative: str) -> bool:
        return False

    def released(self, held: list[str]) -> list[str]:
        return []


class GitPolicy:
    """What ``git status`` looks into, for the watches of a work tree's top level: all but
    ``.git``; the usual tool directories (``node_modules`` …) only where git does not
    ignore them or tracks a file inside."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GitPolicy) and other.root == self.root

    def __hash__(self) -> int:
        return hash(("git", self.root))

    def excluded(self, relative: str) -> bool:
        return relative.rpartition("/")[2] == ".git"

    def held_back(self, relative: str) -> bool:
        return relative.rpartition("/")[2] in SKIP_DIRS

    def released(self, held: list[str]) -> list[str]:
        if not held:
            return []
        try:
            ignored_out = run_git(
                self.root, "check-ignore", "-z", "--stdin", stdin=_nul_list(held)
            ).stdout
        except GitUnavailable:
            ignored_out = b""  # exit 1: none of them is ignored
        ignored = {os.fsdecode(p).rstrip("/") for p in ignored_out.split(b"\0") if p}
        out = [d for d in held if d not in ignored]
        if ignored:
            tracked = git_out(self.root, "ls-files", "-z", "--", *sorted(ignored))
            names = [os.fsdecode(p) for p in tracked.split(b"\0") if p]
            out += [d for d in sorted(ignored) if any(n.startswith(d + "/") for n in names)]
        return out


def _nul_list(paths: list[str]) -> bytes:
    return b"".join(os.fsencode(p) + b"\0" for p in paths)

"""What a workspace folder holds before and after a shell command, cheaply.

In a git work tree git already knows which files are clean: ``git status`` (with optional
locks off, so it never writes the user's ``.git``) names the dirty and untracked ones, and
``git ls-files -s`` names the index blob of every clean one. Only dirty and untracked files
need a stat signature of our own. Outside git the folder is walked (protected globs and the
usual tool directories skipped), bounded by ``max_files``; a walk cut short is reported.
"""

from __future__ import annotations

import os
import stat
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ..workspace import Workspace, matches_glob

# Directories a walk never enters: tools' own state, or too big to be a source tree.
SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", ".venv", "__pycache__"})
DEFAULT_MAX_FILES = 20_000
_GIT_ENV = {"GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}

Signature = tuple[int, int, int, int, int, int]


def signature(st: os.stat_result) -> Signature:
    """What any change of a file's bytes or kind changes (ctime moves even under ``touch -d``)."""
    return (st.st_mode, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


@dataclass
class FolderScan:
    """One folder's state: git's view (``index``, ``dirty``) or a walk's (``dirty`` only).

    Keys are paths relative to ``root`` (the git top level, or the folder when walked).
    ``dirty`` holds a stat signature per file git cannot vouch for (``None``: absent);
    ``index`` the blob id of every tracked file, clean ones standing for their own content.
    """

    root: Path
    git: bool
    # The workspace folder scanned (``root`` may be a git top level above it).
    scope: Path
    dirty: dict[str, Signature | None] = field(default_factory=dict)
    index: dict[str, str] = field(default_factory=dict)
    cut_short: bool = False


class GitUnavailable(Exception):
    """git is missing or failed on this folder: the caller walks it instead."""


def git_root(folder: Path) -> Path | None:
    """The top level of the git work tree holding ``folder`` (None: not in one)."""
    try:
        out = _git(folder, "rev-parse", "--show-toplevel")
    except GitUnavailable:
        return None
    top = out.decode("utf-8", "surrogateescape").strip()
    return Path(os.path.realpath(top)) if top else None


def _git(cwd: Path, *args: str) -> bytes:
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=cwd,
            capture_output=True,
            env={**os.environ, **_GIT_ENV},
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GitUnavailable(str(exc)) from exc
    if done.returncode != 0:
        raise GitUnavailable(done.stderr.decode("utf-8", "replace").strip())
    return done.stdout


def scan_git(folder: Path, root: Path) -> FolderScan:
    """git's view of ``folder`` (inside the work tree at ``root``); never writes ``.git``."""
    result = FolderScan(root, True, folder)
    listing = _git(folder, "ls-files", "-s", "-z", "--full-name", "--", ".")
    for item in listing.split(b"\0"):
        if not item:
            continue
        meta, _, name = item.partition(b"\t")
        mode, blob, stage = meta.split(b" ")
        path = os.fsdecode(name)
        # Gitlinks (submodules) and conflicted stages have no single clean content.
        if mode == b"160000" or stage != b"0":
            result.dirty[path] = None
            continue
        result.index[path] = blob.decode()
    status = _git(
        folder,
        "status",
        "--porcelain=v1",
        "-z",
        "--no-renames",
        "--untracked-files=all",
        "--ignore-submodules=all",
        "--",
        ".",
    )
    for item in status.split(b"\0"):
        if len(item) > 3:
            result.dirty[os.fsdecode(item[3:])] = None
    for path in result.dirty:
        result.dirty[path] = lstat_signature(root / path)
    return result


def lstat_signature(path: Path) -> Signature | None:
    try:
        return signature(os.lstat(path))
    except OSError:
        return None


def walk(folder: Path, workspace: Workspace, max_files: int = DEFAULT_MAX_FILES) -> FolderScan:
    """Stat every file under ``folder`` (not following links), up to ``max_files``."""
    result = FolderScan(folder, False, folder)
    private = {os.fspath(d) for d in workspace.protected_dirs}
    stack = [""]
    while stack:
        relative_dir = stack.pop()
        try:
            entries = list(os.scandir(folder / relative_dir if relative_dir else folder))
        except OSError:
            continue
        for entry in entries:
            relative = f"{relative_dir}/{entry.name}" if relative_dir else entry.name
            if entry.path in private or matches_glob(relative, workspace.protected):
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(st.st_mode):
                if entry.name not in SKIP_DIRS:
                    stack.append(relative)
                continue
            if len(result.dirty) >= max_files:
                result.cut_short = True
                return result
            result.dirty[relative] = signature(st)
    return result

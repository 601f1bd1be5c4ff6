"""What a workspace folder holds before and after a shell command, cheaply.

In a git work tree git already knows which files are clean: ``git status`` (with optional
locks off, so it never writes the user's ``.git``) names the dirty and untracked ones; a
copy of the index file, read back with ``git ls-files -s``, names the blob of any clean file
the command changed. Only dirty and untracked files need a stat signature of our own.
Outside git the folder is walked (protected globs and the usual tool directories skipped),
bounded by ``max_files``; a walk cut short is reported.
"""

from __future__ import annotations

import os
import stat
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from waymark.store.walk import SKIP_DIRS
from waymark.store.workspace import Workspace, matches_glob

DEFAULT_MAX_FILES = 20_000
# Optional locks off: git status then never refreshes (writes) the user's index.
_GIT_ENV = {"GIT_OPTIONAL_LOCKS": "0", "GIT_LITERAL_PATHSPECS": "1", "LC_ALL": "C"}

Signature = tuple[int, int, int, int, int, int]


def signature(st: os.stat_result) -> Signature:
    """What any change of a file's bytes or kind changes (ctime moves even under ``touch -d``)."""
    return (st.st_mode, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


@dataclass
class FolderScan:
    """One folder's state: git's view or a walk's.

    Keys are paths relative to ``root`` (the git top level, or the folder when walked).
    ``dirty`` holds a stat signature per file git cannot vouch for (``None``: absent); every
    other tracked file of a git folder is clean, its index blob standing for its content.
    """

    root: Path
    git: bool
    # The workspace folder scanned (``root`` may be a git top level above it).
    scope: Path
    dirty: dict[str, Signature | None] = field(default_factory=dict)
    cut_short: bool = False
    # git only: the live index file, its stat, and where begin copied it (None: no index).
    index: Path | None = None
    index_sig: Signature | None = None
    index_copy: Path | None = None


class GitUnavailable(Exception):
    """git is missing or failed on this folder: the caller walks it instead."""


def git_paths(folder: Path) -> tuple[Path, Path] | None:
    """The top level of the git work tree holding ``folder`` and its index file, or None."""
    try:
        out = _git(folder, "rev-parse", "--show-toplevel", "--git-path", "index")
    except GitUnavailable:
        return None
    lines = out.decode("utf-8", "surrogateescape").splitlines()
    if len(lines) != 2 or not lines[0]:
        return None
    return Path(os.path.realpath(lines[0])), folder / lines[1]


def _git(cwd: Path, *args: str, stdin: bytes | None = None, index: Path | None = None) -> bytes:
    env = {**os.environ, **_GIT_ENV}
    if index is not None:
        env["GIT_INDEX_FILE"] = os.fspath(index)
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=cwd,
            input=stdin,
            capture_output=True,
            env=env,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GitUnavailable(str(exc)) from exc
    if done.returncode != 0:
        raise GitUnavailable(done.stderr.decode("utf-8", "replace").strip())
    return done.stdout


def scan_git(folder: Path, root: Path, index: Path) -> FolderScan:
    """git's view of ``folder`` (inside the work tree at ``root``); never writes ``.git``."""
    result = FolderScan(root, True, folder, index=index, index_sig=lstat_signature(index))
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
            path = os.fsdecode(item[3:])
            result.dirty[path] = lstat_signature(root / path)
    return result


def index_blobs(scan: FolderScan, index: Path, paths: list[str] | None) -> dict[str, str]:
    """Blob id per clean stage-0 file of ``index`` (a copy, or the live one; read-only).

    ``paths`` (relative to the top level) limits the listing; None lists the whole folder.
    """
    if paths is None:
        listing = _git(scan.scope, "ls-files", "-s", "-z", "--full-name", "--", ".", index=index)
    else:
        # Candidates are few; chunks keep a long list under the argument size limit.
        listing = b"".join(
            _git(scan.root, "ls-files", "-s", "-z", "--", *paths[i : i + 500], index=index)
            for i in range(0, len(paths), 500)
        )
    out: dict[str, str] = {}
    for item in listing.split(b"\0"):
        meta, _, name = item.partition(b"\t")
        fields = meta.split(b" ")
        # Gitlinks (submodules) and conflicted stages have no single clean content.
        if len(fields) == 3 and fields[0] != b"160000" and fields[2] == b"0":
            out[os.fsdecode(name)] = fields[1].decode()
    return out


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
                if entry.name not in SKIP_DIRS and relative not in workspace.host_state:
                    stack.append(relative)
                continue
            if len(result.dirty) >= max_files:
                result.cut_short = True
                return result
            result.dirty[relative] = signature(st)
    return result

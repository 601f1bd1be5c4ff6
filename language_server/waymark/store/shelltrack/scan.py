"""What a workspace folder holds before and after a shell command, cheaply.

In a git work tree git already knows which files are clean: ``git status`` (with optional
locks off, so it never writes the user's ``.git``) names the dirty and untracked ones; a
copy of the index file, read back (:mod:`.indexfile`, else ``git ls-files -s``), names the
blob of any clean file the command changed. Only dirty and untracked files need a stat
signature of our own. Outside git the folder is walked (protected globs and the usual tool
directories skipped), bounded by ``max_files``; a walk cut short is reported.
"""

from __future__ import annotations

import errno
import os
import stat
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from waymark.store.walk import SKIP_DIRS
from waymark.store.workspace import Workspace, matches_any_glob

DEFAULT_MAX_FILES = 20_000
# Optional locks off: git status then never refreshes (writes) the user's index.
_GIT_ENV = {"GIT_OPTIONAL_LOCKS": "0", "GIT_LITERAL_PATHSPECS": "1", "LC_ALL": "C"}

Signature = tuple[int, int, int, int, int, int]
# A repository's own folder: a walk skips it as it skips ``node_modules``, but it is no tree
# a command's changes to would be worth naming.
_VCS_DIRS = frozenset({".git", ".hg", ".svn"})
# The index mode of a symbolic link: its blob is the link's target, not a file's bytes.
SYMLINK_MODE = "120000"


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
    # git only: repositories inside (nested ones, submodules), absolute; scanned on their own.
    nested: list[str] = field(default_factory=list)
    # What the scan could not look into (a path over PATH_MAX, an unreadable directory),
    # relative to ``root``, with the reason; changes there cannot be seen.
    unscanned: dict[str, str] = field(default_factory=dict)
    # A resident process's token for the changes it watched from before this scan on
    # (:mod:`.watch`); None: the next scan looks at the whole folder.
    watch: list[object] | None = None
    # After a watched command: the paths the index copy was asked about and its answer
    # (reused by the diff, never saved).
    index_known: tuple[set[str], dict[str, tuple[str, str]]] | None = None
    # git only, before the command: what git ignored, relative to ``root`` (a directory
    # ends in "/", its files unlisted). Such a file existed though ``dirty`` lacks it.
    ignored: list[str] = field(default_factory=list)
    # Directories left out of the pre-image cache (:mod:`.ignored`, or a walk's tool
    # directories), relative, with their stat: named when the command changed them.
    bulky: dict[str, Signature | None] = field(default_factory=dict)
    # Before a command, brought up to date from the last scan (:mod:`.rescan`): that scan's
    # watch token and the paths touched since. None: scanned whole. Never saved.
    since: tuple[list[object], set[str]] | None = None


class GitUnavailable(Exception):
    """git is missing or failed on this folder: the caller walks it instead."""


def git_paths(folder: Path) -> tuple[Path, Path] | None:
    """The top level of the git work tree holding ``folder`` and its index file, or None."""
    plain = _plain_repository(folder)
    if plain is not None:
        return plain
    try:
        out = git_out(folder, "rev-parse", "--show-toplevel", "--git-path", "index")
    except GitUnavailable:
        return None
    lines = out.decode("utf-8", "surrogateescape").splitlines()
    if len(lines) != 2 or not lines[0]:
        return None
    return Path(os.path.realpath(lines[0])), folder / lines[1]


# Variables that move a repository's parts away from where ``.git`` says.
_GIT_LOCATION_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR")


def _plain_repository(folder: Path) -> tuple[Path, Path] | None:
    """What ``git rev-parse`` answers for the top of an ordinary repository, without running
    it (a command's Pre asks on every call): ``.git`` is a directory with a HEAD, no variable
    moves things, and the config names no other work tree. Anything else asks git."""
    if any(os.environ.get(name) for name in _GIT_LOCATION_ENV):
        return None
    dot_git = folder / ".git"
    try:
        config = (dot_git / "config").read_bytes()
        if not os.path.isfile(dot_git / "HEAD"):
            return None
    except OSError:
        return None
    if b"worktree" in config or b"bare" in config.replace(b"bare = false", b""):
        return None
    return Path(os.path.realpath(folder)), dot_git / "index"


def git_out(cwd: Path, *args: str, stdin: bytes | None = None, index: Path | None = None) -> bytes:
    return run_git(cwd, *args, stdin=stdin, index=index).stdout


def run_git(
    cwd: Path, *args: str, stdin: bytes | None = None, index: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
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
    return done


def scan_git(
    folder: Path,
    root: Path,
    index: Path,
    pathspecs: list[str] | None = None,
    *,
    ignored: bool = False,
) -> FolderScan:
    """git's view of ``folder`` (inside the work tree at ``root``); never writes ``.git``.

    ``pathspecs`` (relative to ``folder``) limit it to those paths and what is under them;
    submodules are then not looked for (a command adds one by ``git`` verbs, which move the
    index and so make the caller scan everything). ``ignored``: list what git ignores too
    (the same walk: git stops at an ignored directory either way)."""
    result = FolderScan(root, True, folder, index=index, index_sig=lstat_signature(index))
    done = run_git(
        folder,
        "status",
        "--porcelain=v1",
        "-z",
        "--no-renames",
        "--untracked-files=all",
        "--ignore-submodules=all",
        *(["--ignored=matching"] if ignored else []),
        "--",
        *(pathspecs if pathspecs is not None else ["."]),
    )
    for item in done.stdout.split(b"\0"):
        if item.startswith(b"!! "):
            result.ignored.append(os.fsdecode(item[3:]))
        elif len(item) > 3:
            path = os.fsdecode(item[3:])
            try:
                sig: Signature | None = signature(os.lstat(root / path))
            except OSError as exc:
                if _unscannable(result, path, exc):
                    continue
                sig = None
            # git shows a repository inside as one entry, "sub/" (or "sub" when staged).
            directory = path.endswith("/") or (sig is not None and stat.S_ISDIR(sig[0]))
            if directory and os.path.lexists(root / path / ".git"):
                result.nested.append(os.fspath(root / path.rstrip("/")))
                continue
            result.dirty[path] = sig
    if pathspecs is None:
        result.nested = list(dict.fromkeys([*result.nested, *_submodules(root, folder)]))
    # git skips a directory it cannot open with a warning, and goes on.
    for line in done.stderr.decode("utf-8", "surrogateescape").splitlines():
        unopened, why = _unopened(line)
        if unopened is not None:
            result.unscanned[unopened] = why
    return result


def _unopened(line: str) -> tuple[str | None, str]:
    """The directory of git's "could not open directory" warning and why, if it is one.

    git cuts its messages at 4,096 bytes: a path that long ends mid-name and without its
    reason, so it is cut back to its last whole directory.
    """
    prefix = "warning: could not open directory '"
    if not line.startswith(prefix):
        return None, ""
    rest = line[len(prefix) :]
    path, quote, reason = rest.rpartition("': ")
    if not quote:
        return rest.rpartition("/")[0] or None, "path_too_long"
    path = path.rstrip("/")
    return path or ".", "path_too_long" if reason == "File name too long" else "unreadable"


def _unscannable(result: FolderScan, path: str, exc: OSError) -> bool:
    """Note ``path`` as out of the scan's reach, unless it is merely absent."""
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        return False
    result.unscanned[path] = "path_too_long" if exc.errno == errno.ENAMETOOLONG else "unreadable"
    return True


def _submodules(root: Path, folder: Path) -> list[str]:
    """The checked-out submodules of ``.gitmodules`` inside ``folder`` (absolute paths).

    Read from the file, not the index: listing the index would cost a step per clean file
    on every command. A gitlink committed without ``.gitmodules`` is not seen.
    """
    if not os.path.exists(root / ".gitmodules"):
        return []
    try:
        out = git_out(
            root, "config", "-z", "-f", ".gitmodules", "--get-regexp", r"^submodule\..*\.path$"
        )
    except GitUnavailable:
        return []
    found = []
    for item in out.split(b"\0"):
        _, _, value = item.partition(b"\n")
        path = root / os.fsdecode(value)
        if value and path.is_relative_to(folder) and os.path.lexists(path / ".git"):
            found.append(os.fspath(path))
    return found


def index_blobs(
    scan: FolderScan, index: Path, paths: list[str] | None
) -> dict[str, tuple[str, str]]:
    """Mode and blob id per clean stage-0 file of ``index`` (a copy, or the live one; read-only).

    ``paths`` (relative to the top level) limits the listing; None lists the whole folder.
    A listing of paths is read from the index file itself where :mod:`.indexfile` can.
    """
    if paths is None:
        listing = git_out(scan.scope, "ls-files", "-s", "-z", "--full-name", "--", ".", index=index)
    else:
        # Imported here: a Pre never needs it, and a hook in its own process imports no more.
        from waymark.store.shelltrack import indexfile

        read = indexfile.read_blobs(index, paths)
        if read is not None:
            return read
        # Candidates are few; chunks keep a long list under the argument size limit.
        listing = b"".join(
            git_out(scan.root, "ls-files", "-s", "-z", "--", *paths[i : i + 500], index=index)
            for i in range(0, len(paths), 500)
        )
    out: dict[str, tuple[str, str]] = {}
    for item in listing.split(b"\0"):
        meta, _, name = item.partition(b"\t")
        fields = meta.split(b" ")
        # Gitlinks (submodules) and conflicted stages have no single clean content.
        if len(fields) == 3 and fields[0] != b"160000" and fields[2] == b"0":
            out[os.fsdecode(name)] = (fields[0].decode(), fields[1].decode())
    return out


def lstat_signature(path: Path) -> Signature | None:
    try:
        return signature(os.lstat(path))
    except OSError:
        return None


def walk(
    folder: Path,
    workspace: Workspace,
    max_files: int = DEFAULT_MAX_FILES,
    *,
    start: str = "",
    into: FolderScan | None = None,
) -> FolderScan:
    """Stat every file under ``folder`` (not following links), up to ``max_files``; from the
    directory ``start`` (relative) on, adding to ``into`` when given."""
    result = into if into is not None else FolderScan(folder, False, folder)
    private = {os.fspath(d) for d in workspace.protected_dirs}
    stack = [start]
    while stack:
        relative_dir = stack.pop()
        try:
            entries = list(os.scandir(folder / relative_dir if relative_dir else folder))
        except OSError as exc:
            _unscannable(result, relative_dir or ".", exc)
            continue
        for entry in entries:
            relative = f"{relative_dir}/{entry.name}" if relative_dir else entry.name
            if entry.path in private or matches_any_glob(relative, workspace.protected):
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError as exc:
                _unscannable(result, relative, exc)
                continue
            if stat.S_ISDIR(st.st_mode):
                if not not_descended(workspace, entry.name, relative):
                    stack.append(relative)
                elif entry.name in SKIP_DIRS and entry.name not in _VCS_DIRS:
                    result.bulky[relative] = signature(st)
                continue
            if len(result.dirty) >= max_files:
                result.cut_short = True
                return result
            result.dirty[relative] = signature(st)
    return result


def not_descended(workspace: Workspace, name: str, relative: str) -> bool:
    return name in SKIP_DIRS or relative in workspace.host_state


def walk_paths(
    folder: Path, workspace: Workspace, paths: list[str], max_files: int = DEFAULT_MAX_FILES
) -> FolderScan:
    """What :func:`walk` would find at ``paths`` (relative; a directory with all under it)."""
    result = FolderScan(folder, False, folder)
    private = {os.fspath(d) for d in workspace.protected_dirs}
    for relative in paths:
        parts = relative.split("/")
        prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        if any(
            os.path.join(folder, p) in private
            or matches_any_glob(p, workspace.protected)
            or (p != relative and not_descended(workspace, p.rpartition("/")[2], p))
            for p in prefixes
        ):
            continue
        try:
            st = os.lstat(folder / relative)
        except OSError as exc:
            _unscannable(result, relative, exc)
            continue
        if not stat.S_ISDIR(st.st_mode):
            result.dirty[relative] = signature(st)
        elif not not_descended(workspace, parts[-1], relative):
            walk(folder, workspace, max_files, start=relative, into=result)
    if len(result.dirty) > max_files:
        result.cut_short = True
    return result

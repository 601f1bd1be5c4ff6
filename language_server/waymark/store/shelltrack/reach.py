"""Before a shell command runs: what it can destroy outside the workspace, and what it can
destroy inside that has no backup (a rewind could not bring it back).

The words come from :func:`waymark.engine.shellreach.reach`; here they are expanded as bash
would in this process's environment (``$VAR`` and ``${VAR}``, unset ones empty; ``~``;
globs, up to :data:`_MAX_MATCHES` a word) and resolved where the shell would run them (the
working directory, then each ``cd``). A deleted name is its parent's real folder plus the
name (``rm link`` removes the link, ``rm -r link/*`` what it points to); an overwritten one
is followed to its real file. A word the environment cannot tell (``$(…)``, ``${x:-y}``,
a variable the line itself sets) is not followed.
"""

from __future__ import annotations

import glob
import hashlib
import itertools
import os
import re
import time
from pathlib import Path

from waymark.engine.shellreach import GitDiscard, Target, reach
from waymark.store.private import make_private_dir, open_private
from waymark.store.shelltrack import ignored
from waymark.store.shelltrack.scan import FolderScan, GitUnavailable, run_git
from waymark.store.workspace import Workspace

# Folders outside the workspace a command may delete or overwrite in, separated like PATH.
ALLOW_ENV = "WAYMARK_ALLOW_OUTSIDE"
# The reasons a file could not be backed up that a person should hear of before it goes.
UNSAVED = frozenset(
    {"too_large", "backup_budget", ignored.TOO_LARGE, ignored.OVER_BUDGET, ignored.BULKY}
)
GIT_DIRECTORY = "git_directory"
_MAX_MATCHES = 200
_VARIABLE = re.compile(r"\$(?:\{(\w+)\}|(\w+))")
_SKIP_CLEAN_FLAGS = frozenset({"-f", "--force", "-i", "--interactive", "-q", "--quiet", "-n"})


def allowed_outside(extra: list[str] | None = None) -> list[tuple[Path, bool]]:
    """The folders outside the workspace a command may change, each with whether the folder
    itself may go too: those named by :data:`ALLOW_ENV` and ``extra`` (yes), and the system
    temp directory's scratch folders (``$TMPDIR``, else ``/tmp``; not the folder itself)."""
    named = [p for p in os.environ.get(ALLOW_ENV, "").split(os.pathsep) if p]
    out = [(Path(os.path.realpath(os.path.expanduser(p))), True) for p in [*named, *(extra or [])]]
    temp = os.environ.get("TMPDIR") or os.environ.get("TEMP") or os.environ.get("TMP") or "/tmp"
    out.append((Path(os.path.realpath(temp)), False))
    return out


def outside(
    workspace: Workspace, command: str, cwd: Path, allowed: list[tuple[Path, bool]]
) -> list[str]:
    """The real paths outside the workspace folders ``command`` would delete or overwrite,
    but those under an ``allowed`` folder."""
    found: list[str] = []
    for target in reach(command).targets:
        for real in _resolve(target, cwd):
            if workspace._folder_of(real) is not None or _allowed(real, target, allowed):
                continue
            if os.fspath(real) not in found:
                found.append(os.fspath(real))
    return found


def unsaved(
    command: str, cwd: Path, skipped: dict[str, str], scans: list[FolderScan]
) -> dict[str, str]:
    """The files (or folders) ``command`` may delete or overwrite that have no backup, each
    with its reason: ``skipped`` by the scan before it (too large, over budget), bulky
    ignored folders that are not a tool's regenerable tree, and a repository's ``.git``."""
    candidates = {k: r for k, r in skipped.items() if r in UNSAVED}
    roots: list[Path] = []
    for scan in scans:
        root = scan.root
        for rel in scan.bulky:
            if rel.rpartition("/")[2] not in ignored.REGENERABLE:
                candidates[os.fspath(root / rel)] = ignored.BULKY
        if scan.git:
            roots.append(root)
            candidates[os.fspath(root / ".git")] = GIT_DIRECTORY
    if not candidates:
        return {}
    found = reach(command)
    covered: dict[str, str] = {}
    for target in found.targets:
        if target.kind == "append":
            continue  # the bytes there stay
        # What ``find`` deletes matches its expression: never the repository's own folder.
        among = (
            candidates
            if target.kind != "matching"
            else {k: r for k, r in candidates.items() if r != GIT_DIRECTORY}
        )
        for real in _resolve(target, cwd):
            _cover(os.fspath(real), target.kind != "overwrite", among, covered)
    for discard in found.git:
        _git_discard(discard, cwd, roots, candidates, covered)
    return covered


def _cover(path: str, tree: bool, candidates: dict[str, str], covered: dict[str, str]) -> None:
    below = path.rstrip("/") + "/"
    for key, reason in candidates.items():
        if key == path or (tree and key.startswith(below)):
            covered[key] = reason


def _git_discard(
    discard: GitDiscard,
    cwd: Path,
    roots: list[Path],
    candidates: dict[str, str],
    covered: dict[str, str],
) -> None:
    base = _base(cwd, discard.cds)
    if base is None:
        return
    if discard.directory is not None:
        directory = expand(discard.directory)
        if directory is None:
            return
        base = Path(os.path.normpath(base / directory))
    real = Path(os.path.realpath(base))
    root = max(
        (r for r in roots if real.is_relative_to(r)), key=lambda r: len(r.parts), default=None
    )
    if root is None:
        return
    if discard.verb == "clean":
        for victim in _clean_victims(real, discard.args):
            _cover(os.fspath(real / victim), True, candidates, covered)
        return
    # The others put tracked files back as git has them: what dirty ones hold goes.
    for key, reason in candidates.items():
        if reason in ("too_large", "backup_budget") and key.startswith(os.fspath(root) + "/"):
            covered[key] = reason


def _clean_victims(base: Path, args: tuple[str, ...]) -> list[str]:
    """What ``git clean ARGS`` would remove, from its own dry run (paths relative to base)."""
    dry = ["-n"]
    for arg in args:
        if arg in _SKIP_CLEAN_FLAGS:
            continue
        if arg.startswith("-") and not arg.startswith("--"):
            arg = "-" + "".join(c for c in arg[1:] if c not in "fiqn")
            if arg == "-":
                continue
        dry.append(arg)
    try:
        out = run_git(base, "clean", *dry).stdout
    except GitUnavailable:
        return []
    prefix = b"Would remove "
    return [
        os.fsdecode(line[len(prefix) :]) for line in out.splitlines() if line.startswith(prefix)
    ]


def expand(word: str) -> str | None:
    """``word`` as bash would pass it on in this environment; None when only bash knows."""
    if word == "~" or word.startswith("~/"):
        word = os.environ.get("HOME", "~") + word[1:]
    elif word.startswith("~"):
        word = os.path.expanduser(word)
    text = _VARIABLE.sub(lambda m: os.environ.get(m.group(1) or m.group(2), ""), word)
    return None if "$" in text or "`" in text else text


def _base(cwd: Path, cds: tuple[str, ...]) -> Path | None:
    base = cwd
    for directory in cds:
        text = expand(directory)
        if text is None or text == "-":
            return None
        base = Path(os.path.normpath(base / text))
    return base


def _resolve(target: Target, cwd: Path) -> list[Path]:
    base = _base(cwd, target.cds)
    text = expand(target.word)
    if base is None or text is None or not text:
        return []
    path = os.path.join(base, text)
    paths = [path]
    if target.pattern:
        paths = list(itertools.islice(glob.iglob(path), _MAX_MATCHES)) or paths
    out = []
    for one in paths:
        name = os.path.basename(one)
        if target.kind in ("overwrite", "append") or one.endswith("/") or name in ("", ".", ".."):
            out.append(Path(os.path.realpath(one)))
        else:
            out.append(Path(os.path.realpath(os.path.dirname(one))) / name)
    return out


def _allowed(real: Path, target: Target, allowed: list[tuple[Path, bool]]) -> bool:
    if target.kind in ("overwrite", "append") and real.is_relative_to("/dev"):
        return True  # > /dev/null, 2> /dev/stderr
    return any(
        real.is_relative_to(folder) and (itself or real != folder) for folder, itself in allowed
    )


_WARNED_S = 600


def warned_before(directory: Path, command: str, cwd: Path) -> bool:
    """Whether ``command`` (run in ``cwd``) was stopped with a warning in the last ten
    minutes, which this call takes back; if not, the warning is noted now. For a host with
    no way to ask its user: the model asks, and runs the same command again."""
    raw = f"{cwd}\0{command}".encode("utf-8", "surrogateescape")
    marker = directory / "warned" / hashlib.sha256(raw).hexdigest()[:32]
    try:
        if time.time() - os.lstat(marker).st_mtime < _WARNED_S:
            os.unlink(marker)
            return True
    except OSError:
        pass
    try:
        make_private_dir(marker.parent)
        os.close(open_private(marker, os.O_WRONLY | os.O_CREAT | os.O_TRUNC))
        os.utime(marker)
    except OSError:
        return True  # a warning that cannot be noted would stop the command for good
    return False

"""Which paths a command may touch.

A ``path`` is absolute or relative to the first workspace folder. After resolving symlinks it
must lie inside a workspace folder, and neither its spelled path nor its resolved path may
match a protected glob (so a link named ``notes`` pointing at ``.git/config`` is refused).

Globs: ``**`` spans any number of path segments, ``*`` and ``?`` stay within one. A glob
that does not start with ``/`` or ``**/`` also matches at any depth, the way ``.gitignore``
entries do: ``.git/**`` protects a submodule's ``.git`` too. A leading ``/`` anchors it at
the folder root.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path, PurePosixPath

from waymark.engine.errors import (
    FileNotFound,
    FileTooLarge,
    InvalidParams,
    IoError,
    IsDirectory,
    PathOutsideWorkspace,
    ProtectedPath,
    WorkspaceGone,
)
from waymark.store.real_path import Reached, reach

DEFAULT_PROTECTED = (".git/**", ".ssh/**", ".gnupg/**", "**/.env", "node_modules/**")
DEFAULT_MAX_FILE_SIZE = 20 * 1024 * 1024


@lru_cache(maxsize=256)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """Compile a protected-path glob to a regex over ``/``-separated relative paths."""
    anchored = pattern.startswith("/")
    body = pattern.lstrip("/")
    out: list[str] = []
    i = 0
    while i < len(body):
        if body.startswith("**/", i):
            out.append("(?:[^/]+/)*")
            i += 3
        elif body.startswith("**", i):
            out.append(".*")
            i += 2
        elif body[i] == "*":
            out.append("[^/]*")
            i += 1
        elif body[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(body[i]))
            i += 1
    prefix = "" if anchored or body.startswith("**") else "(?:[^/]+/)*"
    # `dir/**` also names `dir` itself.
    core = "".join(out)
    if core.endswith("/.*"):
        core = core[:-3] + "(?:/.*)?"
    return re.compile(prefix + core + r"\Z")


@lru_cache(maxsize=64)
def _any_glob_regex(patterns: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{glob_regex(p).pattern})" for p in patterns) or r"(?!)")


def matches_any_glob(relative: str, patterns: Sequence[str]) -> bool:
    """Whether any of ``patterns`` matches ``relative``: one regex for all (a walk asks this
    of every file in the folder)."""
    return _any_glob_regex(tuple(patterns)).match(relative) is not None


def matches_glob(relative: str, patterns: Iterable[str]) -> str | None:
    """Return the first pattern that matches ``relative`` (a ``/``-separated path)."""
    for pattern in patterns:
        if glob_regex(pattern).match(relative):
            return pattern
    return None


def lone_surrogate(text: str) -> str | None:
    """Where ``text`` holds a surrogate no file name can: ``"U+D800 at offset 3"``, or None.

    U+DC80..U+DCFF stand for the bytes of a name that is not UTF-8 (``os.fsdecode``) and
    pass; any other lone surrogate encodes to no byte string at all.
    """
    try:
        os.fsencode(text)
    except UnicodeEncodeError as exc:
        return f"U+{ord(text[exc.start]):04X} at offset {exc.start}"
    return None


def _as_the_kernel_walks(candidate: Path, spelled: str) -> Path:
    """``candidate`` (absolute) normalised the way the kernel walks it.

    A ``..`` leaves the directory the components before it reach, symlinks followed: with
    ``lib -> vendor/pkg/lib``, ``lib/../config.txt`` is ``vendor/pkg/config.txt`` to the kernel
    and to GNU sed, where text normalisation would make it ``./config.txt``. So everything up
    to the last ``..`` is resolved; the rest stays as spelled (a final symlink included).
    """
    parts = candidate.parts
    if ".." not in parts:
        return Path(os.path.normpath(candidate))
    last = len(parts) - 1 - parts[::-1].index("..")
    for i in range(1, last + 1):
        # The kernel refuses to go up out of what is not a directory (ENOENT, ENOTDIR).
        if parts[i] == ".." and not os.path.isdir(Path(*parts[:i])):
            raise InvalidParams(
                f"`{spelled}` goes up (`..`) out of {_shown(spelled, parts, i)}, which is not a "
                "directory, so the path names no file; name the file without `..`.",
                {"field": "path", "path": spelled},
            )
    head = os.path.realpath(Path(*parts[: last + 1]))
    return Path(os.path.normpath(Path(head, *parts[last + 1 :])))


# Strings until the policy's kept answer, and kept: an edit resolves the same path on every
# call, and making Path objects was half of that (only a `..` needs them).
@lru_cache(maxsize=1024)
def _plain_lexical(spelled: str, base: Path) -> str | None:
    """``spelled`` joined to ``base`` and normalised as text, or None when it holds a ``..``,
    which only the file system can resolve (:func:`_as_the_kernel_walks`)."""
    candidate = os.path.join(base, spelled)
    return None if ".." in candidate.split("/") else os.path.normpath(candidate)


def _shown(spelled: str, parts: tuple[str, ...], upto: int) -> str:
    """The first ``upto`` components of the absolute ``parts`` as the caller spelled them."""
    words = Path(spelled).parts
    # The components after the prefix are the caller's own last ones.
    keep = len(words) - (len(parts) - upto)
    return str(Path(*words[:keep])) if keep > 0 else str(Path(*parts[:upto]))


@dataclass(frozen=True)
class ResolvedPath:
    """A path a command may use: how to show it, and the real file behind it."""

    display: str  # relative to its workspace folder when inside one, with "/" separators
    lexical: Path  # absolute, symlinks not resolved (what the user named) but those a `..` left
    real: Path  # absolute, symlinks resolved (what gets read and written)
    folder: Path  # the (real) workspace folder it lies in

    # Every load names its file by it, and the policy hands out the same ResolvedPath for the
    # same path call after call (_police): made once, not per load.
    @cached_property
    def uri(self) -> str:
        """``lexical`` as a ``file:`` URI."""
        return self.lexical.as_uri()


# The policy is a pure function of the spelled, lexical and real paths and the settings, and
# an agent names the same few files call after call: its answers are kept (refusals are
# raised anew each time). Only the real path needs the file system, so it is never kept.
@lru_cache(maxsize=1024)
def _police(
    path: str,
    lexical_path: str,
    real_path: str,
    folders: tuple[Path, ...],
    protected: tuple[str, ...],
    protected_dirs: tuple[Path, ...],
) -> ResolvedPath:
    """``real_path`` (what ``path`` names) if it lies in a folder and is not protected."""
    lexical, real = Path(lexical_path), Path(real_path)
    folder = _folder_of(real, folders)
    if folder is None:
        raise PathOutsideWorkspace(
            f"{path} resolves to {real}, outside the workspace folders; "
            "Waymark works only on files inside the workspace folders.",
            {"path": path, "resolved": str(real), "folders": [str(f) for f in folders]},
        )
    for private in protected_dirs:
        if real == private or real.is_relative_to(private):
            raise ProtectedPath(
                f"{path} lies in Waymark's history directory, which is never read or "
                "written through Waymark's commands; choose another file.",
                {"path": path, "pattern": os.fspath(private)},
            )
    display = real.relative_to(folder).as_posix()
    spelled = _relative_spelling(lexical, folders)
    for relative in {display, spelled} - {None}:
        assert relative is not None
        pattern = matches_glob(relative, protected)
        if pattern is not None:
            raise ProtectedPath(
                f"{path} is protected by the glob {pattern!r} and is never written; "
                "choose another file or change protectedPaths.",
                {"path": path, "pattern": pattern},
            )
    return ResolvedPath(display=display, lexical=lexical, real=real, folder=folder)


def _folder_of(real: Path, folders: tuple[Path, ...]) -> Path | None:
    # The most specific folder wins when folders nest.
    inside = [f for f in folders if real == f or real.is_relative_to(f)]
    return max(inside, key=lambda f: len(f.parts)) if inside else None


def _relative_spelling(lexical: Path, folders: tuple[Path, ...]) -> str | None:
    for folder in folders:
        if lexical.is_relative_to(folder):
            return PurePosixPath(lexical.relative_to(folder)).as_posix()
    return None


@dataclass
class Workspace:
    """Workspace folders and the path policy over them."""

    folders: list[Path] = field(default_factory=list)
    protected: Sequence[str] = DEFAULT_PROTECTED
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    # Directories never touched whatever the globs say: the history's own (it may lie inside
    # a folder, and an agent writing a journal there must not steer a rewind).
    protected_dirs: Sequence[Path] = ()
    # Folders (relative to a workspace folder) where agent hosts keep their own state:
    # shell tracking never records them as a command's changes.
    host_state: Sequence[str] = ()
    # Each folder's (device, inode) when it was opened: None when it did not exist then.
    _opened: dict[Path, tuple[int, int] | None] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        # Folders passed to the constructor must be real paths too, or every file under a
        # symlinked folder would resolve "outside" it.
        self.set_folders(self.folders)
        self.protected_dirs = tuple(Path(os.path.realpath(d)) for d in self.protected_dirs)

    def set_folders(self, folders: Iterable[Path]) -> None:
        self.folders = [Path(os.path.realpath(f)) for f in folders]
        self._opened = {f: _identity(f) for f in self.folders}

    def check_folders(self) -> None:
        """Refuse to write once a folder is not the directory that was opened: writing would
        re-create a moved or deleted folder's old path, or write into a stranger's."""
        for folder in self.folders:
            opened = self._opened.get(folder)
            now = _identity(folder)
            if opened is None or now == opened:
                continue
            how = (
                "no longer exists (moved or deleted since Waymark opened it)"
                if now is None
                else "is no longer the directory Waymark opened (that one was moved or deleted "
                "and another took its place)"
            )
            raise WorkspaceGone(
                f"The workspace folder {folder} {how}, so nothing was changed",
                {"folder": str(folder), "reason": "missing" if now is None else "replaced"},
                next_step="restart",
            )

    def resolve(self, path: str, *, base: Path | None = None) -> ResolvedPath:
        """Resolve and police a path; raise the contract's error when it is not allowed."""
        resolved, reached = self.resolve_reached(path, base=base)
        if reached is not None:
            os.close(reached.dir_fd)
        return resolved

    def resolve_reached(
        self, path: str, *, base: Path | None = None
    ) -> tuple[ResolvedPath, Reached | None]:
        """:meth:`resolve`, with the file's directory as resolving it reached it (the caller
        closes it), for a caller about to read the file: its read need not walk there again."""
        if not isinstance(path, str) or not path.strip():
            raise InvalidParams("`path` must be a non-empty string.", {"field": "path"})
        if "\x00" in path:
            raise InvalidParams("`path` must not contain NUL characters.", {"field": "path"})
        if not self.folders:
            raise PathOutsideWorkspace(
                "The server has no workspace folder; open a folder (or pass --root) first.",
                {"path": path},
            )
        surrogate = lone_surrogate(path)
        if surrogate is not None:
            raise InvalidParams(
                f"The path {path!r} holds a lone surrogate ({surrogate}), which names no file; "
                "send the file name as valid Unicode.",
                {"field": "path"},
            )
        spelled = os.path.expanduser(path) if path.startswith("~") else path
        lexical = _plain_lexical(spelled, base or self.folders[0])
        if lexical is None:
            lexical = os.fspath(
                _as_the_kernel_walks(Path(os.path.join(base or self.folders[0], spelled)), path)
            )
        real, reached = reach(lexical)
        try:
            resolved = _police(
                path,
                lexical,
                real,
                tuple(self.folders),
                tuple(self.protected),
                tuple(self.protected_dirs),
            )
        except BaseException:
            if reached is not None:
                os.close(reached.dir_fd)
            raise
        return resolved, reached

    def _folder_of(self, real: Path) -> Path | None:
        return _folder_of(real, tuple(self.folders))

    def check_readable(self, resolved: ResolvedPath) -> int:
        """Check the file exists, is not a directory and fits the size limit; return its size."""
        try:
            st = os.stat(resolved.real)
        except FileNotFoundError as exc:
            raise FileNotFound(
                f"{resolved.display} does not exist", {"path": resolved.display}, next_step="create"
            ) from exc
        except OSError as exc:
            raise IoError.from_os_error(exc, "stat", resolved.display) from exc
        self._check_file(resolved, st)
        return st.st_size

    def check_size(self, resolved: ResolvedPath) -> None:
        """Refuse a directory, or a file over the size limit, from its stat; an absent one
        passes."""
        try:
            st = os.stat(resolved.real)
        except OSError:
            # Reading it reports why (absent is fine for a caller that may create it).
            return
        self._check_file(resolved, st)

    def _check_file(self, resolved: ResolvedPath, st: os.stat_result) -> None:
        """The kind of file before its size: a directory's size (4096 bytes) is no content,
        and a FIFO or a device is refused as what it is when it is read."""
        if stat.S_ISDIR(st.st_mode):
            raise IsDirectory(
                f"{resolved.display} is a directory; pass a file path.",
                {"path": resolved.display},
            )
        if stat.S_ISREG(st.st_mode) and st.st_size > self.max_file_size:
            raise FileTooLarge(
                f"{resolved.display} is {st.st_size} bytes, over the {self.max_file_size}-byte "
                "limit; edit a smaller file or raise maxFileSize.",
                {"path": resolved.display, "size": st.st_size, "limit": self.max_file_size},
            )


def _identity(folder: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(folder, follow_symlinks=False)
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISDIR(st.st_mode) else None

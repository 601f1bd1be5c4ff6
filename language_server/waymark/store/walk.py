"""Reaching a path without following symlinks: the walk every file operation starts with.

The absolute path is walked from ``/`` one component at a time with ``openat``-style calls
(``dir_fd=`` and ``O_NOFOLLOW``), so the object checked is the object used: a directory
swapped for a symlink between a path check and the write makes the walk fail; it never leads
outside the workspace. Only regular files are read: a FIFO, socket or device is refused with
``not_regular_file`` before it is opened for I/O (``O_NONBLOCK`` and ``fstat`` on the opened
fd), so it can never block the server.

A directory is first opened in one call where that is available (``waymark.store._nofollow``,
``_nofollow.c``: ``openat2`` with ``RESOLVE_NO_SYMLINKS``, one syscall where the components
cost two each). It only ever answers a descriptor or "no": on any failure of it the component
walk runs as if it had not been tried; it is the reference, the one that names the component
in a refusal and makes the missing directories.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import cast

from waymark.engine.errors import (
    FileNotFound,
    FileTooLarge,
    IoError,
    IsDirectory,
    NotRegularFile,
    PathOutsideWorkspace,
    WaymarkError,
)

# Directories a walk of the workspace never enters: tools' own state, or too big to be
# a source tree (the shell-tracking scan and the temp-file sweep).
SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", ".venv", "__pycache__"})

_O_PATH = getattr(os, "O_PATH", os.O_RDONLY)
_DIR_FLAGS = _O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_Read = tuple[bytes, os.stat_result] | None  # a file's bytes and their fstat, or absent
# What the one call itself is refused with (seccomp, an old kernel, no openat2 in the
# headers), whatever the path: asking again would only fail again.
_NOT_AVAILABLE = frozenset({errno.ENOSYS, errno.EPERM, errno.EINVAL, errno.E2BIG})


def one_call_built() -> Callable[..., int] | None:
    """``_nofollow.open_dir(path[, dir_fd])`` when built and allowed (not
    ``WAYMARK_PURE_PYTHON``); None: the component walk alone."""
    if os.environ.get("WAYMARK_PURE_PYTHON", "") not in ("", "0"):
        return None
    try:
        # __import__, not importlib's import_module: importing importlib costs a hook call.
        module = __import__("waymark.store._nofollow", fromlist=["open_dir"])
    except ImportError:
        return None
    return cast(Callable[..., int], module.open_dir)


def _first_call(path: str, *dir_fd: int) -> int:
    # Loaded by the first walk, not at import: an in-process hook call that walks nothing
    # never pays for it.
    global _one_call
    _one_call = one_call_built()
    if _one_call is None:
        raise OSError(errno.ENOSYS, "waymark.store._nofollow is not available")
    return _one_call(path, *dir_fd)


_one_call: Callable[..., int] | None = _first_call


def dir_at_once(path: str, *dir_fd: int) -> int | None:
    """The directory ``path`` (relative to ``dir_fd``, if given) in one call that follows no
    symlink; None when that is not available or failed for any reason."""
    global _one_call
    opener = _one_call
    if opener is None:
        return None
    try:
        return opener(path, *dir_fd)
    except OSError as exc:
        if exc.errno in _NOT_AVAILABLE:
            _one_call = None
        return None
    except ValueError:
        # A NUL in a component: the component walk's os.open raises what it always did.
        return None


def split_path(path: Path, follow_links: bool) -> tuple[Path, list[str], str]:
    """The absolute path to walk, its directory components and its final name."""
    text, dirs, name = split_text(path, follow_links)
    return Path(text), dirs, name


def split_text(path: Path | str, follow_links: bool) -> tuple[str, list[str], str]:
    """:func:`split_path` with the absolute path as a string (what errors name), for readers
    of many files: building a ``Path`` per file was a good part of a small read's cost."""
    text = os.path.realpath(path) if follow_links else os.path.abspath(path)
    # Normalized and absolute: its components are what lies between slashes (split as
    # strings, pathlib's parsing is a good part of a small read's cost).
    parts = [part for part in text.split("/") if part]
    if not parts:
        raise IsDirectory(f"{path} is a directory; pass a file path.", {"path": str(path)})
    return text, parts[:-1], parts[-1]


def symlink_refused(path: Path | str, where: str) -> PathOutsideWorkspace:
    named = f"{where} (on the way to {path})" if where != str(path) else str(path)
    return PathOutsideWorkspace(
        f"{named} is a symbolic link that appeared after the path was checked; Waymark "
        "never follows it, so nothing was touched. Run the command again.",
        {"path": str(path), "symlink": where},
    )


def not_regular(path: Path | str, mode: int) -> WaymarkError:
    if stat.S_ISDIR(mode):
        return IsDirectory(f"{path} is a directory; pass a file path.", {"path": str(path)})
    kind = (
        "a named pipe"
        if stat.S_ISFIFO(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "a device"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "a symbolic link"
        if stat.S_ISLNK(mode)
        else "not a regular file"
    )
    return NotRegularFile(
        f"{path} is {kind}, not a regular file; Waymark reads and writes only regular files, "
        "pass another path.",
        {"path": str(path), "kind": kind.removeprefix("a ").removeprefix("not a ")},
    )


@contextlib.contextmanager
def walk(
    path: Path | str,
    dirs: list[str],
    *,
    create: bool = False,
    create_from: int = 0,
    created: list[Path] | None = None,
) -> Iterator[int]:
    """Yield an fd of the directory ``/dirs...``, reached without following any symlink.

    ``create`` makes missing directories from ``dirs[create_from]`` on (those above must
    exist) and appends each one it made to ``created``.
    """
    fd = dir_at_once("/" + "/".join(dirs))
    if fd is None:
        fd = _walk_components(path, dirs, create, create_from, created)
    try:
        yield fd
    finally:
        os.close(fd)


def _walk_components(
    path: Path | str, dirs: list[str], create: bool, create_from: int, created: list[Path] | None
) -> int:
    fd = os.open("/", _DIR_FLAGS)
    try:
        for index, name in enumerate(dirs):
            try:
                child = _open_dir(path, dirs, index, fd)
            except FileNotFoundError:
                if not create or index < create_from:
                    raise
                try:
                    os.mkdir(name, 0o777, dir_fd=fd)
                except FileExistsError:
                    pass
                else:
                    if created is not None:
                        created.append(_so_far(dirs, index))
                child = _open_dir(path, dirs, index, fd)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


# A level of a Walks' stack reached inside one openat2 call: no descriptor of its own.
_PASSED = -1


class Walks:
    """One operation's walks: each directory reached once, its files opened relative to it.

    A backup or rewind of many files (a turn's snapshot, a rewind's reads and writes) walks
    each directory once instead of once per file, and its files are opened relative to that
    descriptor (``O_NOFOLLOW``). Each directory is opened as :func:`walk` opens it, without
    following a symlink (its parent in one call from the deepest directory held, else
    component by component), so a descriptor pins the directory actually walked, as
    :func:`walk`'s does for the length of one file's operation. Descriptors live for one
    operation (a ``with`` block under the caller's locks), never across calls: a directory
    swapped for a symlink later is walked anew next time, and refused. They are held as the
    stack of directories on the way to the last file, so files visited in sorted order reach
    each directory once, with one descriptor per level at most (levels the one call went
    through hold none).
    A caller that creates or removes directories calls :meth:`forget` after.
    """

    def __init__(self) -> None:
        self._names: list[str] = []
        # ``_fds[0]`` is ``/``; ``_fds[i + 1]`` is the directory ``/_names[0]/.../_names[i]``;
        # any but the last may be ``_PASSED``: one the one-call walk went through.
        self._fds: list[int] = []

    def __enter__(self) -> Walks:
        return self

    def __exit__(self, *exc: object) -> None:
        self.forget()

    def forget(self) -> None:
        """Close every descriptor held: the next file walks from ``/`` again."""
        fds, self._fds, self._names = self._fds, [], []
        for fd in fds:
            if fd != _PASSED:
                os.close(fd)

    def directory(self, path: Path | str, dirs: list[str]) -> int:
        """An fd of the directory ``/dirs...`` (held by this object), reached as :func:`walk`
        reaches it; ``path`` names the file it is for, in errors."""
        names, fds = self._names, self._fds
        if names == dirs and fds:
            return fds[-1]  # the last file's directory: most files of an operation
        same = 0
        common = min(len(names), len(dirs))
        while same < common and names[same] == dirs[same]:
            same += 1
        while fds and (len(names) > same or fds[-1] == _PASSED):
            if names:
                names.pop()
            fd = fds.pop()
            if fd != _PASSED:
                os.close(fd)
        start = len(names)
        if len(dirs) - start > 1:
            # The parent in one call and the last directory on its own: the next file's
            # directory is often a sibling, reached from the parent held in one more call.
            # Nothing held: the call starts at "/", which is then never opened.
            base = fds[-1:]
            parent = dir_at_once(
                "/".join(dirs[start:-1]) if base else "/" + "/".join(dirs[:-1]), *base
            )
            if parent is not None:
                names.extend(dirs[start:-1])
                fds.extend([_PASSED] * (len(dirs) - start - 1 - len(base)))
                fds.append(parent)
                start = len(dirs) - 1
        if not fds:
            fds.append(os.open("/", _DIR_FLAGS))
        for index in range(start, len(dirs)):
            fds.append(_open_dir(path, dirs, index, fds[-1]))
            names.append(dirs[index])
        return fds[-1]


class ThreadWalks:
    """A :class:`Walks` per thread of a pool working through one operation (each thread's
    files reach their directories through its own stack); all closed at the end."""

    def __init__(self) -> None:
        self._local = threading.local()
        self._made: list[Walks] = []
        self._guard = threading.Lock()

    def __enter__(self) -> ThreadWalks:
        return self

    def __exit__(self, *exc: object) -> None:
        with self._guard:
            made, self._made = self._made, []
        for walks in made:
            walks.forget()

    def get(self) -> Walks:
        """This thread's :class:`Walks`."""
        walks: Walks | None = getattr(self._local, "walks", None)
        if walks is None:
            walks = self._local.walks = Walks()
            with self._guard:
                self._made.append(walks)
        return walks


def _so_far(dirs: list[str], index: int) -> Path:
    """The directory reached at ``dirs[index]``, named only for an error or a directory made
    (a path built per component would cost every walk)."""
    return Path("/", *dirs[: index + 1])


def _open_dir(path: Path | str, dirs: list[str], index: int, parent: int) -> int:
    """Open ``dirs[index]`` in ``parent`` without following a symlink; a symlink or a
    non-directory there is refused with the path it lies on."""
    name = dirs[index]
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise _component_error(path, _so_far(dirs, index), name, parent) from exc
        raise


def _component_error(path: Path | str, so_far: Path, name: str, parent: int) -> WaymarkError:
    try:
        mode = os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode
    except OSError:
        mode = 0
    if stat.S_ISLNK(mode):
        return symlink_refused(path, str(so_far))
    return IoError(
        f"{so_far} (on the way to {path}) is not a directory; nothing was changed, check the path.",
        {"errno": "ENOTDIR", "path": str(path)},
    )


def lstat_at(name: str, dir_fd: int) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def read_at(path: Path | str, name: str, dir_fd: int, limit: int | None = None) -> _Read:
    """Read the regular file ``name`` in ``dir_fd``; ``None`` when absent. Never blocks. Over
    ``limit`` bytes, by its ``fstat`` (no byte read) or as it is read: ``file_too_large``."""
    return read_lstated(path, name, dir_fd, lstat_at(name, dir_fd), limit)


def read_lstated(
    path: Path | str, name: str, dir_fd: int, before: os.stat_result | None, limit: int | None
) -> _Read:
    """:func:`read_at` with ``name``'s lstat taken already (``before``; ``None``: absent)."""
    if before is None:
        return None
    if stat.S_ISLNK(before.st_mode):
        raise symlink_refused(path, str(path))
    if not stat.S_ISREG(before.st_mode):
        raise not_regular(path, before.st_mode)
    try:
        fd = os.open(name, _READ_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise symlink_refused(path, str(path)) from exc
        raise
    try:
        # Swapped between the lstat and the open: judge the object actually opened.
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise not_regular(path, st.st_mode)
        if limit is not None and st.st_size > limit:
            raise _too_large(path, st.st_size, limit)
        want = max(st.st_size + 1, 1 << 16)
        first = os.read(fd, want)
        if len(first) == st.st_size:
            # All the bytes its fstat counted, short of what was asked: the end, with no
            # second read to be told so (a short read of fewer, on some filesystems, is not).
            return first, st
        chunks, total = [first], len(first)
        while True:
            if limit is not None and total > limit:
                raise _too_large(path, total, limit)
            chunk = os.read(fd, want)
            if not chunk:
                return b"".join(chunks), st
            chunks.append(chunk)
            total += len(chunk)
    finally:
        os.close(fd)


def _too_large(path: Path | str, size: int, limit: int) -> FileTooLarge:
    return FileTooLarge(
        f"{path} is {size} bytes, over the {limit}-byte limit; edit a smaller file or raise "
        "maxFileSize.",
        {"path": str(path), "size": size, "limit": limit},
    )


def os_error(exc: OSError, action: str, path: Path) -> WaymarkError:
    if isinstance(exc, FileNotFoundError) and action == "read":
        return FileNotFound(f"{path} does not exist", {"path": str(path)}, next_step="create")
    if isinstance(exc, IsADirectoryError):
        return IsDirectory(f"{path} is a directory; pass a file path.", {"path": str(path)})
    return IoError.from_os_error(exc, action, str(path))

"""Reading, atomically writing and deleting files without following symlinks.

Every operation walks its absolute path from ``/`` one component at a time with
``openat``-style calls (``dir_fd=`` and ``O_NOFOLLOW``), so the object checked is the object
used: a directory swapped for a symlink between a path check and the write makes the walk
fail; it never leads outside the workspace. Callers pass real paths (the workspace resolves
them); ``follow_links=True`` resolves a final symlink first, for readers that accept one.

Only regular files are read or replaced: a FIFO, socket or device is refused with
``not_regular_file`` before it is opened for I/O (``O_NONBLOCK`` and ``fstat`` on the opened
fd), so it can never block the server.

A write never leaves a half-written target: the new bytes go to a temp file in the same
directory, are fsynced, take the old file's mode (and owner, when we may), and replace the
target with ``rename``; then the directory is fsynced so the rename survives a crash. A
crash leaves at most a temp file named ``.NAME.waymark-tmp-XXXX``, swept on the next start.

Across processes, :func:`locked` takes an advisory lock around re-read → compare → replace,
and ``expected=`` makes :func:`atomic_write` and :func:`delete_file` compare the content right
before they change it (``file_changed_since_read`` otherwise): an edit either lands or fails.

Staleness is judged by content: :func:`digest` hashes the bytes; ``stat`` is only a fast path
for "certainly unchanged", never proof of "unchanged" by mtime alone.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import secrets
import stat
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import xxhash

from waymark.engine.errors import (
    FileChangedSinceRead,
    FileNotFound,
    IoError,
    IsDirectory,
    NotRegularFile,
    PathOutsideWorkspace,
    WaymarkError,
)

TEMP_MARKER = ".waymark-tmp-"

# os.umask can only be read by setting it; do it once, at import, before any thread starts.
_UMASK = os.umask(0)
os.umask(_UMASK)


def digest(data: bytes) -> str:
    """Content identity of a file's bytes (xxh3-128, hex)."""
    return xxhash.xxh3_128_hexdigest(data)


@dataclass(frozen=True)
class StatKey:
    """What stat says about a file; equal keys mean "unchanged" only together with a digest."""

    dev: int
    ino: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, st: os.stat_result) -> StatKey:
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


@dataclass(frozen=True)
class FileState:
    """A file's bytes as read, with their digest and stat key (``data is None``: absent)."""

    path: Path
    data: bytes | None
    digest: str | None
    stat: StatKey | None

    @property
    def exists(self) -> bool:
        return self.data is not None


class _Unchecked:
    """Type of :data:`UNCHECKED`: replace or delete whatever the file holds."""

    def __repr__(self) -> str:
        return "UNCHECKED"


UNCHECKED = _Unchecked()
# What ``expected=`` accepts: a digest, ``None`` for "must be absent", or UNCHECKED.
Expected = str | None | _Unchecked

_O_PATH = getattr(os, "O_PATH", os.O_RDONLY)
_DIR_FLAGS = _O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
DEFAULT_LOCK_TIMEOUT = 10.0


def _split(path: Path, follow_links: bool) -> tuple[Path, list[str], str]:
    """The absolute path to walk, its directory components and its final name."""
    absolute = Path(os.path.realpath(path) if follow_links else os.path.abspath(path))
    parts = list(absolute.parts[1:])
    if not parts:
        raise IsDirectory(f"{path} is a directory; pass a file path.", {"path": str(path)})
    return absolute, parts[:-1], parts[-1]


def _symlink_refused(path: Path, where: str) -> PathOutsideWorkspace:
    named = f"{where} (on the way to {path})" if where != str(path) else str(path)
    return PathOutsideWorkspace(
        f"{named} is a symbolic link that appeared after the path was checked; Waymark "
        "never follows it, so nothing was touched. Run the command again.",
        {"path": str(path), "symlink": where},
    )


def _not_regular(path: Path, mode: int) -> WaymarkError:
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
def _walk(path: Path, dirs: list[str], *, create: bool = False) -> Iterator[int]:
    """Yield an fd of the directory ``/dirs...``, reached without following any symlink."""
    fd = os.open("/", _DIR_FLAGS)
    try:
        so_far = Path("/")
        for name in dirs:
            so_far = so_far / name
            try:
                child = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o777, dir_fd=fd)
                child = _open_dir(path, so_far, name, fd)
            except (NotADirectoryError, OSError) as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise _component_error(path, so_far, name, fd) from exc
                raise
            os.close(fd)
            fd = child
        yield fd
    finally:
        os.close(fd)


def _open_dir(path: Path, so_far: Path, name: str, parent: int) -> int:
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise _component_error(path, so_far, name, parent) from exc
        raise


def _component_error(path: Path, so_far: Path, name: str, parent: int) -> WaymarkError:
    try:
        mode = os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode
    except OSError:
        mode = 0
    if stat.S_ISLNK(mode):
        return _symlink_refused(path, str(so_far))
    return IoError(
        f"{so_far} (on the way to {path}) is not a directory; nothing was changed, check the path.",
        {"errno": "ENOTDIR", "path": str(path)},
    )


def _lstat_at(name: str, dir_fd: int) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _read_at(path: Path, name: str, dir_fd: int) -> tuple[bytes, os.stat_result] | None:
    """Read the regular file ``name`` in ``dir_fd``; ``None`` when absent. Never blocks."""
    before = _lstat_at(name, dir_fd)
    if before is None:
        return None
    if stat.S_ISLNK(before.st_mode):
        raise _symlink_refused(path, str(path))
    if not stat.S_ISREG(before.st_mode):
        raise _not_regular(path, before.st_mode)
    try:
        fd = os.open(name, _READ_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _symlink_refused(path, str(path)) from exc
        raise
    try:
        # Swapped between the lstat and the open: judge the object actually opened.
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _not_regular(path, st.st_mode)
        chunks = []
        while chunk := os.read(fd, max(st.st_size + 1, 1 << 16)):
            chunks.append(chunk)
        return b"".join(chunks), st
    finally:
        os.close(fd)


def _os_error(exc: OSError, action: str, path: Path) -> WaymarkError:
    if isinstance(exc, FileNotFoundError) and action == "read":
        return FileNotFound(
            f"{path} does not exist; check the path, or create it with waymark.write.",
            {"path": str(path)},
        )
    if isinstance(exc, IsADirectoryError):
        return IsDirectory(f"{path} is a directory; pass a file path.", {"path": str(path)})
    return IoError.from_os_error(exc, action, str(path))


def read_bytes(path: Path, *, follow_links: bool = False) -> bytes:
    """Read a regular file, mapping OS errors to the contract's codes."""
    state = read_state(path, follow_links=follow_links)
    if state.data is None:
        raise FileNotFound(
            f"{path} does not exist; check the path, or create it with waymark.write.",
            {"path": str(path)},
        )
    return state.data


def read_state(path: Path, *, follow_links: bool = False) -> FileState:
    """Read a file that may be absent (also when a directory on the way is); others raise.

    With ``follow_links`` a final symlink is resolved first (the caller polices the target);
    without it a symlink anywhere on the path is refused.
    """
    absolute, dirs, name = _split(path, follow_links)
    try:
        with _walk(absolute, dirs) as dir_fd:
            found = _read_at(absolute, name, dir_fd)
    except FileNotFoundError:
        return FileState(path, None, None, None)
    except OSError as exc:
        raise _os_error(exc, "read", path) from exc
    if found is None:
        return FileState(path, None, None, None)
    data, st = found
    return FileState(path, data, digest(data), StatKey.of(st))


def _check_expected(path: Path, name: str, dir_fd: int, expected: Expected) -> None:
    if isinstance(expected, _Unchecked):
        return
    found = _read_at(path, name, dir_fd)
    now = None if found is None else digest(found[0])
    if now != expected:
        raise _changed(path)


def _changed(path: Path) -> FileChangedSinceRead:
    return FileChangedSinceRead(
        f"{path} changed after it was read (another process or the user wrote it); "
        "nothing was changed, read it again and redo the change.",
        {"path": str(path), "suggested_action": "re-read_file"},
    )


def atomic_write(
    path: Path,
    data: bytes,
    *,
    expected: Expected = UNCHECKED,
    follow_links: bool = False,
    mode: int | None = None,
) -> None:
    """Replace ``path``'s content with ``data`` atomically.

    ``expected`` (a digest, or ``None`` for "absent") is compared with the file right before
    the replace; hold :func:`locked` around read → compare → write to make that atomic across
    processes. ``mode`` forces the file's permission bits (else an old file's are kept).
    """
    absolute, dirs, name = _split(path, follow_links)
    tmp = f".{name}{TEMP_MARKER}{secrets.token_hex(4)}"
    try:
        with _walk(absolute, dirs) as dir_fd:
            old = _lstat_at(name, dir_fd)
            if old is not None and stat.S_ISLNK(old.st_mode):
                raise _symlink_refused(absolute, str(absolute))
            if old is not None and not stat.S_ISREG(old.st_mode):
                raise _not_regular(absolute, old.st_mode)
            _check_expected(absolute, name, dir_fd, expected)
            try:
                _write_temp(dir_fd, tmp, data, old, mode)
                os.rename(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp, dir_fd=dir_fd)
                raise
            # Some filesystems refuse to fsync a directory; the rename has happened anyway.
            with contextlib.suppress(OSError):
                os.fsync(dir_fd)
    except OSError as exc:
        raise _os_error(exc, "write", path) from exc


def _write_temp(
    dir_fd: int, tmp: str, data: bytes, old: os.stat_result | None, mode: int | None
) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(tmp, flags, 0o600, dir_fd=dir_fd)
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        # Owner before mode, both after the data: chown and write clear set-id bits.
        if old is not None and (old.st_uid != os.geteuid() or old.st_gid != os.getegid()):
            # Only root may give a file away; others keep the file as theirs.
            with contextlib.suppress(PermissionError):
                os.fchown(fd, old.st_uid, old.st_gid)
        if mode is not None:
            os.fchmod(fd, mode)
        elif old is not None:
            os.fchmod(fd, stat.S_IMODE(old.st_mode))
        else:
            os.fchmod(fd, 0o666 & ~_UMASK)
        os.fsync(fd)
    finally:
        os.close(fd)


def create_parents(path: Path) -> None:
    """Create the directories above ``path``, never through a symlink."""
    absolute, dirs, _ = _split(path, False)
    try:
        with _walk(absolute, dirs, create=True):
            pass
    except OSError as exc:
        raise IoError.from_os_error(exc, "create the directory for", str(path)) from exc


def delete_file(path: Path, *, expected: Expected = UNCHECKED) -> None:
    """Remove a file (a symlink itself, never its target), fsyncing the directory.

    ``expected`` as for :func:`atomic_write`; an absent file counts as already deleted.
    """
    absolute, dirs, name = _split(path, False)
    try:
        with _walk(absolute, dirs) as dir_fd:
            old = _lstat_at(name, dir_fd)
            if old is not None and stat.S_ISDIR(old.st_mode):
                raise _not_regular(absolute, old.st_mode)
            if old is not None and stat.S_ISLNK(old.st_mode):
                # A link's target is not what was read; only an unchecked delete removes it.
                if not isinstance(expected, _Unchecked):
                    raise _symlink_refused(absolute, str(absolute))
            else:
                _check_expected(absolute, name, dir_fd, expected)
            if old is None:
                return
            os.unlink(name, dir_fd=dir_fd)
            with contextlib.suppress(OSError):
                os.fsync(dir_fd)
    except FileNotFoundError:
        if not isinstance(expected, _Unchecked) and expected is not None:
            raise _changed(absolute) from None
    except OSError as exc:
        raise _os_error(exc, "delete", path) from exc


# -- advisory locks across processes --------------------------------------------------------


@dataclass
class _Held:
    """One process's hold on a directory lock; threads of the process queue on ``mutex``."""

    mutex: threading.RLock = field(default_factory=threading.RLock)
    fd: int = -1
    depth: int = 0


_held: dict[tuple[int, int], _Held] = {}
_held_guard = threading.Lock()


@contextlib.contextmanager
def locked(*paths: Path, timeout: float = DEFAULT_LOCK_TIMEOUT) -> Iterator[None]:
    """Hold an exclusive advisory lock on each path's directory (``flock``), in a fixed order.

    Every Waymark process writing a file takes this lock around re-read → compare →
    replace, so two processes never both act on the same old content. Reentrant within a
    process; threads of one process wait for each other. Parents must exist (see
    :func:`create_parents`); the lock never follows a symlink. Raises ``io_error`` (EAGAIN)
    after ``timeout`` seconds.
    """
    opened: list[tuple[tuple[int, int], int]] = []
    try:
        for path in paths:
            absolute, dirs, _ = _split(path, False)
            with _walk(absolute, dirs) as dir_fd:
                fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=dir_fd)
            st = os.fstat(fd)
            opened.append(((st.st_dev, st.st_ino), fd))
    except OSError as exc:
        for _, fd in opened:
            os.close(fd)
        raise _os_error(exc, "lock", paths[len(opened)]) from exc
    except BaseException:
        for _, fd in opened:
            os.close(fd)
        raise
    unique: dict[tuple[int, int], int] = {}
    for key, fd in opened:
        if key in unique:
            os.close(fd)
        else:
            unique[key] = fd
    deadline = time.monotonic() + timeout
    acquired: list[tuple[int, int]] = []
    try:
        for key in sorted(unique):
            _acquire(key, unique.pop(key), deadline, paths)
            acquired.append(key)
        yield
    finally:
        for fd in unique.values():
            os.close(fd)
        for key in reversed(acquired):
            _release(key)


def _acquire(key: tuple[int, int], fd: int, deadline: float, paths: tuple[Path, ...]) -> None:
    with _held_guard:
        held = _held.setdefault(key, _Held())
    if not held.mutex.acquire(timeout=max(0.0, deadline - time.monotonic())):
        os.close(fd)
        raise _busy(paths)
    if held.depth:
        os.close(fd)
        held.depth += 1
        return
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise _busy(paths) from None
                time.sleep(0.002)
    except BaseException:
        os.close(fd)
        held.mutex.release()
        raise
    held.fd = fd
    held.depth = 1


def _release(key: tuple[int, int]) -> None:
    held = _held[key]
    held.depth -= 1
    if held.depth == 0:
        # Closing the descriptor drops the flock.
        os.close(held.fd)
        held.fd = -1
    held.mutex.release()


def _busy(paths: tuple[Path, ...]) -> IoError:
    shown = ", ".join(str(p) for p in paths)
    return IoError(
        f"Another process kept {shown} locked for too long; nothing was changed, retry.",
        {"errno": "EAGAIN", "path": str(paths[0]) if paths else ""},
    )


def fsync_directory(directory: Path) -> None:
    # Some filesystems refuse to open or fsync a directory; the rename has happened anyway.
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


_SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "__pycache__", ".hg", ".svn"})


def sweep_temp_files(
    root: Path, *, recursive: bool = True, max_entries: int = 200_000
) -> list[Path]:
    """Delete temp files a crashed write left in ``root`` (and below); return them.

    Bounded by ``max_entries`` directory entries so a huge tree cannot stall start-up.
    """
    removed: list[Path] = []
    seen = 0
    stack = [root]
    while stack and seen < max_entries:
        directory = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if entry.is_dir(follow_symlinks=False):
                if recursive and entry.name not in _SKIP_DIRS:
                    stack.append(Path(entry.path))
            elif TEMP_MARKER in entry.name and entry.name.startswith("."):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
                    removed.append(Path(entry.path))
    return removed

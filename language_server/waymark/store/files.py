"""Reading, atomically writing and deleting files without following symlinks.

Every operation reaches its path through :mod:`waymark.store.walk` (no symlink is ever
followed; only regular files are read or replaced). Callers pass real paths (the workspace
resolves them); ``follow_links=True`` resolves a final symlink first, for readers that accept
one.

A write never leaves a half-written target: the new bytes go to a temp file in the same
directory, take the old file's mode (and owner, when we may), and replace the target with
``rename``. The temp file, then the directory, are fsynced by :mod:`waymark.store.flush`
soon after the write returns (before, with ``WAYMARK_DURABILITY=sync``), so the rename
survives a power cut too. A killed process leaves at most a temp file named
``.NAME.waymark-tmp-XXXX``, swept on the next start.

``expected=`` makes :func:`atomic_write` and :func:`delete_file` compare the content right
before they change it (``file_changed_since_read`` otherwise); held under
:func:`waymark.store.locks.locked`, an edit either lands or fails across processes.

Staleness is judged by content: :func:`digest` hashes the bytes; ``stat`` is only a fast path
for "certainly unchanged", never proof of "unchanged" by mtime alone.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import xxhash

from waymark.engine.errors import FileChangedSinceRead, FileNotFound, IoError
from waymark.store import flush, spare
from waymark.store.real_path import Reached
from waymark.store.walk import (
    SKIP_DIRS,
    Walks,
    lstat_at,
    not_regular,
    os_error,
    read_at,
    read_lstated,
    split_path,
    split_text,
    symlink_refused,
    walk,
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


def read_bytes(path: Path, *, follow_links: bool = False, limit: int | None = None) -> bytes:
    """Read a regular file, mapping OS errors to the contract's codes."""
    state = read_state(path, follow_links=follow_links, limit=limit)
    if state.data is None:
        raise FileNotFound(f"{path} does not exist", {"path": str(path)}, next_step="create")
    return state.data


def read_state(
    path: Path,
    *,
    follow_links: bool = False,
    limit: int | None = None,
    walks: Walks | None = None,
) -> FileState:
    """Read a file that may be absent (also when a directory on the way is); others raise.

    With ``follow_links`` a final symlink is resolved first (the caller polices the target);
    without it a symlink anywhere on the path is refused. A file over ``limit`` bytes raises
    ``file_too_large`` before any of it is read: every reader of workspace files passes the
    workspace's ``max_file_size``. ``walks``: the operation's directories already reached
    (:class:`~waymark.store.walk.Walks`), for a caller reading many files.
    """
    found = read_found(path, follow_links=follow_links, limit=limit, walks=walks)
    if found is None:
        return FileState(path, None, None, None)
    data, st = found
    return FileState(path, data, digest(data), StatKey.of(st))


def read_found(
    path: Path | str,
    *,
    follow_links: bool = False,
    limit: int | None = None,
    walks: Walks | None = None,
    reached: Reached | None = None,
) -> tuple[bytes, os.stat_result] | None:
    """:func:`read_state`'s bytes with the ``fstat`` of the file read, taken before its bytes
    were (``None``: absent): a caller remembering the file's stat needs no stat of its own,
    and one naming files by string builds no ``Path``. ``reached``: the file's directory and
    lstat as resolving ``path`` (a real path) just found them, read there."""
    if reached is not None:
        # A real path resolved and reached: absolute and normalised, what split_text names.
        try:
            return read_lstated(path, reached.name, reached.dir_fd, reached.lstat, limit)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise os_error(exc, "read", Path(path)) from exc
    absolute, dirs, name = split_text(path, follow_links)
    try:
        if walks is not None:
            return read_at(absolute, name, walks.directory(absolute, dirs), limit)
        with walk(absolute, dirs) as dir_fd:
            return read_at(absolute, name, dir_fd, limit)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise os_error(exc, "read", Path(path)) from exc


def _check_expected(path: Path | str, name: str, dir_fd: int, expected: Expected) -> None:
    if isinstance(expected, _Unchecked):
        return
    found = read_at(path, name, dir_fd)
    now = None if found is None else digest(found[0])
    if now != expected:
        raise _changed(path)


def _changed(path: Path | str) -> FileChangedSinceRead:
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
    absolute, dirs, name = split_path(path, follow_links)
    try:
        with walk(absolute, dirs) as dir_fd:
            old = lstat_at(name, dir_fd)
            if old is not None and stat.S_ISLNK(old.st_mode):
                raise symlink_refused(absolute, str(absolute))
            if old is not None and not stat.S_ISREG(old.st_mode):
                raise not_regular(absolute, old.st_mode)
            _check_expected(absolute, name, dir_fd, expected)
            _replace_at(dir_fd, name, data, old, mode)
            flush.hand_directory(dir_fd)
    except OSError as exc:
        raise os_error(exc, "write", path) from exc


def _temp_name(name: str) -> str:
    return f".{name}{TEMP_MARKER}{_next_suffix() & 0xFFFFFFFF:08x}"


def _suffixes() -> Callable[[], int]:
    """Temp names' 32-bit suffixes: from a random start per process (anew in a forked
    child), counted on, so no two of a process's names meet; one ``getrandom`` per process,
    not per write."""
    return itertools.count(int.from_bytes(os.urandom(4), "big")).__next__


def _reseed() -> None:
    global _next_suffix
    _next_suffix = _suffixes()


_next_suffix = _suffixes()
os.register_at_fork(after_in_child=_reseed)


def _replace_at(
    dir_fd: int, name: str, data: bytes, old: os.stat_result | None, mode: int | None
) -> None:
    """``data`` into a temp file beside ``name``, renamed over it; no temp file outlives a
    failure."""
    tmp = _temp_name(name)
    try:
        _write_temp(dir_fd, tmp, data, old, mode)
        os.rename(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dir_fd)
        raise


def _write_temp(
    dir_fd: int, tmp: str, data: bytes, old: os.stat_result | None, mode: int | None
) -> None:
    fd = spare.take(dir_fd)
    if fd is not None:
        try:
            _fill_temp(fd, data, old, mode)
            linked = spare.link(fd, tmp, dir_fd)
        except BaseException:
            os.close(fd)
            raise
        if linked:
            flush.hand(fd)
            return
        os.close(fd)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(tmp, flags, 0o600, dir_fd=dir_fd)
    try:
        _fill_temp(fd, data, old, mode)
    except BaseException:
        os.close(fd)
        raise
    # Fsynced before the rename when writes are synchronous, soon after it otherwise.
    flush.hand(fd)


def _fill_temp(fd: int, data: bytes, old: os.stat_result | None, mode: int | None) -> None:
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


def create_parents(path: Path, *, below: Path | None = None) -> list[Path]:
    """Create the directories above ``path``, never through a symlink; return those made.

    With ``below``, only directories under it are made: ``below`` itself must exist.
    """
    absolute, dirs, _ = split_path(path, False)
    created: list[Path] = []
    keep = 0 if below is None else len(Path(os.path.abspath(below)).parts) - 1
    try:
        with walk(absolute, dirs, create=True, create_from=keep, created=created):
            pass
    except OSError as exc:
        raise IoError.from_os_error(exc, "create the directory for", str(path)) from exc
    return created


def delete_file(path: Path, *, expected: Expected = UNCHECKED) -> None:
    """Remove a file (a symlink itself, never its target); the directory is fsynced behind.

    ``expected`` as for :func:`atomic_write`; an absent file counts as already deleted.
    """
    absolute, dirs, name = split_path(path, False)
    try:
        with walk(absolute, dirs) as dir_fd:
            old = lstat_at(name, dir_fd)
            if old is not None and stat.S_ISDIR(old.st_mode):
                raise not_regular(absolute, old.st_mode)
            if old is not None and stat.S_ISLNK(old.st_mode):
                # A link's target is not what was read; only an unchecked delete removes it.
                if not isinstance(expected, _Unchecked):
                    raise symlink_refused(absolute, str(absolute))
            else:
                _check_expected(absolute, name, dir_fd, expected)
            if old is None:
                return
            os.unlink(name, dir_fd=dir_fd)
            flush.hand_directory(dir_fd)
    except FileNotFoundError:
        if not isinstance(expected, _Unchecked) and expected is not None:
            raise _changed(absolute) from None
    except OSError as exc:
        raise os_error(exc, "delete", path) from exc


def fsync_directory(directory: Path) -> None:
    """Have the directory fsynced (see :mod:`waymark.store.flush`)."""
    # Some filesystems refuse to open or fsync a directory; the rename has happened anyway.
    with contextlib.suppress(OSError):
        flush.hand(os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC))


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
                if recursive and entry.name not in SKIP_DIRS:
                    stack.append(Path(entry.path))
            elif TEMP_MARKER in entry.name and entry.name.startswith("."):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
                    removed.append(Path(entry.path))
    return removed

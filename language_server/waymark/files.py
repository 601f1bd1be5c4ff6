"""Reading and atomically writing files.

A write never leaves a half-written target: the new bytes go to a temp file in the same
directory, are fsynced, take the old file's mode (and owner, when we may), and replace the
target with ``os.replace``; then the directory is fsynced so the rename survives a crash. A
crash leaves at most a temp file named ``.NAME.waymark-tmp-XXXX``, swept on the next start.

A symlink is followed: its target is rewritten and the link stays a link.

Staleness is judged by content: :func:`digest` hashes the bytes; ``stat`` is only a fast path
for "certainly unchanged", never proof of "unchanged" by mtime alone.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path

import xxhash

from .errors import FileNotFound, IoError, IsDirectory

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


def read_bytes(path: Path) -> bytes:
    """Read a regular file, mapping OS errors to the contract's codes."""
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError as exc:
        raise FileNotFound(
            f"{path} does not exist; check the path, or create it with waymark.write.",
            {"path": str(path)},
        ) from exc
    except IsADirectoryError as exc:
        raise IsDirectory(f"{path} is a directory; pass a file path.", {"path": str(path)}) from exc
    except OSError as exc:
        raise IoError.from_os_error(exc, "read", str(path)) from exc


def read_state(path: Path) -> FileState:
    """Read a file that may be absent; other errors raise."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return FileState(path, None, None, None)
    except OSError as exc:
        raise IoError.from_os_error(exc, "stat", str(path)) from exc
    if stat.S_ISDIR(st.st_mode):
        raise IsDirectory(f"{path} is a directory; pass a file path.", {"path": str(path)})
    data = read_bytes(path)
    return FileState(path, data, digest(data), StatKey.of(st))


def atomic_write(path: Path, data: bytes) -> None:
    """Replace ``path``'s content with ``data`` atomically (following a symlink)."""
    target = Path(os.path.realpath(path))
    directory = target.parent
    tmp = directory / f".{target.name}{TEMP_MARKER}{secrets.token_hex(4)}"
    try:
        try:
            old = os.stat(target)
        except FileNotFoundError:
            old = None
        if old is not None and stat.S_ISDIR(old.st_mode):
            raise IsDirectory(f"{path} is a directory; pass a file path.", {"path": str(path)})
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            # Owner before mode, both after the data: chown and write clear set-id bits.
            if old is not None:
                if old.st_uid != os.geteuid() or old.st_gid != os.getegid():
                    # Only root may give a file away; others keep the file as theirs.
                    with contextlib.suppress(PermissionError):
                        os.fchown(fd, old.st_uid, old.st_gid)
                os.fchmod(fd, stat.S_IMODE(old.st_mode))
            else:
                os.fchmod(fd, 0o666 & ~_UMASK)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise IoError.from_os_error(exc, "write", str(path)) from exc
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_directory(directory)


def create_parents(path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise IoError.from_os_error(exc, "create the directory for", str(path)) from exc


def delete_file(path: Path) -> None:
    """Remove a file (a symlink itself, not its target), fsyncing the directory."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        return
    except IsADirectoryError as exc:
        raise IsDirectory(f"{path} is a directory; pass a file path.", {"path": str(path)}) from exc
    except OSError as exc:
        raise IoError.from_os_error(exc, "delete", str(path)) from exc
    fsync_directory(path.parent)


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

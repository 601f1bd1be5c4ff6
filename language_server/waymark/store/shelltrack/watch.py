"""Which paths a shell command touched, from Linux inotify, in a process that outlives it.

A command's Pre scans the whole folder (it must: a person may have changed anything since
the last command). Its Post need not, when a resident process (the hook server) has watched
every directory of the folder from before the scan until after the command: the folder
changed only where the kernel reported an event, and Post looks only there. That is how
``git status`` itself trusts a file-system monitor (``core.fsmonitor``).

Whenever the record may be incomplete, :meth:`Watches.touched` answers None and Post scans
the whole folder as without a watch: the kernel's queue overflowed, the watch limit was
reached, a watched directory was moved (the path a watch stands for is then stale), the
folder itself moved or vanished, or another command began in between. Not seen by inotify
at all, so not by this either: writes through a shared memory mapping, writes through a
hard link from outside the watched directories, and changes made by another machine to a
network file system.
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct
from pathlib import Path
from typing import NamedTuple, Protocol

_IN_MODIFY = 0x2
_IN_ATTRIB = 0x4
_IN_CLOSE_WRITE = 0x8
_IN_MOVED_FROM = 0x40
_IN_MOVED_TO = 0x80
_IN_CREATE = 0x100
_IN_DELETE = 0x200
_IN_DELETE_SELF = 0x400
_IN_MOVE_SELF = 0x800
_IN_UNMOUNT = 0x2000
_IN_Q_OVERFLOW = 0x4000
_IN_IGNORED = 0x8000
_IN_ONLYDIR = 0x1000000
_IN_DONT_FOLLOW = 0x2000000
_IN_EXCL_UNLINK = 0x4000000
_IN_ISDIR = 0x40000000
_IN_NONBLOCK = os.O_NONBLOCK
_IN_CLOEXEC = os.O_CLOEXEC

_MASK = (
    _IN_MODIFY
    | _IN_ATTRIB
    | _IN_CLOSE_WRITE
    | _IN_MOVED_FROM
    | _IN_MOVED_TO
    | _IN_CREATE
    | _IN_DELETE
    | _IN_DELETE_SELF
    | _IN_MOVE_SELF
    | _IN_ONLYDIR
    | _IN_DONT_FOLLOW
    | _IN_EXCL_UNLINK
)
_EVENT = struct.Struct("iIII")
# Directories watched per folder at most: past it the folder is scanned as without a watch.
MAX_DIRECTORIES = 50_000
# A command that touched more paths than this is looked at by a whole scan (and git's
# command line stays short).
MAX_TOUCHED = 2_000


class Policy(Protocol):
    """Which directories a folder's scans skip, so its watches may skip them too."""

    def excluded(self, relative: str) -> bool:
        """Never watched, never scanned (``.git``; protected paths outside git)."""

    def held_back(self, relative: str) -> bool:
        """Skipped unless :meth:`released` says the scan looks inside after all."""

    def released(self, held: list[str]) -> list[str]:
        """Of the held-back directories, those the scan looks inside (git shows them)."""


class Touched(NamedTuple):
    """Paths (relative to the folder) events named since a token, and those of them that
    were directories (made, removed or moved: everything under them is touched too)."""

    paths: set[str]
    directories: set[str]


class _Inotify:
    """The three system calls, through the C library."""

    def __init__(self) -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        self._init = libc.inotify_init1
        self._add = libc.inotify_add_watch
        self._add.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]

    def open(self) -> int:
        fd = int(self._init(_IN_NONBLOCK | _IN_CLOEXEC))
        if fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        return fd

    def add(self, fd: int, path: bytes) -> int:
        wd = int(self._add(fd, path, _MASK))
        if wd < 0:
            raise OSError(ctypes.get_errno(), "inotify_add_watch")
        return wd


class _Folder:
    """One folder's watches: a directory tree, and the paths touched since it was armed."""

    def __init__(self, inotify: _Inotify, root: Path, policy: Policy) -> None:
        self.inotify = inotify
        self.root = root
        self.policy = policy
        # Bumped whenever the record breaks; a token of an earlier epoch is refused.
        self.epoch = 0
        self._open()

    def _open(self) -> None:
        self.fd = self.inotify.open()
        self.paths: dict[int, str] = {}
        # (path, whether it is a directory) in the order the kernel reported them.
        self.touched: list[tuple[str, bool]] = []
        self.broken = False
        try:
            held = self._watch_tree("")
            for relative in self.policy.released(held):
                self._watch_tree(relative, release=True)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        os.close(self.fd)

    def _watch_tree(self, top: str, *, release: bool = False) -> list[str]:
        """Watch ``top`` and the directories under it; the held-back ones found, unwatched."""
        held: list[str] = []
        stack = [top]
        while stack:
            relative = stack.pop()
            if self.policy.excluded(relative):
                continue
            if self.policy.held_back(relative) and not (release and relative == top):
                held.append(relative)
                continue
            if len(self.paths) >= MAX_DIRECTORIES:
                raise OSError(errno.ENOSPC, "too many directories to watch")
            path = os.path.join(self.root, relative) if relative else os.fspath(self.root)
            try:
                wd = self.inotify.add(self.fd, os.fsencode(path))
            except OSError as exc:
                if exc.errno in (errno.ENOENT, errno.ENOTDIR):
                    continue  # gone again already: its parent's event names it
                raise
            self.paths[wd] = relative
            try:
                with os.scandir(path) as entries:
                    for entry in entries:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(f"{relative}/{entry.name}" if relative else entry.name)
            except OSError as exc:
                if exc.errno not in (errno.ENOENT, errno.ENOTDIR):
                    raise
        return held

    def drain(self) -> None:
        """Read every queued event into ``touched``; a gap in the record breaks it."""
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return
            offset = 0
            while offset < len(data):
                wd, mask, _cookie, size = _EVENT.unpack_from(data, offset)
                name = data[offset + _EVENT.size : offset + _EVENT.size + size].rstrip(b"\0")
                offset += _EVENT.size + size
                self._event(wd, mask, os.fsdecode(name))

    def _event(self, wd: int, mask: int, name: str) -> None:
        if mask & (_IN_Q_OVERFLOW | _IN_UNMOUNT):
            self.broken = True
            return
        if mask & _IN_IGNORED:
            self.paths.pop(wd, None)
            return
        directory = self.paths.get(wd)
        if directory is None:
            return
        if mask & _IN_MOVE_SELF or (mask & _IN_DELETE_SELF and directory == ""):
            # Its watches now stand for another path, or the folder itself is gone.
            self.broken = True
            return
        if mask & _IN_DELETE_SELF:
            return  # its parent's event names it
        relative = f"{directory}/{name}" if directory else name
        self.touched.append((relative, bool(mask & _IN_ISDIR)))
        if mask & _IN_ISDIR and mask & (_IN_CREATE | _IN_MOVED_TO):
            try:
                if self._watch_tree(relative):
                    # Whether a scan looks inside is git's call: settled at the next arm.
                    self.broken = True
            except OSError:
                self.broken = True

    def arm(self) -> tuple[int, int]:
        """A token for "from now on"; the folder is watched afresh first if its record broke."""
        self.drain()
        if self.broken:
            self.close()
            self.epoch += 1
            self._open()
        if len(self.touched) > 100_000:
            # Commands begun before now have waited long; their Post scans the folder.
            self.touched.clear()
            self.epoch += 1
        return self.epoch, len(self.touched)

    def since(self, token: tuple[int, int]) -> Touched | None:
        self.drain()
        epoch, start = token
        if self.broken or epoch != self.epoch or start > len(self.touched):
            return None
        events = self.touched[start:]
        paths = {path for path, _ in events}
        if len(paths) > MAX_TOUCHED:
            return None
        return Touched(paths, {path for path, is_dir in events if is_dir})


class Watches:
    """The folders a resident process watches, each armed by a command's Pre."""

    def __init__(self) -> None:
        self._inotify = _Inotify()
        self._folders: dict[str, _Folder] = {}
        self.instance = os.urandom(8).hex()

    def arm(self, root: Path, policy: Policy) -> list[object] | None:
        """Start (or keep) watching ``root``; a token for :meth:`touched`, or None."""
        key = os.fspath(root)
        try:
            folder = self._folders.get(key)
            if folder is not None and folder.policy != policy:
                self.forget(key)  # the folder became a git work tree, or stopped being one
                folder = None
            if folder is None:
                folder = self._folders[key] = _Folder(self._inotify, root, policy)
            epoch, start = folder.arm()
        except OSError:
            self.forget(key)
            return None
        return [self.instance, key, epoch, start]

    def touched(self, token: object) -> Touched | None:
        """Paths (relative to the folder) touched since ``token`` was given, or None: the
        record may be incomplete (or belongs to another process) and the folder is scanned."""
        if not isinstance(token, list) or len(token) != 4 or token[0] != self.instance:
            return None
        folder = self._folders.get(str(token[1]))
        if folder is None:
            return None
        try:
            return folder.since((int(token[2]), int(token[3])))
        except OSError:
            self.forget(str(token[1]))
            return None

    def forget(self, key: str) -> None:
        folder = self._folders.pop(key, None)
        if folder is not None:
            folder.close()


_ACTIVE: Watches | None = None


def enable() -> None:
    """Watch folders from now on (a process that outlives its commands: the hook server)."""
    global _ACTIVE
    if _ACTIVE is None:
        try:
            _ACTIVE = Watches()
        except (OSError, AttributeError):
            _ACTIVE = None  # no inotify here: every Post scans


def active() -> Watches | None:
    return _ACTIVE

"""Which paths a shell command touched, from Linux inotify, in a process that outlives it.

A command's Post need not scan the whole folder when a resident process (the hook server)
has watched every directory of it from before the Pre's scan until after the command: the
folder changed only where the kernel reported an event, and Post looks only there. That is
how ``git status`` itself trusts a file-system monitor (``core.fsmonitor``). The next
command's Pre in a git work tree does the same from the last Pre's scan (:mod:`.rescan`).

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
import itertools
import os
import select
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
# Watches this process may hold at most, of the user's limit: editors and build tools watch
# too, and must not run out because of it.
MAX_WATCHES = 16_384
# Folders watched at once; the one armed longest ago is dropped for a new one.
MAX_FOLDERS = 8
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
    """One inotify instance (the user has 128 of them in all), through the C library."""

    def __init__(self) -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        self._add = libc.inotify_add_watch
        self._add.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        self._rm = libc.inotify_rm_watch
        self._rm.argtypes = [ctypes.c_int, ctypes.c_int]
        fd = int(libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC))
        if fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        self.fd = fd

    def add(self, path: bytes) -> int:
        wd = int(self._add(self.fd, path, _MASK))
        if wd < 0:
            raise OSError(ctypes.get_errno(), "inotify_add_watch")
        return wd

    def remove(self, wd: int) -> None:
        self._rm(self.fd, wd)  # a watch the kernel already dropped answers EINVAL: fine

    def read(self) -> list[tuple[int, int, str]]:
        """Every queued event: (watch, mask, name)."""
        events: list[tuple[int, int, str]] = []
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return events
            offset = 0
            while offset < len(data):
                wd, mask, _cookie, size = _EVENT.unpack_from(data, offset)
                name = data[offset + _EVENT.size : offset + _EVENT.size + size].rstrip(b"\0")
                offset += _EVENT.size + size
                events.append((wd, mask, os.fsdecode(name)))


class _Folder:
    """One folder's watches: a directory tree, and the paths touched since it was armed."""

    def __init__(self, watches: Watches, root: Path, policy: Policy) -> None:
        self.watches = watches
        self.root = root
        self.policy = policy
        self.paths: dict[int, str] = {}
        # (path, whether it is a directory) in the order the kernel reported them.
        self.touched: list[tuple[str, bool]] = []
        # Bumped whenever the record breaks; a token of an earlier epoch is refused.
        self.epoch = 0
        self.broken = True  # watched on the first arm

    def _open(self) -> None:
        self.paths = {}
        self.touched = []
        self.broken = False
        held = self._watch_tree("")
        for relative in self.policy.released(held):
            self._watch_tree(relative, release=True)

    def close(self) -> None:
        for wd in self.paths:
            self.watches.release(wd)
        self.paths = {}

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
            path = os.path.join(self.root, relative) if relative else os.fspath(self.root)
            try:
                wd = self.watches.claim(self, os.fsencode(path))
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

    def event(self, wd: int, mask: int, name: str) -> None:
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
        if self.broken:
            self.close()
            self.epoch = next(self.watches.epochs)
            self._open()
        if len(self.touched) > 100_000:
            # Commands begun before now have waited long; their Post scans the folder.
            self.touched.clear()
            self.epoch = next(self.watches.epochs)
        return self.epoch, len(self.touched)

    def since(self, token: tuple[int, int]) -> Touched | None:
        epoch, start = token
        if self.broken or epoch != self.epoch or start > len(self.touched):
            return None
        events = self.touched[start:]
        paths = {path for path, _ in events}
        if len(paths) > MAX_TOUCHED:
            return None
        return Touched(paths, {path for path, is_dir in events if is_dir})


class Watches:
    """The folders a resident process watches, each armed by a command's Pre, on one inotify
    instance and within :data:`MAX_WATCHES` (or a quarter of the user's limit, if lower)."""

    def __init__(self) -> None:
        self._inotify = _Inotify()
        self._folders: dict[str, _Folder] = {}
        self._owners: dict[int, _Folder] = {}
        # Epochs are never reused, even by a folder dropped and watched again: a token of
        # its first record must not read the second's.
        self.epochs = itertools.count(1)
        self.instance = os.urandom(8).hex()
        self.limit = MAX_WATCHES
        try:
            with open("/proc/sys/fs/inotify/max_user_watches") as handle:
                self.limit = min(MAX_WATCHES, int(handle.read()) // 4)
        except (OSError, ValueError):
            pass

    def claim(self, folder: _Folder, path: bytes) -> int:
        """A watch of ``path`` for ``folder``; OSError if it is over the budget or another
        folder's (overlapping folders are scanned, not watched)."""
        if len(self._owners) >= self.limit:
            raise OSError(errno.ENOSPC, "the watch budget is spent")
        wd = self._inotify.add(path)
        owner = self._owners.setdefault(wd, folder)
        if owner is not folder:
            raise OSError(errno.EEXIST, "watched for another folder")
        return wd

    def release(self, wd: int) -> None:
        if self._owners.pop(wd, None) is not None:
            self._inotify.remove(wd)

    def _drain(self) -> None:
        for wd, mask, name in self._inotify.read():
            if mask & (_IN_Q_OVERFLOW | _IN_UNMOUNT):
                for folder in self._folders.values():
                    folder.broken = True
                continue
            owner = self._owners.get(wd)
            if owner is not None:
                owner.event(wd, mask, name)
                if mask & _IN_IGNORED:
                    self._owners.pop(wd, None)

    def arm(self, root: Path, policy: Policy) -> list[object] | None:
        """Start (or keep) watching ``root``; a token for :meth:`touched`, or None."""
        key = os.fspath(root)
        try:
            self._drain()
            folder = self._folders.pop(key, None)
            if folder is not None and folder.policy != policy:
                folder.close()  # the folder became a git work tree, or stopped being one
                folder = None
            if folder is None:
                folder = _Folder(self, root, policy)
            self._folders[key] = folder  # the newest last
            while len(self._folders) > MAX_FOLDERS:
                self.forget(next(iter(self._folders)))
            epoch, start = folder.arm()
        except OSError:
            self.forget(key)
            return None
        return [self.instance, key, epoch, start]

    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for events; whether any came (they are taken in,
        as :meth:`touched` would). A process that reacts to changes as they come (the
        language server) waits here; the hook server only asks :meth:`touched`."""
        ready, _, _ = select.select([self._inotify.fd], [], [], timeout)
        if not ready:
            return False
        self._drain()
        return True

    def touched(self, token: object) -> Touched | None:
        """Paths (relative to the folder) touched since ``token`` was given, or None: the
        record may be incomplete (or belongs to another process) and the folder is scanned."""
        if not isinstance(token, list) or len(token) != 4 or token[0] != self.instance:
            return None
        folder = self._folders.get(str(token[1]))
        if folder is None:
            return None
        try:
            self._drain()
        except OSError:
            return None
        return folder.since((int(token[2]), int(token[3])))

    def forget(self, key: str) -> None:
        folder = self._folders.pop(key, None)
        if folder is not None:
            folder.close()

    def close(self) -> None:
        for key in list(self._folders):
            self.forget(key)
        os.close(self._inotify.fd)


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

"""Temp files made ahead: a resident process's next write into a directory finds the inode
of its temp file already made.

Creating the temp file can be the dearest step of an atomic write: ext4 without a journal
skips, one by one, every inode of the group freed in the last minute (six, while its inode
table block is dirty) before it picks one (``recently_deleted`` in fs/ext4/ialloc.c), and
every replaced file frees one. Where files are replaced often the create took 0.1-0.9 ms,
several times the rest of an edit (bench/results.md, h44lsp and h45lsp3).

A resident door calls :func:`enable`, and :func:`wake` whenever a reply has left. Each write
into a directory then asks for an unnamed file there (``O_TMPFILE``), which a thread makes
once woken, for the next write; the next write takes it, fills it, gives it the temp name
(:func:`link`, through ``/proc/self/fd``, opened once) and renames it over the target exactly
as a file created by name. Until it is linked the file has no name: nothing can open it, a
killed process leaves nothing behind (the kernel frees it), and a file system that cannot make
one (or link it) just costs the write the create it always made. A one-shot process (a hook,
a CLI verb) never enables it: its one write would pay for a thread and a file it never uses.
"""

from __future__ import annotations

import contextlib
import os
import threading

# Directories a spare is kept for: a turn writes into a few at a time.
MAX_SPARES = 8

_TMPFILE = getattr(os, "O_TMPFILE", 0)

# A spare is taken only by a write into the directory it was made in, as it was then: its
# owner, group and mode decide the new file's group and default ACL, as they do a create's.
Key = tuple[int, int, int, int, int]


def _key(st: os.stat_result) -> Key:
    return (st.st_dev, st.st_ino, st.st_uid, st.st_gid, st.st_mode)


class Spares:
    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._enabled = False
        self._cond = threading.Condition()
        self._ready: dict[Key, int] = {}
        # Directories asked for, not made yet: the descriptor of each (a duplicate).
        self._wanted: dict[Key, int] = {}
        self._refused: set[int] = set()  # devices that cannot make or link one
        self._thread: threading.Thread | None = None
        # This process's /proc/PID/fd (``self`` resolved once): a link names a spare in it
        # by its number alone, not by a path through /proc walked anew per write. A forked
        # child holds its parent's, closed with the rest.
        self._fds = -1

    def enable(self) -> None:
        if self._fds < 0 and _TMPFILE:
            with contextlib.suppress(OSError):
                self._fds = os.open("/proc/self/fd", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        self._enabled = self._fds >= 0

    def take(self, dir_fd: int) -> int | None:
        """The unnamed file made for the directory ``dir_fd`` (the caller owns it now), or
        ``None``; either way the next one is asked for, made once :func:`wake` is called."""
        if not self._enabled:
            return None
        key = _key(os.fstat(dir_fd))
        if key[0] in self._refused:
            return None
        with self._cond:
            fd = self._ready.pop(key, None)
            if key not in self._wanted:
                self._wanted[key] = os.dup(dir_fd)
        return fd

    def wake(self) -> None:
        """Make the files asked for. The door calls it once its reply has left: the thread
        then runs while the process waits for the next request, not in the middle of one
        (where it would take the interpreter's lock between the write's system calls)."""
        if not self._wanted:
            return
        with self._cond:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="waymark-spare", daemon=True)
                self._thread.start()
            self._cond.notify()

    def link(self, fd: int, name: str, dir_fd: int) -> bool:
        """Give the unnamed file ``fd`` the name ``name`` in ``dir_fd``; ``False`` when this
        file system cannot (the caller then creates the file by name). A name already there
        raises ``FileExistsError``, as a create's ``O_EXCL`` does."""
        try:
            os.link(str(fd), name, src_dir_fd=self._fds, dst_dir_fd=dir_fd, follow_symlinks=True)
        except FileExistsError:
            raise
        except OSError:
            self._refused.add(os.fstat(dir_fd).st_dev)
            return False
        return True

    def _run(self) -> None:
        # The create is the kernel's work, on this thread; where the cores are all busy it
        # should yield to the requests that follow the reply (bench/results.md, h45lsp3: the
        # next request lost 40-130% at the same niceness, ~20% at ten more). The thread holds
        # the interpreter's lock only for a few lines around the create.
        tid = threading.get_native_id()
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + 10))
        while True:
            with self._cond:
                while not self._wanted:
                    self._cond.wait()
                key = next(iter(self._wanted))
                dir_fd = self._wanted.pop(key)
                made = key in self._ready or key[0] in self._refused
            if not made:
                self._make(key, dir_fd)
            with contextlib.suppress(OSError):
                os.close(dir_fd)

    def _make(self, key: Key, dir_fd: int) -> None:
        try:
            fd = os.open(".", _TMPFILE | os.O_WRONLY | os.O_CLOEXEC, 0o600, dir_fd=dir_fd)
        except OSError:
            self._refused.add(key[0])
            return
        old = None
        with self._cond:  # only this thread adds: the key is not there
            self._ready[key] = fd
            if len(self._ready) > MAX_SPARES:
                old = self._ready.pop(next(iter(self._ready)))
        if old is not None:
            os.close(old)

    def _forked(self) -> None:
        """A forked child holds copies of the parent's spares, and no thread: it starts
        over, disabled (a child is no resident door)."""
        for fd in [*self._ready.values(), *self._wanted.values(), self._fds]:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._reset()


SPARES = Spares()
enable = SPARES.enable
take = SPARES.take
link = SPARES.link
wake = SPARES.wake
os.register_at_fork(after_in_child=SPARES._forked)

"""A path's real path, found the cheap way when no component of it is a symlink, and what
finding it reached on the way (the file's directory, open, and its name's lstat), which a
read of the file right after uses instead of walking there again
(:meth:`~waymark.store.workspace.Workspace.resolve_reached`).
"""

from __future__ import annotations

import os
import stat
from typing import NamedTuple

from waymark.store.walk import dir_at_once


class Reached(NamedTuple):
    """A file's directory, opened in one call that followed no symlink, and the ``lstat`` of
    the file's name there (``None``: absent), as a path's resolution found them: a read right
    after reads there (:func:`~waymark.store.walk.read_lstated`) instead of walking to it
    again. The one who reached it closes ``dir_fd``."""

    dir_fd: int
    name: str
    lstat: os.stat_result | None


def real_path(path: str) -> str:
    """``os.path.realpath(path)`` of an absolute, normalised ``path``, in two calls when no
    component of it is a symlink (the common case).

    realpath lstats every component. Its directories are opened in one call that follows no
    symlink (``openat2``, as :class:`~waymark.store.walk.Walks` opens them), and the last name is
    lstat'ed there: when that open succeeds and the name is no symlink (or absent), no
    component is one, and realpath's answer is ``path`` itself. Any other answer (a symlink
    on the way, a missing directory, no ``openat2``, a relative path, a leading ``//``
    realpath folds) is realpath's own.
    """
    real, reached = reach(path)
    if reached is not None:
        os.close(reached.dir_fd)
    return real


def reach(path: str) -> tuple[str, Reached | None]:
    """:func:`real_path`, and when its two calls answered, what they reached: the directory
    (still open, the caller closes it) and the last name's lstat, which are those a read of
    the real path would reach first (:func:`~waymark.store.walk.read_lstated`)."""
    head, _, name = path.rpartition("/")
    plain = path.startswith("/") and not path.startswith("//")
    fd = dir_at_once(head or "/") if plain else None
    if fd is None:
        return os.path.realpath(path), None
    try:
        st = os.stat(name, dir_fd=fd, follow_symlinks=False) if name else None
    except FileNotFoundError:
        st = None
    except OSError:
        os.close(fd)
        return os.path.realpath(path), None
    except BaseException:
        os.close(fd)
        raise
    if name and (st is None or not stat.S_ISLNK(st.st_mode)):
        return path, Reached(fd, name, st)
    os.close(fd)
    # "/" names no file to read there.
    return (path if st is None else os.path.realpath(path)), None

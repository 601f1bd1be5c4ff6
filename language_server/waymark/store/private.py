"""What Waymark keeps for itself — history, session files, hook-call records, the shell cache,
the editor bridge's registry — is its owner's alone: 0700 directories and 0600 files, set
explicitly so that no umask (not even ``000``) can widen them."""

from __future__ import annotations

import os
from pathlib import Path

DIR_MODE = 0o700
FILE_MODE = 0o600


def make_private_dir(path: Path) -> None:
    """Create ``path`` (and missing parents) as 0700 directories; existing ones keep their mode.

    ``Path.mkdir(parents=True)`` would give the parents the umask's mode instead, and mkdir's
    own mode is cut by the umask: the mode is set after, whatever the umask.
    """
    try:
        path.mkdir(mode=DIR_MODE)
    except FileExistsError:
        return
    except FileNotFoundError:
        make_private_dir(path.parent)
        try:
            path.mkdir(mode=DIR_MODE)
        except FileExistsError:
            return
    os.chmod(path, DIR_MODE)


def open_private(path: Path, flags: int) -> int:
    """``os.open`` creating a 0600 file whatever the umask (the umask only cuts the mode)."""
    fd = os.open(path, flags | os.O_CREAT | os.O_CLOEXEC, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)
    except BaseException:
        os.close(fd)
        raise
    return fd

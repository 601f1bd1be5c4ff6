"""A file init writes for one person (a host's uncommitted settings) kept out of git.

It goes to the repository's own ``info/exclude``, which is never committed, so neither the
project's ``.gitignore`` nor the user's global ignore file changes. Outside a repository, or
without git, there is nothing to do.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

GIT_TIMEOUT = 10.0


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None


def keep_out_of_git(root: Path, path: Path) -> str | None:
    """List ``path`` in the exclude file of the repository holding ``root`` unless git already
    ignores or tracks it; the one sentence to show when that could not be done."""
    where = _git(root, "rev-parse", "--show-toplevel", "--git-path", "info/exclude")
    if where is None or where.returncode != 0:
        return None
    top, exclude = where.stdout.splitlines()[:2]
    relative = os.path.relpath(os.path.realpath(path), os.path.realpath(top))
    ignored = _git(root, "check-ignore", "-q", "--", str(path))
    tracked = _git(root, "ls-files", "--error-unmatch", "--", str(path))
    if ignored is None or ignored.returncode == 0 or (tracked and tracked.returncode == 0):
        return None
    # Anchored at the top, with the characters a pattern would read as wildcards escaped.
    pattern = "/" + re.sub(r"([\\*?\[])", r"\\\1", Path(relative).as_posix())
    exclude_file = root / exclude
    try:
        exclude_file.parent.mkdir(parents=True, exist_ok=True)
        with open(exclude_file, "a+b") as f:
            f.seek(0)
            text = f.read()
            f.write((b"\n" if text and not text.endswith(b"\n") else b"") + os.fsencode(pattern))
            f.write(b"\n")
    except OSError as exc:
        return (
            f"{path} could not be listed in {exclude_file} ({exc.strerror}); add {pattern} "
            "there so git leaves it out."
        )
    return None

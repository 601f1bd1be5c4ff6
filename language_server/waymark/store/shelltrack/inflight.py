"""Shell commands other processes are tracking right now (a hook's Pre ran, its Post not yet).

Their changes are theirs to record: a watch that sees those writes first waits for the Post,
which notes them in the journal, so they are never recorded twice.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

# A Pre older than this is a call whose Post never came (denied, the host killed): not waited for.
MAX_COMMAND_S = 600.0


def others_in_flight(shell_dir: Path, own_prefix: str) -> bool:
    """Whether a command not named ``own_prefix…`` began tracking in ``shell_dir`` lately."""
    cutoff = time.time() - MAX_COMMAND_S
    try:
        with os.scandir(shell_dir / "pending") as entries:
            for entry in entries:
                if not entry.name.endswith(".state") or entry.name.startswith(own_prefix):
                    continue
                try:
                    if entry.stat(follow_symlinks=False).st_mtime >= cutoff:
                        return True
                except OSError:
                    continue
    except OSError:
        return False
    return False

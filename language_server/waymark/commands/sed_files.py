"""The files a ``sed -i`` script reads (``r``, ``R``) and writes (``w``, ``W``, ``s///w``).

Both go through the workspace's path policy like the operands: a name outside the workspace
folders or protected declines the line, so nothing is read from outside into a workspace file
behind the agent's back (the real sed then runs under the host's own permission rules). A
``w`` file is a written file like any other: part of the proposal, created or truncated as
GNU does when it compiles the script, atomic, and rewound with the rest.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from waymark.commands.changes import Loaded, load_path
from waymark.commands.context import CommandContext
from waymark.engine.sed.decline import SedDecline
from waymark.engine.text import sniff_encoding

if TYPE_CHECKING:
    # The compiled script's module loads the regex machinery: not at every door's start-up.
    from waymark.engine.sed.script import SedScript


def literal(path: str) -> str:
    """``path`` as the workspace reads it: a leading ``~`` is a name (no shell expands it)."""
    return "./" + path if path.startswith("~") else path


def _kind(loaded: Loaded, what: str) -> None:
    """Decline a name that is there but is not a regular file (a FIFO, a device)."""
    try:
        mode = os.stat(loaded.resolved.real).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise SedDecline(f"{what} cannot be checked ({exc.strerror}).") from exc
    if not stat.S_ISREG(mode):
        raise SedDecline(f"{what} is not a regular file, which is not simulated.")


def load_reads(ctx: CommandContext, script: SedScript, base: Path | None) -> dict[str, Loaded]:
    """Each ``r``/``R`` name, loaded (absent: GNU reads it as empty, silently)."""
    reads: dict[str, Loaded] = {}
    for name in script.reads:
        loaded = load_path(ctx, literal(name), must_exist=False, base=base)
        _kind(loaded, f"the r file {name}")
        reads[name] = loaded
    return reads


def load_writes(ctx: CommandContext, script: SedScript, base: Path | None) -> dict[str, Loaded]:
    """Each ``w`` name, loaded as a change target; SedDecline where GNU fails to open it."""
    writes: dict[str, Loaded] = {}
    for name in script.writes:
        loaded = load_path(ctx, literal(name), must_exist=False, base=base)
        if not os.path.isdir(os.path.dirname(loaded.resolved.lexical)):
            raise SedDecline(
                f"the w file {name}: its directory does not exist, so GNU sed fails to open "
                "it; create the directory first."
            )
        _kind(loaded, f"the w file {name}")
        if loaded.data is not None:
            encoding, _ = sniff_encoding(loaded.data)
            if encoding != "utf-8":
                raise SedDecline(
                    f"the w file {name} is {encoding}; Waymark does not replace it with sed's "
                    "UTF-8 output."
                )
        writes[name] = loaded
    return writes


def check_overlaps(reads: dict[str, Loaded], writes: dict[str, Loaded], edited: set[Path]) -> None:
    """Decline names that reach a file twice: GNU would open two streams on it, or read a
    file while sed rewrites it, which depends on buffering and timing."""
    written: dict[Path, str] = {}
    for name, loaded in writes.items():
        real = loaded.resolved.real
        if real in edited:
            raise SedDecline(
                f"the w file {name} is also a file the line edits or backs up, which is not "
                "simulated."
            )
        if real in written:
            raise SedDecline(
                f"the w files {written[real]} and {name} are the same file, which GNU sed "
                "opens twice; that is not simulated."
            )
        written[real] = name
    for name, loaded in reads.items():
        if loaded.resolved.real in edited or loaded.resolved.real in written:
            raise SedDecline(
                f"the file {name} that the script reads is also written by the line; GNU sed "
                "reads it while it changes, which is not simulated."
            )

"""Changes by other programs while a resident door watches the workspace (the language server).

The watch brackets every burst of changes the way a hook brackets a shell command: the
shell tracker's scan and pre-image cache before (:func:`begin`), its diff after
(:func:`finish`), which this module records as a turn of its own, labelled by what is known.
Files the editor announced before saving them (``textDocument/willSaveWaitUntil``, which it
awaits) carry the bytes read then: exact pre-images even where the cache had none.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from waymark.commands.context import CommandContext
from waymark.engine.errors import WaymarkError
from waymark.store.files import digest, read_state
from waymark.store.history.foreign import recorded
from waymark.store.history.snapshots import WATCHED, Snapshot
from waymark.store.shelltrack import track
from waymark.store.shelltrack.inflight import others_in_flight

# Every bracket of the watch is named so; the shell tracker's state of other commands is not.
PREFIX = "lsp-watch-"
SAVED = "Saved in the editor"
# A burst is taken into the newest turn when that is of the same kind (saves, or other
# programs' changes), no turn came after it, and it began at most this long before.
JOIN_S = 300.0


# The watch's copies are background work: after the first second they go on while no one
# (an edit, a hook in another process) waits for the history's lock, up to this long.
UNHURRIED_S = 30.0


def bracket_name() -> str:
    return f"{PREFIX}{os.getpid()}-{os.urandom(6).hex()}"


def begin(ctx: CommandContext, name: str) -> int:
    """Scan the workspace and back up what has no other copy, as of now; how many files
    are still to be copied (a later bracket copies them)."""
    if ctx.history is None:
        return 0
    skipped = track.begin(ctx.history, name, unhurried_seconds=UNHURRIED_S).skipped
    return sum(1 for why in skipped.values() if why == "not_backed_up_yet")


def commands_in_flight(ctx: CommandContext) -> bool:
    """Whether a hooked shell command is running: its Post records what it changes."""
    return ctx.history is not None and others_in_flight(ctx.history.dir / "shell", PREFIX)


def label(first: float, last: float, *, saved: bool) -> str:
    if saved:
        return SAVED
    start, end = (time.strftime("%H:%M", time.localtime(t)) for t in (first, last))
    return f"Changes by other programs {start}" + (f"–{end}" if end != start else "")


def started(snap: Snapshot) -> float | None:
    """When the first burst of other programs' turn ``snap`` began (its name says)."""
    stamp = snap.prompt_id.removeprefix(WATCHED).split("-", 1)[0]
    return int(stamp) / 1000 if stamp.isdigit() else None


def joining(first: float, last: float, *, saved: bool) -> Callable[[Snapshot], str | None]:
    """Whether a burst (``first``..``last``) may be taken into other programs' newest turn,
    as the label that turn then has (None: a turn of its own)."""

    def joins(newest: Snapshot) -> str | None:
        since = started(newest)
        if since is None or first - since > JOIN_S or (newest.label == SAVED) != saved:
            return None
        return label(since, last, saved=saved)

    return joins


def finish(
    ctx: CommandContext,
    name: str,
    first: float,
    last: float,
    announced: Mapping[str, tuple[bytes | None, bool]],
) -> list[str]:
    """Record what changed since :func:`begin` of ``name`` as a turn (none if only Waymark
    wrote); the workspace-relative paths recorded.

    ``announced``: files the editor said it would save, with their bytes read then and
    whether the editor waited for that read (``willSaveWaitUntil``): only then are they
    surely from before the save.
    """
    history = ctx.history
    if history is None:
        return []
    shown: list[str] = []

    def record(
        changes: dict[str, tuple[bytes | None, str | None]], unreached: dict[str, str]
    ) -> list[str]:
        for key, (before, exact) in announced.items():
            # The bracket's own pre-image is the file as the burst found it; the editor's
            # bytes stand in where the scan had none (not copied yet, ignored by git).
            if key in changes or not exact:
                continue
            try:
                after = read_state(Path(key), limit=ctx.workspace.max_file_size).digest
            except WaymarkError:
                continue
            unreached.pop(key, None)
            if after != (digest(before) if before is not None else None):
                changes[key] = (before, after)
        theirs = [k for k, (_, after) in changes.items() if not recorded(history.model, k, after)]
        if not theirs and not unreached:
            return []
        saved = bool(theirs) and not unreached and all(k in announced for k in theirs)
        prompt_id = f"{WATCHED}{int(first * 1000)}-{os.urandom(3).hex()}"
        files, warnings = history.track_foreign(
            prompt_id,
            label(first, last, saved=saved),
            changes,
            unreached,
            joining(first, last, saved=saved),
        )
        shown.extend(history.display(k) for k in files)
        return warnings

    track.finish(history, name, record=record)
    return shown

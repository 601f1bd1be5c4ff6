"""The language server's watch: what other programs change in the workspace, as turns.

One thread keeps the shell tracker's inotify watch (:mod:`waymark.store.shelltrack.watch`,
within its watch budget) on the workspace and groups the events into bursts: a burst ends
after :data:`QUIET_S` without an event, or once it has run :data:`LONGEST_S` (a generator
writing thousands of files is a few turns, not thousands). Each burst is recorded through
:mod:`waymark.commands.watching`; Waymark's own writes come out there. The first scan (and
the copies of files git cannot give back) runs on this thread, so start-up never waits
for it; copies a scan had no time for are made while the workspace is quiet.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path

from waymark.commands import watching
from waymark.commands.context import CommandContext
from waymark.engine.errors import WaymarkError
from waymark.store.files import read_state
from waymark.store.shelltrack import watch

log = logging.getLogger("waymark")

QUIET_S = 1.0
LONGEST_S = 60.0
# Within a burst, events are taken in at most this often: every wake-up of this thread takes
# the interpreter from the requests being answered (an agent's edits make events too).
GATHER_S = 0.1
# Logged once the first scan is done (clients and tests wait for it).
READY = "watching the workspace for changes by other programs"
# While files are still to be copied, a quiet workspace gets a bracket this often (each
# copies for a second, longer while no other writer waits for the history's lock).
TOP_UP_S = 0.1
# Logged once every file git cannot give back has its copy.
FILLED = "every file of the workspace has its pre-image"


class Watcher:
    """Other programs' changes to ``ctx``'s workspace, recorded into its history."""

    def __init__(self, ctx: CommandContext) -> None:
        self.ctx = ctx
        self._stop = threading.Event()
        self._lock = threading.Lock()
        # Files the editor is about to save: their bytes (None: absent) just before.
        self._announced: dict[str, tuple[bytes | None, bool]] = {}
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="waymark-watch", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def announce(self, path: Path, *, exact: bool) -> None:
        """The editor will save ``path`` now: keep what it holds until the save is recorded;
        ``exact``: the editor waits for this (else the save may have come first)."""
        try:
            key = os.fspath(self.ctx.workspace.resolve(os.fspath(path)).real)
            data = read_state(Path(key), limit=self.ctx.workspace.max_file_size).data
        except WaymarkError:
            return  # outside the workspace, protected, too large: the scan says so
        with self._lock:
            if exact or key not in self._announced:
                self._announced[key] = (data, exact)

    def _run(self) -> None:
        watch.enable()
        watches = watch.active()
        if watches is None:
            log.warning("no inotify here: changes by other programs are not recorded")
            return
        name = watching.bracket_name()
        try:
            behind = watching.begin(self.ctx, name)
        except Exception:
            log.exception("the workspace watch could not start")
            return
        log.info("%s", READY)
        if not behind:
            log.info("%s", FILLED)
        first = last = 0.0
        while not self._stop.is_set():
            if not watches.wait(TOP_UP_S if behind else 0.5):
                if behind:
                    name, behind = self._flush(name, time.time(), time.time())
                    if not behind:
                        log.info("%s", FILLED)
                continue
            first = last = time.time()
            while not self._stop.is_set() and last - first < LONGEST_S:
                if watches.wait(QUIET_S):
                    last = time.time()
                    self._stop.wait(GATHER_S)
                elif not watching.commands_in_flight(self.ctx):
                    break
            name, behind = self._flush(name, first, last)
        self._flush(name, first or time.time(), last or time.time(), again=False)

    def _flush(
        self, name: str, first: float, last: float, *, again: bool = True
    ) -> tuple[str, int]:
        """Record the burst since ``name`` began; the next bracket (begun first, so nothing
        falls between two) and how many files it had no time to copy."""
        with self._lock:
            announced, self._announced = self._announced, {}
        following, behind = name, 0
        try:
            if again:
                fresh = watching.bracket_name()
                behind = watching.begin(self.ctx, fresh)
                following = fresh
            recorded = watching.finish(self.ctx, name, first, last, announced)
        except Exception:
            log.exception("changes by other programs could not be recorded")
            return following, behind
        if recorded:
            log.info("recorded changes by other programs: %s", ", ".join(recorded[:10]))
        return following, behind

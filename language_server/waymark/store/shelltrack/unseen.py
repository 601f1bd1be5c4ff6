"""Files that existed before a command although its first scan did not list them.

A file the scan before the command did not list, in no index then, is new, unless the scan
could not see it: git ignored it (then a change of ``.gitignore``, ``info/exclude``, the
excludes file or a ``git add -f`` shows it afterwards), or it lies past a walk's file limit
or under a directory the scan could not open. Such a file is never "created": a rewind
would delete it. Its bytes before the command are unknown, so it is out of reach if the
command changed it, and nothing is recorded if it did not (its status changed, not its
bytes): a file whose inode was last changed before the scan began was not changed since
(its ctime, which no command can set back; the scan stats no ignored file, so a tree of
build outputs costs it nothing).
"""

from __future__ import annotations

import sys
import time

from waymark.store.shelltrack.scan import FolderScan, Signature

# CLOCK_REALTIME_COARSE (Linux's number): the clock a change's ctime is stamped with. The
# precise clock runs up to a tick ahead of it, so a file changed just after a reading of
# that one could look older than the reading.
_CLOCK = 5 if sys.platform == "linux" else time.CLOCK_REALTIME


def clock() -> int:
    """Now, on the clock a file's ctime is stamped with (ns)."""
    return time.clock_gettime_ns(_CLOCK)


class Unseen:
    """Where ``before`` could not see, and whether a file there changed since ``started``
    (:func:`clock` when the scan began; 0: unknown, every such file may have changed)."""

    def __init__(self, before: FolderScan, started: int) -> None:
        self.before = before
        self.started = started
        self._ignored = set(before.ignored)

    def why(self, relative: str) -> str | None:
        """Why ``relative`` (unlisted by the scan) may have existed then, or None: it did not."""
        if self.before.cut_short:
            return "scan_cut_short"
        if relative in self._ignored:
            return "ignored"
        unscanned = self.before.unscanned
        for whole in (".", relative):
            if whole in unscanned:
                return unscanned[whole]
        end = relative.find("/")
        while end >= 0:
            directory = relative[:end]
            if directory + "/" in self._ignored:
                return "ignored"
            if directory in unscanned:
                return unscanned[directory]
            end = relative.find("/", end + 1)
        return None

    def unchanged(self, now: Signature | None) -> bool:
        """Whether a file that existed before, with stat ``now``, is as it was then (a change
        in the tick the scan began in counts as one)."""
        return now is not None and now[5] < self.started

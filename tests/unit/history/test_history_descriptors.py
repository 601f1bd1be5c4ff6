"""A History dropped without close() releases every descriptor it held.

A process may open a workspace's history more than once (the test suite does so thousands
of times in one process): descriptors left behind pile up until ``select()`` refuses them
(past 1,024) and ``open`` fails with EMFILE.
"""

from __future__ import annotations

import gc
import os
from pathlib import Path

from helpers_history import Agent, open_history


def _held_under(root: Path) -> list[str]:
    held = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue  # the listing's own descriptor, closed by now
        if target.startswith(str(root)):
            held.append(target)
    return held


def test_a_history_dropped_unclosed_holds_no_descriptor(
    workspace: Path, history_root: Path
) -> None:
    agent = Agent(open_history(history_root, workspace), workspace)
    agent.write("a.txt", b"one\n")
    agent.write("a.txt", b"two\n")
    agent.history.make_snapshot("p1")
    agent.write("a.txt", b"three\n")
    assert _held_under(history_root), "the history holds its lock, journal and pack open"

    del agent
    gc.collect()

    assert _held_under(history_root) == []

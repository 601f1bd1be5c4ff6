"""Where Waymark keeps its state (histories, hook records, the hook server's pid).

A leaf on purpose: the hook relay runs on every tool call of an agent and asks this before
anything else is imported (no pathlib, no dataclasses).
"""

from __future__ import annotations

import os

# The variables state_dir reads besides HOME: a door started with a cleaned environment must
# be handed them to find the history the others use.
STATE_ENV = ("XDG_STATE_HOME",)


def state_dir() -> str:
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return os.path.join(state, "waymark")

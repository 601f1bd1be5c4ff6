"""A door's imports without the cyclic garbage collector.

Importing the MCP SDK (pydantic models), pygls, lsprotocol and the command spec allocates
hundreds of thousands of objects, and the collector runs full passes over them as they
accumulate: about a third of ``waymark mcp``'s start-up CPU and a quarter of ``waymark-ls``'s.
Module-level objects live as long as the process, so nothing is lost by not collecting them:
the collector is paused while a door imports, then what the imports made is frozen (moved
where later passes never scan it) and the collector is on again for the door's own work.

A leaf with no imports but ``gc``: the hook path imports it first.
"""

from __future__ import annotations

import gc


def pause() -> bool:
    """Pause the collector; whether it was on (pass it to :func:`resume`)."""
    enabled = gc.isenabled()
    gc.disable()
    return enabled


def resume(enabled: bool) -> None:
    """Freeze what was made since :func:`pause` and turn the collector back on if it was."""
    gc.freeze()
    if enabled:
        gc.enable()

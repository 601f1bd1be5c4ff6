"""The doors: LSP server, MCP server, CLI, host hooks, editor bridge, ``waymark run``.

Each door adapts one protocol to :func:`waymark.commands.registry.execute` and opens its
workspace through :func:`waymark.doors.entry.open_door`; none re-implements a command.
"""

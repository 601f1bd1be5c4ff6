"""The editor bridge: a terminal agent's calls approved in the editor that runs Waymark.

A running ``waymark-ls`` advertises itself per workspace (:mod:`.registry`) and listens on a
private Unix socket (:mod:`.listener`); ``waymark mcp`` and the CLI find it and send their
calls there (:mod:`.client`), so the editor's approval applies. See docs/editor-bridge.md.
"""

"""The pure engine: text, anchors, edits, sed, diff. No I/O, no LSP, no MCP."""

"""The LSP door: ``waymark-ls`` (pygls) and the demo session that drives it."""

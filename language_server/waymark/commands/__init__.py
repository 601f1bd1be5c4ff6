"""Command handlers shared by the LSP server and the CLI (one module per command family)."""

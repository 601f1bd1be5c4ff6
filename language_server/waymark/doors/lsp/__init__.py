"""The LSP door: ``waymark-ls`` (pygls) and the demo session that drives it."""

from __future__ import annotations

from waymark.doors import quiet_start


def main(argv: list[str] | None = None) -> None:
    """``waymark-ls``: the server's imports (pygls, lsprotocol, the command spec) run with the
    collector paused (:mod:`waymark.doors.quiet_start`), then the server."""
    collecting = quiet_start.pause()
    from waymark.doors.lsp.server import main as serve

    quiet_start.resume(collecting)
    serve(argv)

"""``python -m waymark``: the CLI (``python -m waymark serve`` runs the server)."""

from .cli import main

main()

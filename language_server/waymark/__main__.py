"""``python -m waymark``: the CLI (``python -m waymark serve`` runs the server)."""

from waymark.doors.launch import main

main()

"""The one error the sed engine raises: the line (or the input) is outside what it can prove."""

from __future__ import annotations


class SedDecline(Exception):
    """The command is not simulated; ``reason`` says which construct and why, in one sentence."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason

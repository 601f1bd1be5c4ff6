"""The one error the sed engine raises: the line (or the input) is outside what it can prove."""

from __future__ import annotations


class SedDecline(Exception):
    """The command is not simulated; ``reason`` says which construct and why, in one sentence.

    ``needs_shell``: the result is not determined by the line and the files at all (a shell
    variable's value, a command substitution, the ``e`` command or flag running a program), so
    no simulation could give it; every other decline is a construct not simulated yet."""

    def __init__(self, reason: str, *, needs_shell: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.needs_shell = needs_shell

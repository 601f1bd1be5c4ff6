"""What a history operation refuses, as data: the command layer words it for the wire."""

from __future__ import annotations


class HistoryError(Exception):
    """A history operation refused; the attributes say why."""


class UnknownTurn(HistoryError):
    """No live turn has ``prompt_id``; ``known`` lists the live ones, oldest first.

    ``deleted``: the turn was in a history deleted under this process (its backups are gone).
    """

    def __init__(self, prompt_id: str, known: list[str], *, deleted: bool = False) -> None:
        super().__init__(prompt_id)
        self.prompt_id = prompt_id
        self.known = known
        self.deleted = deleted


class RewindRunning(HistoryError):
    """Another rewind of this history is running in this process."""

    def __init__(self, prompt_id: str) -> None:
        super().__init__(prompt_id)
        self.prompt_id = prompt_id


class UnknownOption(HistoryError):
    """``option`` is none of ``options``."""

    def __init__(self, option: str, options: tuple[str, ...]) -> None:
        super().__init__(option)
        self.option = option
        self.options = options


class PlanMismatch(HistoryError):
    """A rewind to ``asked`` was handed a plan made for ``planned``."""

    def __init__(self, planned: str, asked: str) -> None:
        super().__init__(planned, asked)
        self.planned = planned
        self.asked = asked


class LimitTooLow(HistoryError):
    """A limit of :meth:`History.open` (``name``, its keyword) is not an integer >= ``low``."""

    def __init__(self, name: str, value: object, low: int) -> None:
        super().__init__(f"{name} must be an integer of at least {low}, not {value!r}")
        self.name = name
        self.value = value
        self.low = low


def log_warning(message: str, *args: object) -> None:
    """Log to ``waymark.history``; logging loads only when there is something to log (a
    hook call, which usually has nothing, does not pay its import: issue 33)."""
    import logging

    logging.getLogger("waymark.history").warning(message, *args)

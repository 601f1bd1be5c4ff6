"""A page of a file's anchored lines as the compiled core's columns of it: its text and its
line dicts are each made in one call of the core, as a full read's are, so a page costs in
proportion to its lines (a page of every line no more than the full read).

Its :class:`~waymark.engine.anchors.AnchoredLine` objects are made only when it is iterated
or indexed; :func:`~waymark.engine.anchors.render` and
:func:`~waymark.engine.anchors.as_json` read the columns.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import cached_property
from typing import Any, overload

from waymark.engine import core
from waymark.engine.anchors import HIGH, LOW, MEDIUM, AnchoredLine, Shown
from waymark.engine.gc_pause import gc_paused
from waymark.engine.line_index import P6_SHIFT, hash_lines


class ShownPage(Shown):
    """Lines numbered from ``start`` + 1, with the display tokens of those that do not show
    their own 6-char prefix and the qualities that are not high (both by the line's place in
    the page)."""

    def __init__(
        self,
        native: core.Core,
        lines: Sequence[str],
        start: int,
        tokens: dict[int, str],
        odd: dict[int, str],
    ) -> None:
        self.lines = lines
        self._native = native
        self._start = start
        self._tokens = tokens
        self._odd = odd

    @cached_property
    def _rows(self) -> list[AnchoredLine]:
        shown = [f"{h >> P6_SHIFT:06x}" for h in hash_lines(self.lines)]
        for k, token in self._tokens.items():
            shown[k] = token
        odd, first = self._odd, self._start + 1
        return [
            AnchoredLine(first + k, line, shown[k], odd.get(k, HIGH))
            for k, line in enumerate(self.lines)
        ]

    def __len__(self) -> int:
        return len(self.lines)

    def __iter__(self) -> Iterator[AnchoredLine]:
        return iter(self._rows)

    @overload
    def __getitem__(self, i: int) -> AnchoredLine: ...
    @overload
    def __getitem__(self, i: slice) -> list[AnchoredLine]: ...
    def __getitem__(self, i: int | slice) -> AnchoredLine | list[AnchoredLine]:
        return self._rows[i]

    def render(self) -> str:
        tokens: list[str | None] = [None] * len(self.lines)
        for k, token in self._tokens.items():
            tokens[k] = token
        low = bytearray(len(self.lines))
        for k, quality in self._odd.items():
            if quality == LOW:
                low[k] = 1
        return self._native.render(self.lines, tokens, bytes(low), self._start)

    def as_json(self) -> list[dict[str, Any]]:
        tokens, odd = self._tokens, self._odd
        with gc_paused():
            return self._native.json_rows(
                self.lines,
                None,
                tokens.keys(),
                tokens.values(),
                odd.keys(),
                odd.values(),
                HIGH,
                self._start,
            )


def page_of(
    native: core.Core,
    lines: Sequence[str],
    start: int,
    columns: core.Columns,
    display: Callable[[int], str] | None = None,
) -> ShownPage | None:
    """The anchored lines of a page (``lines``, the first numbered ``start`` from 0) from the
    compiled core's columns of it; a token the core leaves to the ladder is ``display``'s,
    and None without it."""
    special, tokens, low, medium = columns
    shown: dict[int, str] = {}
    for i, token in zip(special, tokens, strict=True):
        if token is None:
            if display is None:
                return None
            token = display(i)
        shown[i - start] = token
    odd = dict.fromkeys([i - start for i in medium], MEDIUM)
    odd.update(dict.fromkeys([i - start for i in low], LOW))
    return ShownPage(native, lines, start, shown, odd)

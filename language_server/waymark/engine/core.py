"""Which core runs the whole-file loops of line anchors: the compiled one when it was built.

``waymark.engine._core`` (C, ``_core.c``) does in one pass what :mod:`~waymark.engine.text`
and :mod:`~waymark.engine.line_index` otherwise do by mapping C functions over columns: split
lines, hash them, count their prefixes, hash contexts, render the model text. It is built at
install when a C compiler and ``xxhash.h`` are there (setup.py, ``optional``); without it,
or with ``WAYMARK_PURE_PYTHON=1`` (read by the module itself: the engine reads no
environment), the pure-Python path runs. Both give the same bytes
(tests/unit/test_core_differential.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from importlib import import_module
from typing import Any, Literal, Protocol, cast

# annotate_columns' answer for a page: (special, tokens, low, medium).
Columns = tuple[list[int], list[str | None], list[int], list[int]]


class Core(Protocol):
    """What ``_core.c`` defines; each function is its pure twin's result, in one C pass."""

    PURE_REQUESTED: int

    def split_lines(self, text: str, /) -> tuple[list[str], list[str]]: ...
    def hash_lines(self, lines: Sequence[str], /) -> list[int]: ...
    def prefixes(
        self, hashes: list[int], shift: int, counts: Counter[int], /
    ) -> tuple[list[int], list[int], set[int]]: ...
    def low_by_text(self, lines: Sequence[str], /) -> list[int]: ...
    def context_hashes(self, lines: Sequence[str], wanted: list[int], /) -> list[str]: ...
    def render(
        self, lines: Sequence[str], tokens: list[str | None], low: bytes, first: int = ..., /
    ) -> str: ...
    def annotate_columns(
        self, lines: Sequence[str], start: int = ..., stop: int = ..., /
    ) -> Columns | None: ...
    def utf8_valid(self, data: bytes, /) -> bool: ...
    def page_columns(
        self, data: bytes, skip: int, start: int, stop: int, anchors: bool = ..., /
    ) -> tuple[list[str], int, int, Columns | None] | None: ...
    def span_find(
        self, data: bytes, skip: int, keys: list[tuple[int, int]], margin: int, /
    ) -> (
        tuple[int, list[list[int]], list[list[str]], list[list[int]], dict[int, int], object] | None
    ): ...
    def brackets(self, data: bytes, /) -> tuple[tuple[int, int], ...]: ...
    def splice(self, data: bytes, a: int, middle: bytes, b: int, /) -> bytes: ...
    def hex_tokens(self, prefixes: Sequence[int], /) -> list[str]: ...
    def json_rows(
        self,
        lines: Sequence[str],
        prefixes: Sequence[int] | None,
        special: Iterable[int],
        tokens: Iterable[str],
        odd_lines: Iterable[int],
        odd_qualities: Iterable[str],
        high: str,
        first: int = ...,
        /,
    ) -> list[dict[str, Any]]: ...
    def plain_rows(
        self, lines: Sequence[str], first: int, /
    ) -> tuple[list[dict[str, Any]], str]: ...
    def span_anchors(
        self,
        spans: object,
        old: bytes,
        new: bytes,
        skip: int,
        w0: int,
        w1: int,
        first: int,
        lines: list[int],
        /,
    ) -> tuple[int, Columns] | None: ...
    def stretch_edit(
        self,
        data: bytes,
        skip: int,
        starts: dict[int, int],
        count: int,
        spans: object,
        eol: str,
        start: int,
        end: int,
        content: tuple[str, ...],
        ops: int,
        /,
    ) -> (
        tuple[bytes, dict[str, int], list[dict[str, Any]], tuple[int, int], str, int, int]
        | Literal[False]
        | None
    ): ...
    def own_displays(
        self,
        indices: list[int],
        lines: Sequence[str],
        p6: list[int],
        p6_count: Counter[int],
        text_count: Counter[str],
        /,
    ) -> tuple[list[str], list[int], list[int]]: ...
    def context_keys_in(
        self, lines: Sequence[str], wanted: list[int], keys: list[int], /
    ) -> list[int]: ...
    def repeated_displays(
        self,
        out: list[str],
        indices: list[int],
        rep_at: list[int],
        ctx: dict[int, str],
        counts6: Counter[str],
        p6_count: Counter[int],
        /,
    ) -> list[int]: ...
    def append_after(
        self, text: bytes, separator: bytes, at_start: bool, written: bytes, /
    ) -> bytes: ...
    def around_lines(self, text: bytes, before: bytes, after: bytes, /) -> bytes: ...
    def replace_lines(
        self, text: bytes, separator: bytes, at_start: bool, written: bytes, /
    ) -> bytes: ...
    def replace_all(self, text: bytes, old: bytes, new: bytes, /) -> bytes: ...
    def replace_in_lines(
        self,
        text: bytes,
        separator: bytes,
        at_start: bool,
        replacements: list[tuple[bytes, bytes, int]],
        /,
    ) -> bytes: ...
    def twice_on_a_line(self, text: str | bytes, literal: bytes, /) -> bool: ...


def _load() -> Core | None:
    try:
        return cast(Core, import_module("waymark.engine._core"))
    except ImportError:
        return None


# The compiled module when it is importable, whether or not it is used.
BUILT = _load()
# The one the engine uses: None runs the pure-Python path.
native = None if BUILT is None or BUILT.PURE_REQUESTED else BUILT


@contextmanager
def using(module: Core | None) -> Iterator[None]:
    """Run the engine on ``module`` (None: pure Python) for a while: the differential tests
    and the bench compare both paths in one process."""
    global native
    before, native = native, module
    try:
        yield
    finally:
        native = before

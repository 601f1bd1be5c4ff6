"""``holds`` (a file's bytes compared as they are read, in chunks) answers
``read_found(path)[0] == expected`` and refuses what ``read_found`` refuses, alike."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from waymark.engine.errors import WaymarkError
from waymark.store.files import read_found
from waymark.store.holds import _CHUNK, holds
from waymark.store.walk import Walks

MIB = 1 << 20
BIG = bytes(range(256)) * (3 * MIB // 256) + b"tail\n"


def _outcome(call: Callable[[], object]) -> object:
    try:
        return call()
    except WaymarkError as exc:
        return (exc.code, str(exc), exc.details)


def _file(data: bytes) -> Callable[[Path], None]:
    return lambda path: path.write_bytes(data)


def _symlink(path: Path) -> None:
    (path.parent / "target").write_bytes(b"one\n")
    path.symlink_to("target")


SHAPES: dict[str, Callable[[Path], None]] = {
    "absent": lambda path: None,
    "small": _file(b"one\ntwo\n"),
    "empty": _file(b""),
    "one-chunk": _file(BIG[:_CHUNK]),
    "two-chunks": _file(BIG[: 2 * _CHUNK]),
    "one-mib": _file(BIG[:MIB]),
    "big": _file(BIG),
    "over-the-limit": _file(b"x" * 5000),
    "symlink": _symlink,
    "fifo": lambda path: os.mkfifo(path),
    "directory": lambda path: path.mkdir(),
}

EXPECTED: dict[str, bytes | None] = {
    "absent": None,
    "small": b"one\ntwo\n",
    "small-changed": b"one\nTWO\n",
    "small-shorter": b"one\n",
    "small-longer": b"one\ntwo\nthree\n",
    "empty": b"",
    "one-chunk": BIG[:_CHUNK],
    "one-chunk-plus-one": BIG[: _CHUNK + 1],
    "one-chunk-less-one": BIG[: _CHUNK - 1],
    "two-chunks": BIG[: 2 * _CHUNK],
    "one-mib": BIG[:MIB],
    "big": BIG,
    "big-first-byte": b"X" + BIG[1:],
    "big-last-byte": BIG[:-1] + b"X",
    "big-shorter": BIG[:-1],
}


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("expected", EXPECTED)
@pytest.mark.parametrize("through_walks", [False, True], ids=["walk", "walks"])
def test_holds_is_the_read_compared(
    tmp_path: Path, shape: str, expected: str, through_walks: bool
) -> None:
    path = tmp_path / "f"
    SHAPES[shape](path)
    limit = 4096 if shape == "over-the-limit" else None
    want = EXPECTED[expected]

    def read() -> object:
        found = read_found(path, limit=limit)
        return (None if found is None else found[0]) == want

    def compared() -> object:
        if not through_walks:
            return holds(path, want, limit=limit)
        with Walks() as walks:
            return holds(path, want, limit=limit, walks=walks)

    assert _outcome(compared) == _outcome(read)


def test_a_directory_on_the_way_that_is_a_symlink_is_refused_alike(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "f").write_bytes(b"one\n")
    (tmp_path / "link").symlink_to("real")
    path = tmp_path / "link" / "f"
    refused = _outcome(lambda: holds(path, b"one\n"))
    assert refused == _outcome(lambda: read_found(path))
    assert isinstance(refused, tuple) and refused[0] == "path_outside_workspace"

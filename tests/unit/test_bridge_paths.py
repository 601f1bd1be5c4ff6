"""The bridge reads back the file URIs its own previews carry, for any file name."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from waymark.doors.bridge.listener import _fs_path


@pytest.mark.parametrize(
    "name",
    ["plain.txt", "with space.txt", "café.txt", "100%.txt", os.fsdecode(b"latin1-\xe9.txt")],
)
def test_a_uri_of_ours_gives_back_the_path(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    assert _fs_path(path.as_uri()) == str(path)


@pytest.mark.parametrize("uri", ["untitled:Untitled-1", "https://example.invalid/a.txt"])
def test_a_uri_that_is_no_local_file_gives_none(uri: str) -> None:
    assert _fs_path(uri) is None

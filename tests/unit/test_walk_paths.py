"""The no-symlink walk names the directory it stopped at, and the ones it made, by their
absolute paths (what a refused command says and what a failed write removes)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from waymark.engine.errors import IoError, PathOutsideWorkspace
from waymark.store.walk import split_path, walk


def _walk(path: Path, **options: object) -> None:
    absolute, dirs, _ = split_path(path, False)
    with walk(absolute, dirs, **options):  # type: ignore[arg-type]
        pass


def test_a_symlinked_directory_on_the_way_is_named(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    os.symlink(tmp_path / "real", tmp_path / "link")
    with pytest.raises(PathOutsideWorkspace) as caught:
        _walk(tmp_path / "link" / "deeper" / "f.txt")
    assert caught.value.details["symlink"] == str(tmp_path / "link")
    assert str(caught.value).startswith(f"{tmp_path / 'link'} (on the way to ")


def test_a_file_on_the_way_is_named(tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("x")
    with pytest.raises(IoError) as caught:
        _walk(tmp_path / "plain" / "f.txt")
    assert str(caught.value).startswith(
        f"{tmp_path / 'plain'} (on the way to {tmp_path / 'plain' / 'f.txt'}) is not a directory"
    )


def test_the_directories_made_are_listed_in_order(tmp_path: Path) -> None:
    created: list[Path] = []
    start = len(tmp_path.parts) - 1  # the first component of tmp_path's parts is "/"
    _walk(tmp_path / "a" / "b" / "f.txt", create=True, create_from=start, created=created)
    assert created == [tmp_path / "a", tmp_path / "a" / "b"]
    assert (tmp_path / "a" / "b").is_dir()

"""The Post reads a few paths' blob ids from the index copy itself: the same answer as
``git ls-files -s`` for every index it reads, and git asked for every index it does not.

Each case builds a real index with git, then compares :func:`index_blobs` (the reader where
it answers) with the same call answered by git alone, path for path.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from waymark.store.shelltrack import indexfile
from waymark.store.shelltrack.indexfile import read_blobs
from waymark.store.shelltrack.scan import FolderScan, GitUnavailable, index_blobs

pytestmark = pytest.mark.timeout(120)

EMPTY_BLOB = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
LONG = "/".join(["long" * 60] * 20) + "/file"  # over the 4,095 bytes a name's length field holds
PATHS = [
    "a.txt",
    "d",
    "d/x",
    "d.txt",
    "d0",
    "missing",
    "run.sh",
    "link",
    "sp ace/é\nnew line",
    "conflict.txt",
    "sub",
    LONG,
    "long" * 60,
]


def git(root: Path, *args: str, stdin: bytes | None = None) -> str:
    done = subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
        cwd=root,
        input=stdin,
        capture_output=True,
        check=True,
        timeout=60,
    )
    return done.stdout.decode()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """Files, directories whose names sort around a directory's, a symlink, an executable,
    an odd name, a name longer than the length field, a gitlink and a three-stage conflict."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    for name in ("a.txt", "d/x", "d/y/z", "d.txt", "d0", "d-", "sp ace/é\nnew line"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(name.encode() + b"\n")
    (root / "run.sh").write_bytes(b"#!/bin/sh\n")
    (root / "run.sh").chmod(0o755)
    os.symlink("a.txt", root / "link")
    (root / "conflict.txt").write_bytes(b"base\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "one")
    blob = git(root, "hash-object", "-w", "--stdin", stdin=b"long\n").strip()
    head = git(root, "rev-parse", "HEAD").strip()
    git(root, "update-index", "--add", "--cacheinfo", f"100644,{blob},{LONG}")
    git(root, "update-index", "--add", "--cacheinfo", f"160000,{head},sub")
    (root / "sub").mkdir()  # a submodule not checked out (not one deleted)
    git(root, "commit", "-qm", "two")
    git(root, "checkout", "-qb", "other")
    (root / "conflict.txt").write_bytes(b"other\n")
    git(root, "commit", "-qam", "other")
    git(root, "checkout", "-q", "-")
    (root / "conflict.txt").write_bytes(b"main\n")
    git(root, "commit", "-qam", "main")
    subprocess.run(["git", "merge", "-q", "other"], cwd=root, capture_output=True, timeout=60)
    return root


def by_git(monkeypatch: pytest.MonkeyPatch, root: Path, paths: list[str]) -> object:
    with monkeypatch.context() as m:
        m.setattr(indexfile, "read_blobs", lambda index, paths: None)
        return answer(root, paths)


def answer(root: Path, paths: list[str]) -> object:
    try:
        return index_blobs(FolderScan(root, True, root), root / ".git" / "index", paths)
    except GitUnavailable:
        return "git refused"


def check(monkeypatch: pytest.MonkeyPatch, root: Path, paths: list[str], *, read: bool) -> None:
    assert (read_blobs(root / ".git" / "index", paths) is not None) is read
    assert answer(root, paths) == by_git(monkeypatch, root, paths)


def test_a_plain_index_is_read_and_answers_as_git(
    monkeypatch: pytest.MonkeyPatch, repo: Path
) -> None:
    listing = by_git(monkeypatch, repo, PATHS)
    assert isinstance(listing, dict)
    # The cases are there: a directory's files, a symlink, an executable, the long name.
    assert {"d/x", "d/y/z", "run.sh", "link", LONG} <= listing.keys()
    assert (listing["link"][0], listing["run.sh"][0]) == ("120000", "100755")
    assert "sub" not in listing and "conflict.txt" not in listing  # gitlink, stages 1-3
    assert "sub" in git(repo, "ls-files", "-s", "sub") and "conflict.txt" in git(repo, "diff")
    for paths in (PATHS, *([p] for p in PATHS), []):
        check(monkeypatch, repo, paths, read=True)


def test_a_path_inside_a_submodule_is_git_s_to_answer(
    monkeypatch: pytest.MonkeyPatch, repo: Path
) -> None:
    check(monkeypatch, repo, ["a.txt", "sub/file"], read=False)


@pytest.mark.parametrize("path", ["./a.txt", "d/", "/a.txt", "d//x", "d/../a.txt", ""])
def test_a_path_not_written_as_git_names_entries_is_git_s_to_read(
    monkeypatch: pytest.MonkeyPatch, repo: Path, path: str
) -> None:
    check(monkeypatch, repo, [path], read=False)


def _untracked_cache(root: Path) -> None:
    git(root, "update-index", "--untracked-cache")
    git(root, "status", "--porcelain")


def _intent_to_add(root: Path) -> None:
    (root / "new.txt").write_bytes(b"")
    git(root, "add", "-N", "new.txt")


def _sparse_index(root: Path) -> None:
    git(root, "merge", "--abort")
    git(root, "sparse-checkout", "set", "--cone", "--sparse-index", "d")


def _without_checksum(root: Path) -> None:
    """As git 2.40's ``index.skipHash`` writes it (which older git refuses to read)."""
    index = root / ".git" / "index"
    index.write_bytes(index.read_bytes()[:-20] + bytes(20))


def _tree_extension(root: Path) -> None:
    git(root, "merge", "--abort")
    git(root, "read-tree", "HEAD")  # a fresh index with its cache-tree (TREE) extension


Change = Callable[[Path], None]
READ: list[tuple[str, Change]] = [
    ("untracked cache (UNTR)", _untracked_cache),
    ("cache tree (TREE)", _tree_extension),
]
NOT_READ: list[tuple[str, Change]] = [
    ("version 4", lambda root: git(root, "update-index", "--index-version", "4")),
    ("split index", lambda root: git(root, "update-index", "--split-index")),
    ("skip-worktree", lambda root: git(root, "update-index", "--skip-worktree", "a.txt")),
    ("intent to add", _intent_to_add),
    ("sparse index", _sparse_index),
    ("no checksum", _without_checksum),
]


@pytest.mark.parametrize(("name", "change"), READ + NOT_READ, ids=[n for n, _ in READ + NOT_READ])
def test_every_other_format_is_git_s_to_read(
    monkeypatch: pytest.MonkeyPatch, repo: Path, name: str, change: Change
) -> None:
    change(repo)
    paths = [*PATHS, "new.txt"]
    check(monkeypatch, repo, paths, read=(name, change) in READ)
    if name == "intent to add":
        assert by_git(monkeypatch, repo, ["new.txt"]) == {"new.txt": ("100644", EMPTY_BLOB)}


def test_a_sha256_repository_is_git_s_to_read(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    git(tmp_path, "init", "-q", "--object-format=sha256", "r")
    root = tmp_path / "r"
    (root / "a.txt").write_bytes(b"a\n")
    git(root, "add", "a.txt")
    check(monkeypatch, root, ["a.txt"], read=False)
    assert len(by_git(monkeypatch, root, ["a.txt"])["a.txt"][1]) == 64  # type: ignore[index]


def test_a_torn_index_is_git_s_to_read(monkeypatch: pytest.MonkeyPatch, repo: Path) -> None:
    index = repo / ".git" / "index"
    index.write_bytes(index.read_bytes()[:-1])
    check(monkeypatch, repo, ["a.txt"], read=False)

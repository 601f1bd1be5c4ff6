"""A turn's backups and a rewind walk each directory once, read each file as few times as
their checks need, and still refuse every symlink on the way (issue 43)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from helpers_history import open_history, tree

from waymark.engine.errors import PathOutsideWorkspace
from waymark.store import flush
from waymark.store.files import atomic_write, digest, read_state
from waymark.store.history import pool
from waymark.store.walk import Walks, split_path


@contextmanager
def counting(
    monkeypatch: pytest.MonkeyPatch, name: str, keep: Callable[..., bool]
) -> Iterator[list[Any]]:
    """Count the calls of ``os.<name>`` that ``keep`` selects while the block runs."""
    calls: list[Any] = []
    real = getattr(os, name)

    def spy(*args: Any, **kwargs: Any) -> Any:
        if keep(*args, **kwargs):
            calls.append(args)
        return real(*args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(os, name, spy)
        yield calls


def _directory(path: Any, flags: int, *args: Any, **kwargs: Any) -> bool:
    return bool(flags & os.O_DIRECTORY)


def _files(workspace: Path, dirs: int, per_dir: int) -> list[Path]:
    paths = []
    for d in range(dirs):
        for n in range(per_dir):
            path = workspace / f"dir{d}" / f"f{n}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(f"{d}/{n} original\n".encode() * 50)
            paths.append(path)
    return paths


def _edit_all(history: Any, paths: list[Path], tag: str) -> None:
    for path in paths:
        history.track_edit(path)
        new = path.read_bytes() + tag.encode()
        atomic_write(path, new)
        history.record_write(path, digest(new))


def test_a_turn_walks_each_directory_once(
    workspace: Path, history_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = _files(workspace, 2, 10)
    history = open_history(history_root, workspace).raw
    history.make_snapshot("t0")
    _edit_all(history, paths, "one\n")
    with counting(monkeypatch, "open", _directory) as opened:
        history.make_snapshot("t1")
    depth = len(split_path(paths[0], False)[1])
    # "/" and the directories down to the first file, then the second directory only; the
    # history's own directories are opened by path. One walk per file would be 20 × depth.
    walked = [call for call in opened if not str(call[0]).startswith(str(history.dir))]
    assert len(walked) <= depth + 2
    assert history.model.snaps["t1"].files[os.fspath(paths[-1])].digest == digest(
        paths[-1].read_bytes()
    )


def test_a_rewind_walks_each_directory_once_and_reads_each_file_three_times(
    workspace: Path, history_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = _files(workspace, 2, 10)
    before = tree(workspace)
    history = open_history(history_root, workspace).raw
    history.make_snapshot("t0")
    _edit_all(history, paths, "one\n")
    history.make_snapshot("t1")
    flush.drain()
    with (
        counting(monkeypatch, "open", _directory) as opened,
        counting(monkeypatch, "read", lambda fd, n: True) as reads,
    ):
        result = history.rewind("t0")
    assert sorted(result.keys("restored")) == sorted(map(os.fspath, paths))
    assert tree(workspace) == before
    # The undo turn's backup, the plan, the check under the file's lock: the replace does
    # not read the file a fourth time. Directories: the undo turn's walk and the rewind's
    # (its files' locks included); per file, only the directory opened again to be locked
    # (an O_PATH descriptor cannot be) and to be fsynced.
    assert len(reads) <= 3 * len(paths)
    depth = len(split_path(paths[0], False)[1])
    walked = [call for call in opened if not str(call[0]).startswith(str(history.dir))]
    assert len(walked) <= 2 * (depth + 2) + 2 * len(paths)


def test_a_rewind_on_threads_writes_the_same_as_on_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outcomes = []
    for workers in ("one", "pool"):
        workspace = tmp_path / workers / "ws"
        workspace.mkdir(parents=True)
        paths = _files(workspace, 3, 4)
        (workspace / "gone.txt").write_bytes(b"made in t1\n")
        history = open_history(tmp_path / workers / "history", workspace).raw
        history.make_snapshot("t0")
        history.track_edit(workspace / "gone.txt")
        (workspace / "gone.txt").unlink()
        history.record_write(workspace / "gone.txt", None)
        _edit_all(history, paths[::2], "one\n")
        history.track_edit(workspace / "new.txt")
        atomic_write(workspace / "new.txt", b"new\n")
        history.record_write(workspace / "new.txt", digest(b"new\n"))
        # Changed by hand after the agent's write: a conflict either way.
        paths[2].write_bytes(b"the user's\n")
        if workers == "pool":
            monkeypatch.setattr(pool, "POOL_BYTES", 0)
        result = history.rewind("t0")
        outcomes.append(
            (
                [(Path(o.key).relative_to(workspace), o.kind, o.reason) for o in result.outcomes],
                tree(workspace),
            )
        )
    assert outcomes[0] == outcomes[1]
    kinds = {str(path): kind for path, kind, _ in outcomes[0][0]}
    assert kinds["gone.txt"] == "restored" and kinds["new.txt"] == "deleted"
    assert kinds["dir0/f2.txt"] == "conflict" and kinds["dir0/f0.txt"] == "restored"


def test_a_directory_swapped_for_a_symlink_is_refused_by_the_rewind(
    tmp_path: Path, workspace: Path, history_root: Path
) -> None:
    paths = _files(workspace, 2, 3)
    history = open_history(history_root, workspace).raw
    history.make_snapshot("t0")
    _edit_all(history, paths, "one\n")
    outside = tmp_path / "outside"
    (workspace / "dir1").rename(outside)
    os.symlink(outside, workspace / "dir1")
    kept = {p.name: p.read_bytes() for p in outside.iterdir()}
    result = history.rewind("t0")
    refused = {Path(o.key).name: o for o in result.outcomes if "dir1" in o.key}
    assert {o.kind for o in refused.values()} == {"failed"}
    assert {p.name: p.read_bytes() for p in outside.iterdir()} == kept
    assert sorted(result.keys("restored")) == sorted(os.fspath(p) for p in paths[:3])


def test_walks_refuse_a_symlink_and_walk_anew_after_forget(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (real / "a.txt").write_bytes(b"a")
    (real / "b.txt").write_bytes(b"b")
    with Walks() as walks:
        assert read_state(real / "a.txt", walks=walks).data == b"a"
        assert read_state(real / "b.txt", walks=walks).data == b"b"
        assert read_state(tmp_path / "missing" / "c.txt", walks=walks).data is None
        real.rename(tmp_path / "moved")
        os.symlink(tmp_path / "moved", real)
        walks.forget()
        with pytest.raises(PathOutsideWorkspace) as caught:
            read_state(real / "a.txt", walks=walks)
    assert caught.value.details["symlink"] == str(real)


@pytest.mark.parametrize("size", [0, 1, 65535, 65536, 65537, 1 << 20])
def test_a_file_is_read_in_one_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: int
) -> None:
    path = tmp_path / "f.bin"
    data = os.urandom(size)
    path.write_bytes(data)
    with counting(monkeypatch, "read", lambda fd, n: True) as reads:
        state = read_state(path, limit=1 << 21)
    assert state.data == data and len(reads) == 1


def test_an_operation_in_one_directory_opens_it_and_its_parent_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parent in one call straight from "/", the directory itself with one ``openat``: no
    descriptor of "/" (an edit's commit is one such operation), and the same directory
    reached as the component walk reaches it."""
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    absolute, dirs, _ = split_path(deep / "f.txt", False)
    with counting(monkeypatch, "open", _directory) as opened, Walks() as walks:
        fd = walks.directory(absolute, dirs)
        again = walks.directory(absolute, dirs)
        assert os.fstat(fd).st_ino == deep.stat().st_ino and again == fd
    assert [call[0] for call in opened] == ["b"]

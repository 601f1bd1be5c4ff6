"""The commit re-reads each file under the locks: a file another program changed after the
plan is refused there, nothing written and nothing recorded, whatever the re-read skips."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import waymark.commands.commit as commit
from helpers_commands import Agent, edit_third_line_with_a_writer_at_stage, put
from waymark.store.files import digest

SOURCE = b"one\ntwo\nthree\n"


def _theirs_before_the_lock(monkeypatch: pytest.MonkeyPatch, path: Path, data: bytes) -> None:
    """Another program writes ``path`` after the plan, just before the commit's locks."""
    taken = commit.write_locks

    @contextmanager
    def write_then_lock(*args: Any, **kwargs: Any) -> Iterator[None]:
        path.write_bytes(data)
        with taken(*args, **kwargs):
            yield

    monkeypatch.setattr(commit, "write_locks", write_then_lock)


@pytest.mark.parametrize(
    "theirs", [b"one\nTWO\nthree\n", b"", None], ids=["edited", "emptied", "deleted"]
)
async def test_an_edit_of_a_file_changed_after_its_plan_is_refused_under_the_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, theirs: bytes | None
) -> None:
    root = tmp_path / "ws"
    path = put(root, "f.txt", SOURCE)
    agent = Agent(root, tmp_path / "history")
    read = await agent("read", path="f.txt", hashes=True)
    anchor = read["lines"][2]["hash"]
    if theirs is None:
        taken = commit.write_locks

        @contextmanager
        def delete_then_lock(*args: Any, **kwargs: Any) -> Iterator[None]:
            path.unlink()
            with taken(*args, **kwargs):
                yield

        monkeypatch.setattr(commit, "write_locks", delete_then_lock)
    else:
        _theirs_before_the_lock(monkeypatch, path, theirs)
    result = await agent(
        "edit", path="f.txt", operations=[{"op": "replace_line", "hash": anchor, "content": "3"}]
    )
    assert result == {
        "ok": False,
        "error": "file_changed_since_read",
        "message": "f.txt changed after this change was planned; read it again and redo the "
        "change against the current content.",
        "details": {"path": "f.txt", "suggested_action": "re-read_file"},
    }
    assert (path.read_bytes() if path.exists() else None) == theirs
    assert agent.ctx.history is not None
    assert all(t.edited == () for t in agent.ctx.history.turns())
    # The session learnt what is there now (a later write is not taken for the agent's).
    known = agent.ctx.session.files[path.resolve()].known_digest
    assert known == (None if theirs is None else digest(theirs))


async def test_a_file_another_program_writes_after_the_re_read_is_still_caught_before_the_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The re-read under the lock and the batch's compare are two reads: a program that takes
    no lock, writing between them (here while the new bytes are staged), is caught by the
    second, and the edit is put back out of the history."""
    root = tmp_path / "ws"
    path = put(root, "f.txt", SOURCE)
    agent = Agent(root, tmp_path / "history")
    result = await edit_third_line_with_a_writer_at_stage(
        agent, path, lambda p: p.write_bytes(b"one\nTHEIRS\nthree\n"), monkeypatch
    )
    assert result == {
        "ok": False,
        "error": "file_changed_since_read",
        "message": "f.txt changed after this change was planned; read it again and redo the "
        "change against the current content.",
        "details": {"path": "f.txt", "suggested_action": "re-read_file"},
    }
    assert path.read_bytes() == b"one\nTHEIRS\nthree\n"
    assert sorted(p.name for p in root.iterdir()) == ["f.txt"]  # no temp file left
    assert agent.ctx.history is not None
    assert all(t.edited == () for t in agent.ctx.history.turns())


def _grown(path: Path) -> None:
    path.write_bytes(b"x" * 200)


def _a_directory(path: Path) -> None:
    path.unlink()
    path.mkdir()


@pytest.mark.parametrize(
    ("theirs", "refusal"),
    [
        (
            _grown,
            {
                "ok": False,
                "error": "file_too_large",
                "message": "f.txt is 200 bytes, over the 100-byte limit; edit a smaller file or "
                "raise maxFileSize.",
                "details": {"path": "f.txt", "size": 200, "limit": 100},
            },
        ),
        (
            _a_directory,
            {
                "ok": False,
                "error": "is_directory",
                "message": "f.txt is a directory; pass a file path.",
                "details": {"path": "f.txt"},
            },
        ),
    ],
    ids=["grown-past-the-limit", "a-directory"],
)
async def test_a_file_made_unreadable_after_its_plan_is_refused_under_the_lock_as_shown(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    theirs: Callable[[Path], None],
    refusal: dict[str, Any],
) -> None:
    """The re-read under the lock refuses what the workspace's checks refuse, naming the
    file as the caller sees it (not its real path)."""
    root = tmp_path / "ws"
    path = put(root, "f.txt", SOURCE)
    agent = Agent(root, tmp_path / "history", maxFileSize=100)
    read = await agent("read", path="f.txt", hashes=True)
    taken = commit.write_locks

    @contextmanager
    def change_then_lock(*args: Any, **kwargs: Any) -> Iterator[None]:
        theirs(path)
        with taken(*args, **kwargs):
            yield

    monkeypatch.setattr(commit, "write_locks", change_then_lock)
    result = await agent(
        "edit",
        path="f.txt",
        operations=[{"op": "replace_line", "hash": read["lines"][2]["hash"], "content": "3"}],
    )
    assert result == refusal
    assert agent.ctx.history is not None
    assert all(t.edited == () for t in agent.ctx.history.turns())


@pytest.mark.parametrize(
    ("name", "refusal"),
    [
        (
            "big.txt",
            {
                "ok": False,
                "error": "file_too_large",
                "message": "big.txt is 200 bytes, over the 100-byte limit; edit a smaller file "
                "or raise maxFileSize.",
                "details": {"path": "big.txt", "size": 200, "limit": 100},
            },
        ),
        (
            "sub",
            {
                "ok": False,
                "error": "is_directory",
                "message": "sub is a directory; pass a file path.",
                "details": {"path": "sub"},
            },
        ),
    ],
    ids=["too-large", "a-directory"],
)
async def test_the_load_refuses_as_the_workspace_checks_word_it(
    tmp_path: Path, name: str, refusal: dict[str, Any]
) -> None:
    """The load's checks run only when its read fails: their refusal is the one a user saw
    when they ran first, the file named as shown."""
    root = tmp_path / "ws"
    put(root, "big.txt", b"x" * 200)
    (root / "sub").mkdir()
    agent = Agent(root, tmp_path / "history", maxFileSize=100)
    result = await agent("replace", path=name, old_string="x", new_string="y")
    assert result == refusal
    missing = await agent("replace", path="gone.txt", old_string="x", new_string="y")
    assert (missing["error"], missing["details"]["path"]) == ("file_not_found", "gone.txt")

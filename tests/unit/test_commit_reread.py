"""The commit re-reads each file under the locks: a file another program changed after the
plan is refused there, nothing written and nothing recorded, whatever the re-read skips."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import waymark.commands.commit as commit
from helpers_commands import Agent, put
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

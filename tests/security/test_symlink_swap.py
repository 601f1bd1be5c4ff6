"""Class 1: a path checked inside the workspace is swapped for a symlink before the write."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from helpers_commands import Agent
from waymark.engine.errors import WaymarkError
from waymark.store import files


async def test_file_swapped_for_a_symlink_after_preview_is_not_written_through(
    agent: Agent, outside: Path
) -> None:
    target = agent.root / "a.txt"
    target.write_bytes(b"old\n")
    assert (await agent("read", path="a.txt"))["ok"]
    preview = await agent("write", path="a.txt", content="PWNED\n", preview=True)
    assert preview["ok"], preview
    target.unlink()
    target.symlink_to(outside / "victim.txt")
    result = await agent("applyPending", token=preview["token"])
    assert result["ok"] is False, result
    assert (outside / "victim.txt").read_bytes() == b"victim\n"
    assert os.readlink(target) == str(outside / "victim.txt")


async def test_directory_swapped_for_a_symlink_after_preview_creates_nothing_outside(
    agent: Agent, outside: Path
) -> None:
    (agent.root / "sub").mkdir()
    preview = await agent("write", path="sub/new.txt", content="PWNED\n", preview=True)
    assert preview["ok"], preview
    shutil.rmtree(agent.root / "sub")
    (agent.root / "sub").symlink_to(outside)
    result = await agent("applyPending", token=preview["token"])
    assert result["ok"] is False, result
    assert result["error"] == "path_outside_workspace", result
    assert sorted(os.listdir(outside)) == ["victim.txt"]


async def test_directory_swapped_for_a_link_into_git_hooks_creates_nothing(
    agent: Agent,
) -> None:
    hooks = agent.root / ".git" / "hooks"
    hooks.mkdir(parents=True)
    (agent.root / "tools").mkdir()
    preview = await agent("write", path="tools/post-commit", content="evil\n", preview=True)
    assert preview["ok"], preview
    (agent.root / "tools").rmdir()
    (agent.root / "tools").symlink_to(hooks)
    result = await agent("applyPending", token=preview["token"])
    assert result["ok"] is False, result
    assert os.listdir(hooks) == []


def test_every_primitive_refuses_a_symlinked_directory_on_the_way(
    tmp_path: Path, outside: Path
) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "d").symlink_to(outside)
    through = tmp_path / "ws" / "d" / "victim.txt"
    for action in (
        lambda: files.read_state(through),
        lambda: files.atomic_write(through, b"x"),
        lambda: files.delete_file(through),
        lambda: files.create_parents(through / "deeper"),
    ):
        try:
            action()
        except WaymarkError as exc:
            assert exc.code == "path_outside_workspace", exc
        else:
            raise AssertionError("a symlinked directory was followed")
    assert sorted(os.listdir(outside)) == ["victim.txt"]
    assert (outside / "victim.txt").read_bytes() == b"victim\n"

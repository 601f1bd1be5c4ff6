"""``waymark.rewind`` with ``paths``: only the chosen files go back, with the usual rules."""

from __future__ import annotations

from pathlib import Path

from test_history_doors import Door

from helpers_commands import cli


async def _two_files_changed(workspace: Path, door: Door) -> None:
    (workspace / "a.txt").write_bytes(b"a1\n")
    (workspace / "b.txt").write_bytes(b"b1\n")
    await door("read", path="a.txt")
    await door("read", path="b.txt")
    await door("snapshot", promptId="t0", label="start")
    assert (await door("replace", path="a.txt", old_string="a1", new_string="a2"))["ok"]
    assert (await door("replace", path="b.txt", old_string="b1", new_string="b2"))["ok"]


async def test_only_the_chosen_file_goes_back_and_the_undo_brings_it_again(
    workspace: Path, tmp_path: Path
) -> None:
    door = Door([workspace], tmp_path / "h")
    await _two_files_changed(workspace, door)
    result = await door("rewind", promptId="t0", paths=["b.txt"])
    assert result["ok"], result
    assert (result["restored"], result["unchanged"], result["conflicts"]) == (["b.txt"], [], [])
    assert (workspace / "b.txt").read_bytes() == b"b1\n"
    assert (workspace / "a.txt").read_bytes() == b"a2\n"
    undone = await door("rewind", promptId=result["undoPromptId"])
    assert undone["restored"] == ["b.txt"] and undone["unchanged"] == ["a.txt"]
    assert (workspace / "b.txt").read_bytes() == b"b2\n"
    assert (workspace / "a.txt").read_bytes() == b"a2\n"


async def test_the_preview_lists_only_the_chosen_files(workspace: Path, tmp_path: Path) -> None:
    door = Door([workspace], tmp_path / "h")
    await _two_files_changed(workspace, door)
    preview = await door("rewind", promptId="t0", paths=["./a.txt", "a.txt"], preview=True)
    assert [f["path"] for f in preview["plan"]] == ["a.txt"]
    assert (workspace / "a.txt").read_bytes() == b"a2\n"


async def test_a_chosen_file_changed_by_someone_else_is_a_conflict_until_forced(
    workspace: Path, tmp_path: Path
) -> None:
    door = Door([workspace], tmp_path / "h")
    await _two_files_changed(workspace, door)
    (workspace / "a.txt").write_bytes(b"user\n")
    result = await door("rewind", promptId="t0", paths=["a.txt"])
    assert result["conflicts"] == [{"path": "a.txt", "reason": "changed_since_agent_write"}]
    assert result["restored"] == []
    assert (workspace / "a.txt").read_bytes() == b"user\n"
    assert (workspace / "b.txt").read_bytes() == b"b2\n"
    forced = await door("rewind", promptId="t0", paths=["a.txt"], force=True)
    assert forced["restored"] == ["a.txt"]
    assert (workspace / "a.txt").read_bytes() == b"a1\n"
    assert (workspace / "b.txt").read_bytes() == b"b2\n"
    # The user's bytes are in the forced rewind's undo turn.
    await door("rewind", promptId=forced["undoPromptId"], paths=["a.txt"], force=True)
    assert (workspace / "a.txt").read_bytes() == b"user\n"


async def test_refusals_change_nothing(workspace: Path, tmp_path: Path) -> None:
    door = Door([workspace], tmp_path / "h")
    await _two_files_changed(workspace, door)
    (workspace / "other.txt").write_bytes(b"o\n")
    untracked = await door("rewind", promptId="t0", paths=["a.txt", "other.txt"])
    assert untracked["error"] == "invalid_params"
    assert untracked["message"].startswith("other.txt has no backup in the history")
    outside = await door("rewind", promptId="t0", paths=["../x.txt"])
    assert outside["error"] == "path_outside_workspace"
    empty = await door("rewind", promptId="t0", paths=[])
    assert empty["error"] == "invalid_params"
    both = await door("rewind", promptId="t0", paths=["a.txt"], option="both")
    assert (both["error"], both["details"]["field"]) == ("invalid_params", "paths")
    assert (workspace / "a.txt").read_bytes() == b"a2\n"
    assert (workspace / "b.txt").read_bytes() == b"b2\n"
    assert [t["promptId"] for t in (await door("turns"))["turns"]] == ["t0"]


def test_cli_rewinds_one_file(workspace: Path) -> None:
    (workspace / "a.txt").write_bytes(b"a1\n")
    (workspace / "b.txt").write_bytes(b"b1\n")
    assert cli(workspace, "snapshot", "t0")["ok"]
    for name in ("a", "b"):
        assert cli(workspace, "read", f"{name}.txt")["ok"]
        done = cli(workspace, "replace", f"{name}.txt", f"{name}1", "x")
        assert done["ok"], done
    result = cli(workspace, "rewind", "t0", "--paths", "a.txt")
    assert result["restored"] == ["a.txt"], result
    assert (workspace / "a.txt").read_bytes() == b"a1\n"
    assert (workspace / "b.txt").read_bytes() == b"x\n"
    undone = cli(workspace, "rewind", result["undoPromptId"], "--paths", "a.txt")
    assert undone["restored"] == ["a.txt"]
    assert (workspace / "a.txt").read_bytes() == b"x\n"

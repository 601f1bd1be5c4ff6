"""One history per workspace through the command layer: doors, folders, policy, continuity."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers_history import overwrite_blob

from waymark.commands.context import CommandContext, OpenDocument, load_options
from waymark.commands.registry import execute
from waymark.store.files import digest
from waymark.store.history import workspace_dir


class Door:
    """One process's way in (editor server, MCP, CLI): its own context, the same history."""

    def __init__(
        self, folders: list[Path], history: Path, session: str | None = "s1", **options: Any
    ) -> None:
        raw = {"historyDir": str(history), "sessionId": session or "cli", **options}
        opts, _ = load_options(raw)
        self.ctx = CommandContext.create(folders, opts, tag_writes=session is not None)

    async def __call__(self, verb: str, /, **params: Any) -> dict[str, Any]:
        return await execute(self.ctx, f"waymark.{verb}", params)


async def read_line(door: Door, path: str, line: int = 1) -> str:
    result = await door("read", path=path, hashes=True)
    assert result["ok"], result
    return str(result["lines"][line - 1]["hash"])


async def test_multi_root_rewind_touches_only_the_file_it_restored(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    for folder in (one, two):
        folder.mkdir()
        (folder / "x.txt").write_bytes(folder.name.encode() + b"\n")
    door = Door([one, two], tmp_path / "h")
    await door("read", path=str(one / "x.txt"))
    await door("read", path=str(two / "x.txt"))
    await door("snapshot", promptId="t0")
    changed = await door("replace", path=str(two / "x.txt"), old_string="two", new_string="2")
    assert changed["ok"], changed
    result = await door("rewind", promptId="t0")
    assert result["restored"] == ["x.txt"] and result["conflicts"] == []
    assert (two / "x.txt").read_bytes() == b"two\n" and (one / "x.txt").read_bytes() == b"one\n"
    # The first folder's x.txt was not touched: its read still holds.
    first = await door("replace", path=str(one / "x.txt"), old_string="one", new_string="1")
    assert first["ok"], first
    # The restored file must be read again before a string edit.
    again = await door("replace", path=str(two / "x.txt"), old_string="two", new_string="2")
    assert again["error"] == "read_required"


async def test_every_door_sees_the_same_turns(workspace: Path, tmp_path: Path) -> None:
    editor = Door([workspace], tmp_path / "h", "editor-1")
    (workspace / "a.txt").write_bytes(b"a\n")
    await editor("snapshot", promptId="p1", label="fix a")
    await editor("read", path="a.txt")
    await editor("replace", path="a.txt", old_string="a", new_string="b")
    cli = Door([workspace], tmp_path / "h", None)
    turns = await cli("turns")
    assert [(t["promptId"], t["edited"]) for t in turns["turns"]] == [("p1", ["a.txt"])]
    assert turns == await editor("turns")
    # A CLI in a fresh process (no session flags) sees it too, and rewinds it.
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "waymark",
            "turns",
            "--json",
            "--root",
            str(workspace),
            "--history-dir",
            str(tmp_path / "h"),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert [t["promptId"] for t in json.loads(out.stdout)["turns"]] == ["p1"]
    assert (await cli("rewind", promptId="p1"))["restored"] == ["a.txt"]
    assert (workspace / "a.txt").read_bytes() == b"a\n"
    # The editor's process catches up with the CLI's rewind without reopening anything.
    now = [t["promptId"] for t in (await editor("turns"))["turns"]]
    assert len(now) == 2 and now[0] == "p1" and now[1].startswith("undo-")


async def test_another_session_s_later_write_is_a_conflict(workspace: Path, tmp_path: Path) -> None:
    host, other = Door([workspace], tmp_path / "h", "host"), Door([workspace], tmp_path / "h", "o")
    (workspace / "a.txt").write_bytes(b"a\n")
    await host("snapshot", promptId="t0")
    await other("read", path="a.txt")
    await other("replace", path="a.txt", old_string="a", new_string="theirs")
    result = await host("rewind", promptId="t0")
    assert result["conflicts"] == [{"path": "a.txt", "reason": "written_by_other_session"}]
    assert (workspace / "a.txt").read_bytes() == b"theirs\n"


async def test_unsaved_editor_buffer_is_a_conflict(workspace: Path, tmp_path: Path) -> None:
    door = Door([workspace], tmp_path / "h")
    path = workspace / "a.txt"
    path.write_bytes(b"a\n")
    await door("snapshot", promptId="t0")
    await door("read", path="a.txt")
    await door("replace", path="a.txt", old_string="a", new_string="b")

    class Buffers:
        def get(self, real: Path) -> OpenDocument | None:
            return OpenDocument(path.as_uri(), "typing\n", 3) if real == path else None

    door.ctx.documents = Buffers()
    result = await door("rewind", promptId="t0", force=True)
    assert result["conflicts"] == [{"path": "a.txt", "reason": "unsaved_editor_changes"}]
    assert path.read_bytes() == b"b\n"


async def test_history_dir_inside_the_workspace_is_protected(workspace: Path) -> None:
    door = Door([workspace], workspace / ".hist")
    (workspace / "a.txt").write_bytes(b"a\n")
    await door("snapshot", promptId="t0")
    journal = workspace_dir(workspace / ".hist", [workspace]) / "journal.jsonl"
    rel = journal.relative_to(workspace).as_posix()
    for verb, params in (("read", {}), ("write", {"content": "x"})):
        result = await door(verb, path=rel, **params)
        assert result["error"] == "protected_path", result


async def test_a_crafted_journal_cannot_steer_a_rewind_outside(
    workspace: Path, tmp_path: Path
) -> None:
    history = tmp_path / "h"
    door = Door([workspace], history)
    (workspace / "a.txt").write_bytes(b"a\n")
    await door("snapshot", promptId="t0")
    await door("read", path="a.txt")
    assert (await door("write", path="a.txt", content="b\n"))["ok"]
    outside = tmp_path / "outside" / "pwned.sh"
    journal = workspace_dir(history, [workspace]) / "journal.jsonl"
    text = journal.read_text()
    journal.write_text(text.replace(str(workspace / "a.txt"), str(outside)))
    resumed = Door([workspace], history)
    result = await resumed("rewind", promptId="t0", force=True)
    assert result["restored"] == [] and result["deleted"] == []
    assert result["failed"] == [{"path": str(outside), "reason": "path_outside_workspace"}]
    assert not outside.exists() and not outside.parent.exists()


async def test_non_utf8_file_names_round_trip(workspace: Path, tmp_path: Path) -> None:
    name = os.fsdecode(b"caf\xe9.txt")
    door = Door([workspace], tmp_path / "h")
    await door("snapshot", promptId="t0")
    written = await door("write", path=name, content="x\n")
    assert written["ok"], written
    resumed = Door([workspace], tmp_path / "h")
    turns = (await resumed("turns"))["turns"]
    assert turns[0]["edited"] == [name]
    result = await resumed("rewind", promptId="t0")
    assert result["deleted"] == [name] and os.listdir(workspace) == []


async def test_history_is_private_whatever_the_umask(workspace: Path, tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        door = Door([workspace], tmp_path / "h")
        (workspace / "a.txt").write_bytes(b"a\n")
        await door("snapshot", promptId="t0")
        await door("read", path="a.txt")
        await door("write", path="a.txt", content="b\n")
    finally:
        os.umask(old)
    entries = [tmp_path / "h", *(tmp_path / "h").rglob("*")]
    assert {p.stat().st_mode & 0o777 for p in entries if p.is_dir()} == {0o700}
    assert {p.stat().st_mode & 0o777 for p in entries if p.is_file()} == {0o600}


@pytest.mark.parametrize(
    ("writes", "expected"),
    [
        (["edit"], "clean"),
        (["write", "edit"], "clean"),
        (["edit", "write"], "mixed"),
        (["replace"], "mixed"),
        (["edit", "outside"], "mixed"),
    ],
)
async def test_baseline_continuity(
    workspace: Path, tmp_path: Path, writes: list[str], expected: str
) -> None:
    door = Door([workspace], tmp_path / "h")
    path = workspace / "a.txt"
    path.write_bytes(b"line one\nline two\n")
    await door("read", path="a.txt")
    for n, writer in enumerate(writes):
        if writer == "edit":
            op = {"op": "insert_after", "hash": await read_line(door, "a.txt"), "content": f"e{n}"}
            assert (await door("edit", path="a.txt", operations=[op]))["ok"]
        elif writer == "write":
            assert (await door("write", path="a.txt", content=f"line one\nw{n}\n"))["ok"]
        elif writer == "replace":
            await door("read", path="a.txt")
            assert (await door("replace", path="a.txt", old_string="two", new_string="2"))["ok"]
        else:
            path.write_bytes(path.read_bytes() + b"by someone else\n")
    op = {"op": "insert_after", "hash": await read_line(door, "a.txt"), "content": "last"}
    result = await door("edit", path="a.txt", operations=[op])
    assert result["details"]["baseline_continuity"] == expected


def test_history_verb_shows_prunes_and_deletes(workspace: Path, tmp_path: Path) -> None:
    where = ["--root", str(workspace), "--history-dir", str(tmp_path / "h")]

    def waymark(*args: str) -> dict[str, Any]:
        out = subprocess.run(
            [sys.executable, "-m", "waymark", *args, "--json", *where],
            capture_output=True,
            text=True,
            check=True,
        )
        return dict(json.loads(out.stdout))

    assert waymark("history", "show")["turns"] == []
    assert not (tmp_path / "h").exists()  # looking creates nothing
    (workspace / "a.txt").write_bytes(b"a\n")
    for turn in ("t0", "t1", "t2"):
        waymark("snapshot", turn)
        waymark("read", "a.txt")
        waymark("write", "a.txt", "--content", f"{turn}\n")
    shown = waymark("history", "show")
    assert [t["promptId"] for t in shown["turns"]] == ["t0", "t1", "t2"]
    assert shown["trackedFiles"] == 1 and shown["blobBytes"] == len(b"a\nt0\nt1\n")
    pruned = waymark("history", "prune", "--keep", "1")
    assert pruned["dropped"] == ["t0", "t1"]
    assert [t["promptId"] for t in pruned["turns"]] == ["t2"]
    assert waymark("history", "delete")["deleted"] is True
    assert not workspace_dir(tmp_path / "h", [workspace]).exists()


def test_history_blob_gets_a_backup_back(workspace: Path, tmp_path: Path) -> None:
    """Manual recovery: the bytes of a backup, by the digest its journal entry names."""
    where = ["--root", str(workspace), "--history-dir", str(tmp_path / "h")]

    def waymark(*args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [sys.executable, "-m", "waymark", *args, *where], capture_output=True, check=False
        )

    original = b"first\r\nsecond\n" * 1000
    (workspace / "a.txt").write_bytes(original)
    waymark("snapshot", "t0")
    waymark("read", "a.txt")
    assert waymark("write", "a.txt", "--content", "new\n").returncode == 0
    got = waymark("history", "blob", "--digest", digest(original))
    assert got.returncode == 0 and got.stdout == original
    absent = "0" * 32
    missing = waymark("history", "blob", "--digest", absent)
    directory = workspace_dir(tmp_path / "h", [workspace])
    assert missing.returncode == 1 and missing.stdout == b""
    assert missing.stderr.decode() == (
        f"error: the backup {absent} is not stored there ({directory}); the digests of the "
        "backups kept are the entries' digest fields in its journal.jsonl.\n"
    )
    overwrite_blob(directory, digest(original), b"XX")
    corrupt = waymark("history", "blob", "--digest", digest(original), "--json")
    assert corrupt.returncode == 1 and corrupt.stdout.startswith(b"{")
    assert json.loads(corrupt.stdout)["reason"] == "backup_corrupt"
    wrong = waymark("history", "blob", "--digest", "not-hex")
    assert wrong.returncode == 2 and b"is not a backup's digest" in wrong.stderr


async def test_rewind_never_follows_a_swapped_directory(workspace: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_bytes(b"not yours\n")
    door = Door([workspace], tmp_path / "h")
    await door("snapshot", promptId="t0")
    assert (await door("write", path="sub/new.txt", content="agent\n"))["ok"]
    (workspace / "sub" / "keep.txt").write_bytes(b"user\n")
    await door("read", path="sub/keep.txt")
    assert (await door("write", path="sub/keep.txt", content="agent\n"))["ok"]
    # The agent (or anyone) swaps the directory for a symlink to a directory outside.
    os.rename(workspace / "sub", tmp_path / "moved")
    os.symlink(outside, workspace / "sub")
    (outside / "new.txt").write_bytes(b"agent\n")
    result = await door("rewind", promptId="t0", force=True)
    assert result["restored"] == [] and result["deleted"] == []
    assert {f["reason"] for f in result["failed"]} == {"path_outside_workspace"}
    assert sorted(os.listdir(outside)) == ["keep.txt", "new.txt"]
    assert (outside / "keep.txt").read_bytes() == b"not yours\n"


def test_a_write_between_plan_and_restore_is_a_conflict(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from waymark.store.files import read_state
    from waymark.store.history import History, history_workspace, writelocks

    history = History.open(
        tmp_path / "h", history_workspace(tmp_path / "h", [workspace]), session="s1"
    )
    path = workspace / "a.txt"
    path.write_bytes(b"a\n")
    history.make_snapshot("t0")
    with history.lock:
        history.track_edit(path)
        path.write_bytes(b"agent\n")
        history.record_write(path, read_state(path).digest)
    real_locked = writelocks.locked

    def locked_after_a_race(*paths: Path, **options: Any) -> Any:
        path.write_bytes(b"another process\n")  # lands after the plan, before the lock
        return real_locked(*paths, **options)

    monkeypatch.setattr(writelocks, "locked", locked_after_a_race)
    result = history.rewind("t0")
    [outcome] = result.outcomes
    assert (outcome.kind, outcome.reason) == ("conflict", "changed_during_rewind")
    assert path.read_bytes() == b"another process\n"

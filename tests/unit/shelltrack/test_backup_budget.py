"""A folder without git is copied a part per command: a first command in a big folder does
not wait for the whole copy, and what was not copied yet is out of reach, never "unchanged"."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from waymark.store.history import History
from waymark.store.shelltrack.track import begin, finish


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    for n in range(20):
        (root / f"f{n}.txt").write_bytes(b"before %d\n" % n)
    old = 1_600_000_000
    for n in range(20):
        os.utime(root / f"f{n}.txt", (old, old))
    return Path(os.path.realpath(root))


def run(history: History, ws: Path, name: str, script: str, seconds: float) -> dict[str, object]:
    history.make_snapshot(name)
    begin(history, name, command=script, cwd=ws, backup_seconds=seconds)
    subprocess.run(["sh", "-c", script], cwd=ws, check=True, timeout=30)
    report = finish(history, name)
    assert report is not None
    return report.to_json()


def test_a_change_to_a_file_not_copied_yet_is_listed_out_of_reach(
    history: History, ws: Path
) -> None:
    said = run(history, ws, "t1", "printf 'after\\n' > f3.txt", seconds=0)
    assert said["modified"] == []
    assert said["unreached"] == [{"path": "f3.txt", "reason": "not_backed_up_yet"}]
    assert (ws / "f3.txt").read_bytes() == b"after\n"
    # The turn claims no backup it lacks: rewinding it leaves the file as it is.
    history.rewind("t1")
    assert (ws / "f3.txt").read_bytes() == b"after\n"


def test_the_next_commands_copy_the_rest_and_track_it(history: History, ws: Path) -> None:
    run(history, ws, "t1", "true", seconds=0)
    said = run(history, ws, "t2", "printf 'after\\n' > f3.txt", seconds=60)
    assert said["modified"] == ["f3.txt"] and said["unreached"] == []
    history.rewind("t2")
    assert (ws / "f3.txt").read_bytes() == b"before 3\n"


def test_a_walk_polices_each_file_once_in_the_walk_not_again_per_file(
    history: History, ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 33: outside git every file of the tree is a candidate on every command; resolving
    # each one again cost a 5,000-file folder a second per PreToolUse.
    (ws / ".env").write_bytes(b"SECRET=1\n")
    resolved: list[str] = []
    real = type(history.workspace).resolve

    def counting(self: object, path: str, **kwargs: object) -> object:
        resolved.append(path)
        return real(self, path, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(type(history.workspace), "resolve", counting)
    said = run(history, ws, "t1", "printf 'after\\n' > f3.txt; printf 'x\\n' > .env", 5)
    # Only the file the command changed is resolved (when its change is recorded).
    assert resolved == [os.fspath(ws / "f3.txt")]
    assert said["modified"] == ["f3.txt"]
    # The walk skipped the protected file: it is never backed up, and its change is not
    # the history's to record.
    assert ".env" not in said["modified"]
    history.rewind("t1")
    assert (ws / "f3.txt").read_bytes() == b"before 3\n"
    assert (ws / ".env").read_bytes() == b"x\n"

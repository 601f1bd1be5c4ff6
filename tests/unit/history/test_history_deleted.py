"""A history deleted or replaced under a History that stays open (a long-lived door's): its
lock excludes again once it has started afresh, the removal never reaches a newer history, and
a journal another process rewrote is never taken for the one read.

The doors themselves, with ``waymark history delete`` run as a process, are
tests/hardening/test_history_deleted_live.py.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from pathlib import Path

from helpers_history import Agent, open_history

from waymark.store.history import delete_history, workspace_dir
from waymark.store.history.sweep_stamp import STAMP


def lock_is_free(directory: Path) -> bool:
    """Whether a new process could take the history's lock now."""
    fd = os.open(directory / "lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
    return True


def wait_for_a_waiter(lock: Path) -> None:
    """Until someone waits for ``lock``'s flock (a ``->`` line of /proc/locks)."""
    inode = f":{lock.stat().st_ino} "
    deadline = time.monotonic() + 30
    while not any(
        "->" in line and inode in line for line in Path("/proc/locks").read_text().splitlines()
    ):
        assert time.monotonic() < deadline, "nobody waits for the lock"
        time.sleep(0.01)


def test_a_lock_on_a_deleted_history_is_never_trusted(workspace: Path, history_root: Path) -> None:
    live = open_history(history_root, workspace)
    live.make_snapshot("t1")
    Agent(live, workspace).write("a.txt", b"one\n")
    directory = workspace_dir(history_root, [workspace])
    assert delete_history(directory)
    # Another process starts the next history.
    other = open_history(history_root, workspace)
    other.make_snapshot("c1")
    with live.lock:
        assert not lock_is_free(directory)
        assert [t.prompt_id for t in live.raw.turns()] == ["c1"]
    assert lock_is_free(directory)
    assert live.raw.ledger.lost == {"t1"}


def test_a_delete_that_waited_leaves_a_newer_history_alone(
    workspace: Path, history_root: Path
) -> None:
    old = open_history(history_root, workspace)
    old.make_snapshot("t1")
    directory = workspace_dir(history_root, [workspace])
    deleted: list[bool] = []
    with old.lock:
        waiting = threading.Thread(target=lambda: deleted.append(delete_history(directory)))
        waiting.start()
        wait_for_a_waiter(directory / "lock")
        # While that delete waits for the lock, another one removes the history and a door
        # starts the next.
        os.rename(directory, history_root / "elsewhere")
        newer = open_history(history_root, workspace)
        newer.make_snapshot("t2")
    waiting.join(30)
    assert deleted == [True]
    assert [t.prompt_id for t in newer.raw.turns()] == ["t2"]
    assert (directory / "journal.jsonl").is_file()


def test_a_removal_cut_short_is_finished_when_a_history_opens(
    workspace: Path, history_root: Path
) -> None:
    leftover = history_root / ".deleting-ws-0123456789abcdef-00ff00ff"
    (leftover / "blobs").mkdir(parents=True)
    (leftover / "blobs" / "x").write_bytes(b"old backup")
    open_history(history_root, workspace)
    assert sorted(p.name for p in history_root.iterdir()) == [
        STAMP,
        workspace_dir(history_root, [workspace]).name,
    ]


def test_a_journal_compacted_again_and_again_is_never_taken_for_the_one_read(
    workspace: Path, history_root: Path
) -> None:
    reader = open_history(history_root, workspace)
    writer = open_history(history_root, workspace)
    agent = Agent(writer, workspace)
    reader.make_snapshot("t0")
    writer.raw.compact()
    reader.raw.turns()
    journal = writer.raw.journal.path
    read = os.stat(journal).st_ino
    # Each compaction frees the journal's inode; a filesystem may give it to a later one
    # (ext4 does within a few): one that only remembered the number would read on from its
    # old offset in another file.
    for n in range(1, 20):
        writer.make_snapshot(f"t{n}")
        agent.write("a.txt", f"{n}\n".encode())
        writer.raw.compact()
        if os.stat(journal).st_ino == read:
            break
    assert [t.prompt_id for t in reader.raw.turns()] == [t.prompt_id for t in writer.raw.turns()]
    assert reader.raw.warnings == []

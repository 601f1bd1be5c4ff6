"""``waymark hook`` processes: which workspace a hook trusts, and one action per tool call.

Each hook runs as the hosts run it: ``waymark hook <host>`` with the JSON on stdin, the
environment built from this process's (so the test's XDG dirs hold the history).
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from helpers_commands import cli
from waymark.store import once

pytestmark = pytest.mark.timeout(300)

PROJECT_ENV = ("CLAUDE_PROJECT_DIR", "QWEN_PROJECT_DIR")


def environment(project: Path | str | None = None, home: Path | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in PROJECT_ENV}
    if project is not None:
        env["CLAUDE_PROJECT_DIR"] = str(project)
    if home is not None:
        env["HOME"] = str(home)
    return env


def start(
    event: dict[str, Any],
    cwd: Path | str,
    env: dict[str, str],
    preexec_fn: Callable[[], None] | None = None,
) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "waymark", "hook", "claude-code"],
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=preexec_fn,
    )
    assert process.stdin is not None
    process.stdin.write(json.dumps({"cwd": str(cwd), **event}))
    process.stdin.close()
    return process


def finish(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise
    assert process.stdout is not None and process.stderr is not None
    return process.returncode, process.stdout.read(), process.stderr.read()


def hook(event: dict[str, Any], cwd: Path | str, env: dict[str, str]) -> tuple[int, str, str]:
    return finish(start(event, cwd, env))


def histories() -> list[str]:
    state = Path(os.environ["XDG_STATE_HOME"]) / "waymark"
    return sorted(p.name for p in state.glob("ws-*")) if state.is_dir() else []


def prompt(prompt_id: str = "p1") -> dict[str, Any]:
    return {"hook_event_name": "UserPromptSubmit", "prompt": "do it", "prompt_id": prompt_id}


def bash(event: str, command: str, call: str) -> dict[str, Any]:
    return {
        "hook_event_name": event,
        "session_id": "s1",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": call,
    }


def assert_untracked(done: tuple[int, str, str], where: str) -> None:
    code, out, err = done
    assert (code, out) == (0, "")
    assert err.count("\n") == 1, err
    assert err.startswith("waymark hook: not tracking: ") and where in err, err
    assert err.rstrip().endswith("the tool runs untracked.")
    assert histories() == []


# -- class 4: a hook acts only on a workspace it can trust --------------------------------------


def test_a_hook_in_the_root_directory_tracks_nothing(tmp_path: Path) -> None:
    assert_untracked(hook(prompt(), "/", environment(home=tmp_path)), "/")


def test_a_project_dir_of_root_is_not_trusted_either(workspace: Path) -> None:
    (workspace / ".git").mkdir()
    assert_untracked(hook(prompt(), workspace, environment(project="/")), "/")


def test_a_hook_in_the_home_directory_tracks_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".git").mkdir(parents=True)  # a dotfiles repository
    (home / ".claude").mkdir()
    done = hook(bash("PreToolUse", "echo hi > note.txt", "t1"), home, environment(home=home))
    assert_untracked(done, str(home))
    (home / "note.txt").write_text("hi\n")  # the host runs the command
    done = hook(bash("PostToolUse", "echo hi > note.txt", "t1"), home, environment(home=home))
    assert_untracked(done, str(home))


def test_a_folder_in_home_without_a_marker_does_not_borrow_homes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    downloads = home / "Downloads"
    downloads.mkdir(parents=True)
    (home / ".git").mkdir()
    done = hook(bash("PreToolUse", "ls", "t1"), downloads, environment(home=home))
    assert_untracked(done, str(downloads))


def test_a_folder_with_no_project_marker_tracks_nothing_and_sed_runs_as_is(
    workspace: Path, tmp_path: Path
) -> None:
    f = workspace / "f.txt"
    f.write_bytes(b"aaa\n")
    event = bash("PreToolUse", "sed -i 's/a/b/' f.txt", "t1")
    assert_untracked(hook(event, workspace, environment(home=tmp_path / "home")), str(workspace))
    assert f.read_bytes() == b"aaa\n"


def test_a_project_found_by_its_marker_is_tracked_from_a_subfolder(
    workspace: Path, tmp_path: Path
) -> None:
    (workspace / ".git").mkdir()
    sub = workspace / "src"
    sub.mkdir()
    f = sub / "f.txt"
    f.write_bytes(b"one\n")
    env = environment(home=tmp_path / "home")
    code, out, _ = hook(prompt(), sub, env)
    assert code == 0 and "p1" in json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert hook(bash("PreToolUse", "printf two > f.txt", "t1"), sub, env)[:2] == (0, "")
    f.write_bytes(b"two")
    code, out, _ = hook(bash("PostToolUse", "printf two > f.txt", "t1"), sub, env)
    assert "modified src/f.txt" in json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert [t["promptId"] for t in cli(workspace, "turns")["turns"]] == ["p1"]
    assert cli(workspace, "rewind", "p1")["ok"] is True
    assert f.read_bytes() == b"one\n"


# -- issue 38, class 7: a hook's answer carries the warnings of what it did -----------------------


def _small_files_only() -> None:
    # Writes past 64 KiB fail with EFBIG (as tests/unit/test_faults.py makes them): the
    # sed's small result lands, the backup of its large original does not.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))


def test_a_simulated_sed_whose_backup_failed_promises_no_rewind(workspace: Path) -> None:
    f = workspace / "f.txt"
    original = b"".join(b"line %d\n" % i for i in range(20_000))
    f.write_bytes(original)
    env = environment(project=workspace)
    hook(prompt(), workspace, env)
    event = bash("PreToolUse", "sed -i '2,$d' f.txt", "t1")
    code, out, err = finish(start(event, workspace, env, _small_files_only))
    assert f.read_bytes() == b"line 0\n"
    failed = "f.txt: its backup failed (EFBIG), so this change cannot be rewound."
    assert (code, err) == (0, f"waymark hook: {failed}\n")
    shown = subprocess.run(
        ["sh", "-c", json.loads(out)["hookSpecificOutput"]["updatedInput"]["command"]],
        capture_output=True,
        text=True,
        timeout=10,
    )
    assert shown.stdout.startswith(
        f"Waymark applied this sed -i, but waymark_rewind cannot undo all of it: {failed} "
        "The file changed like this:\n--- a/f.txt\n"
    )
    assert "undoes it" not in shown.stdout
    rewound = cli(workspace, "rewind", "p1")
    assert rewound["failed"] == [{"path": "f.txt", "reason": "backup_failed", "errno": "EFBIG"}]
    assert f.read_bytes() == b"line 0\n"


# -- class 19: one tool call, one action, however often it is delivered --------------------------


def test_the_same_sed_call_delivered_twice_at_once_acts_once(workspace: Path) -> None:
    f = workspace / "s.txt"
    env = environment(project=workspace)
    for round_ in range(10):
        f.write_bytes(b"plus\n")
        event = bash("PreToolUse", "sed -i 's/plus/pplus/' s.txt", f"toolu_{round_}")
        first, second = start(event, workspace, env), start(event, workspace, env)
        a, b = finish(first), finish(second)
        assert f.read_bytes() == b"pplus\n", f"round {round_}"
        assert a[0] == b[0] == 0
        assert a[1] == b[1], f"round {round_}"
        assert json.loads(a[1])["hookSpecificOutput"]["permissionDecision"] == "allow"


def test_a_later_redelivery_replays_the_first_answer(workspace: Path) -> None:
    f = workspace / "s.txt"
    f.write_bytes(b"plus\n")
    env = environment(project=workspace)
    event = bash("PreToolUse", "sed -i 's/plus/pplus/' s.txt", "toolu_1")
    _, first, _ = hook(event, workspace, env)
    code, again, err = hook(event, workspace, env)
    assert (code, again) == (0, first)
    assert f.read_bytes() == b"pplus\n"
    assert "already handled" in err and err.count("\n") == 1


def test_a_shell_call_delivered_twice_records_its_change_once(workspace: Path) -> None:
    f = workspace / "f.txt"
    f.write_bytes(b"old\n")
    env = environment(project=workspace)
    hook(prompt(), workspace, env)
    pre = bash("PreToolUse", "printf new > f.txt", "toolu_1")
    answers = {finish(p)[:2] for p in [start(pre, workspace, env), start(pre, workspace, env)]}
    assert answers == {(0, "")}
    f.write_bytes(b"new")  # the host runs the command once
    post = bash("PostToolUse", "printf new > f.txt", "toolu_1")
    done = [finish(p) for p in [start(post, workspace, env), start(post, workspace, env)]]
    assert done[0][:2] == done[1][:2]
    context = json.loads(done[0][1])["hookSpecificOutput"]["additionalContext"]
    assert "modified f.txt" in context
    assert cli(workspace, "rewind", "p1")["ok"] is True
    assert f.read_bytes() == b"old\n"


def test_a_claim_left_by_a_dead_delivery_is_taken_over(tmp_path: Path) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait(timeout=30)
    first = once.claim(tmp_path, "call")
    first.path.write_text(json.dumps({"pid": gone.pid, "started": time.time()}))
    taken = once.claim(tmp_path, "call", wait=0.1)
    assert (taken.replay, taken.busy) == (None, False)
    once.settle(taken, "answer")
    assert once.claim(tmp_path, "call").replay == "answer"


def test_a_claim_left_by_a_dead_delivery_that_began_acting_is_never_run_again(
    tmp_path: Path,
) -> None:
    """Its changes may be on disk: the call gets the answer it left for that case."""
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait(timeout=30)
    first = once.claim(tmp_path, "call")
    once.begin(first, "what to answer")
    assert once.claim(tmp_path, "call", wait=0.1).busy  # still at work while it lives
    record = json.loads(first.path.read_bytes())
    first.path.write_text(json.dumps({**record, "pid": gone.pid}))
    again = once.claim(tmp_path, "call", wait=0.1)
    assert (again.replay, again.cut, again.busy) == ("what to answer", True, False)


def test_a_claim_still_at_work_makes_the_second_delivery_give_up_without_acting(
    tmp_path: Path,
) -> None:
    assert once.claim(tmp_path, "call").replay is None  # this process is at work on it
    second = once.claim(tmp_path, "call", wait=0.1)
    assert (second.replay, second.busy) == (None, True)


def test_the_calls_directory_stays_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(once, "KEEP", 3)
    for n in range(6):
        once.settle(once.claim(tmp_path, f"call {n}"), str(n))
        time.sleep(0.01)
    assert len(list(tmp_path.iterdir())) == 3
    assert once.claim(tmp_path, "call 5").replay == "5"


def test_a_record_left_half_written_by_a_killed_process_is_swept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(once, "KEEP", 3)
    killed = once.claim(tmp_path, "killed")
    # A process killed between writing a record aside and renaming it over leaves this.
    stray = killed.path.with_name(killed.path.name + ".new")
    stray.write_bytes(b'{"pid": 1, "sta')
    for n in range(4):
        once.settle(once.claim(tmp_path, f"call {n}"), str(n))
    assert not stray.exists()
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".new")]


def test_an_answer_that_cannot_be_recorded_still_goes_out(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The sed was applied: losing its "already applied" answer would let the shell rerun it."""
    from waymark.doors.hooks import handlers
    from waymark.doors.hosts import HOSTS, read_call
    from waymark.engine.errors import IoError

    def full(*_: object) -> None:
        raise IoError("No space left on device", {})

    monkeypatch.setattr(once, "settle", full)
    f = workspace / "s.txt"
    f.write_bytes(b"plus\n")
    event = {**bash("PreToolUse", "sed -i 's/plus/pplus/' s.txt", "t1"), "cwd": str(workspace)}
    host = HOSTS["claude-code"]
    printed = handlers.handle_once(host, read_call(host, event), workspace)
    assert json.loads(printed)["hookSpecificOutput"]["permissionDecision"] == "allow"
    assert f.read_bytes() == b"pplus\n"
    assert (
        "could not record this call's answer (No space left on device)" in capsys.readouterr().err
    )

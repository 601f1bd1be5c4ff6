"""Shell tracking: real commands change files, a rewind restores exactly what they held.

Each test runs real shell commands between :func:`begin` and :func:`finish` (or through the
real ``waymark run``), then rewinds through the history and checks the bytes on disk and
the per-file outcomes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from waymark.commands.context import CommandContext
from waymark.commands.shellreport import shell_notice
from waymark.store.history import History
from waymark.store.shelltrack import watch
from waymark.store.shelltrack.track import Report, begin, finish

GIT = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]


def sh(ws: Path, script: str) -> int:
    return subprocess.run(["sh", "-c", script], cwd=ws, check=False, timeout=60).returncode


def git_tree(ws: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_bytes(data)
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=ws, check=True)
    subprocess.run([*GIT, "commit", "-qm", "init"], cwd=ws, check=True)


@pytest.fixture(params=["git", "plain"])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return Path(os.path.realpath(root))


def tracked(history: History, script: str, ws: Path, turn: str = "t1") -> Report:
    history.make_snapshot(turn)
    begin(history, "call-1", command=script, cwd=ws)
    sh(ws, script)
    report = finish(history, "call-1")
    assert report is not None
    return report


def setup(kind: str, ws: Path, files: dict[str, bytes]) -> None:
    if kind == "git":
        git_tree(ws, files)
        return
    for name, data in files.items():
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_bytes(data)


def outcome(history: History, turn: str = "t1") -> dict[str, list[str]]:
    result = history.rewind(turn)
    out: dict[str, list[str]] = {}
    for item in result.outcomes:
        out.setdefault(item.kind, []).append(history.display(item.key))
    return {k: sorted(v) for k, v in out.items() if k != "unchanged"}


def test_rewrite_delete_create_restore_byte_exact(kind: str, ws: Path, history: History) -> None:
    setup(kind, ws, {"a.txt": b"alpha\r\n\xff\n", "b.txt": b"beta\n", "keep.txt": b"k\n"})
    report = tracked(
        history,
        "python3 -c \"open('a.txt','w').write('new\\n')\" && rm b.txt && printf c > c.txt",
        ws,
    )
    assert (report.created, report.modified, report.deleted) == (["c.txt"], ["a.txt"], ["b.txt"])
    assert report.unreached == {}
    assert outcome(history) == {"restored": ["a.txt", "b.txt"], "deleted": ["c.txt"]}
    assert (ws / "a.txt").read_bytes() == b"alpha\r\n\xff\n"
    assert (ws / "b.txt").read_bytes() == b"beta\n"
    assert not (ws / "c.txt").exists()
    assert (ws / "keep.txt").read_bytes() == b"k\n"


def test_rename_and_directory_removed(kind: str, ws: Path, history: History) -> None:
    setup(kind, ws, {"old.py": b"x = 1\n", "pkg/m1.py": b"m1\n", "pkg/sub/m2.py": b"m2\n"})
    report = tracked(history, "mv old.py new.py && rm -r pkg", ws)
    assert report.created == ["new.py"]
    assert report.deleted == ["old.py", "pkg/m1.py", "pkg/sub/m2.py"]
    assert outcome(history) == {
        "restored": ["old.py", "pkg/m1.py", "pkg/sub/m2.py"],
        "deleted": ["new.py"],
    }
    assert (ws / "pkg/sub/m2.py").read_bytes() == b"m2\n"
    assert not (ws / "new.py").exists()


def test_binary_file_and_dirty_file_in_git(ws: Path, history: History) -> None:
    blob = bytes(range(256)) * 64
    git_tree(ws, {"img.bin": blob, "notes.md": b"committed\n"})
    # Dirty before the command: its pre-image is the work tree's bytes, not the index's.
    (ws / "notes.md").write_bytes(b"uncommitted\n")
    report = tracked(history, "head -c 100 /dev/zero > img.bin && echo more >> notes.md", ws)
    assert report.modified == ["img.bin", "notes.md"]
    assert outcome(history) == {"restored": ["img.bin", "notes.md"]}
    assert (ws / "img.bin").read_bytes() == blob
    assert (ws / "notes.md").read_bytes() == b"uncommitted\n"


def test_symlink_reported_not_followed(kind: str, ws: Path, history: History) -> None:
    setup(kind, ws, {"real.txt": b"real\n"})
    report = tracked(history, "ln -s real.txt link && echo via >> link", ws)
    # Writing through the link changed the real file: that is tracked and restored.
    assert report.modified == ["real.txt"]
    assert report.unreached == {"link": "symlink"}
    assert outcome(history) == {"restored": ["real.txt"]}
    assert (ws / "real.txt").read_bytes() == b"real\n"
    turn = history.turns()[0]
    assert turn.unreached == ((os.fspath(ws / "link"), "symlink"),)


def test_shell_and_waymark_edit_same_turn(kind: str, ws: Path, history: History) -> None:
    setup(kind, ws, {"f.txt": b"v0\n"})
    history.make_snapshot("t1")
    # A Waymark write first (what the write pipeline does), then the shell on top.
    history.track_edit(ws / "f.txt")
    (ws / "f.txt").write_bytes(b"v1\n")
    from waymark.store.files import digest

    history.record_write(ws / "f.txt", digest(b"v1\n"))
    begin(history, "c", command="sed -i s/v1/v2/ f.txt", cwd=ws)
    sh(ws, "sed -i s/v1/v2/ f.txt")
    report = finish(history, "c")
    assert report is not None and report.modified == ["f.txt"]
    assert outcome(history) == {"restored": ["f.txt"]}
    assert (ws / "f.txt").read_bytes() == b"v0\n"


def test_user_change_between_turns_is_a_conflict(kind: str, ws: Path, history: History) -> None:
    setup(kind, ws, {"f.txt": b"v0\n"})
    tracked(history, "echo agent > f.txt", ws)
    (ws / "f.txt").write_bytes(b"the user's\n")
    history.make_snapshot("t2")
    assert outcome(history) == {"conflict": ["f.txt"]}
    assert (ws / "f.txt").read_bytes() == b"the user's\n"


def test_command_failing_half_way(kind: str, ws: Path, history: History) -> None:
    setup(kind, ws, {"a.txt": b"a\n", "b.txt": b"b\n"})
    history.make_snapshot("t1")
    begin(history, "c", command="x", cwd=ws)
    status = sh(ws, "echo A > a.txt && false && echo B > b.txt")
    report = finish(history, "c")
    assert status == 1
    assert report is not None and report.modified == ["a.txt"]
    assert outcome(history) == {"restored": ["a.txt"]}
    assert (ws / "a.txt").read_bytes() == b"a\n" and (ws / "b.txt").read_bytes() == b"b\n"


def test_out_of_reach_is_listed(ws: Path, history: History, tmp_path: Path) -> None:
    git_tree(ws, {".gitignore": b"build/\n", "src.c": b"int x;\n", "big.dat": b"0"})
    (ws / "build").mkdir()
    outside = tmp_path / "outside.txt"
    script = (
        f"echo o > {outside} && echo b > build/out.o && echo secret > .env && "
        f"head -c {30 * 1024 * 1024} /dev/zero > big.dat"
    )
    report = tracked(history, script, ws)
    assert report.unreached == {
        os.fspath(outside): "outside_workspace",
        "build/out.o": "ignored",
        ".env": "protected",
        "big.dat": "too_large",
    }
    notice = shell_notice(report)
    assert "Not rewindable" in notice and "ignored by .gitignore" in notice
    reasons = dict(history.turns()[0].unreached)
    assert reasons[os.fspath(ws / ".env")] == "protected"


def test_walk_cut_short_is_reported(ws: Path, history: History) -> None:
    for i in range(30):
        (ws / f"f{i}.txt").write_bytes(b"x")
    history.make_snapshot("t1")
    begin(history, "c", max_files=10)
    report = finish(history, "c")
    assert report is not None
    assert report.unreached == {".": "scan_cut_short"}


def test_git_dir_never_written(ws: Path, history: History) -> None:
    git_tree(ws, {"a.txt": b"a\n"})

    def listing() -> dict[str, tuple[int, int]]:
        out = {}
        for dirpath, _, names in os.walk(ws / ".git"):
            for name in names:
                st = os.stat(os.path.join(dirpath, name))
                out[os.path.join(dirpath, name)] = (st.st_mtime_ns, st.st_size)
        return out

    before = listing()
    tracked(history, "echo b > a.txt", ws)
    assert listing() == before


def test_waymark_run_cli(ws: Path, tmp_path: Path) -> None:
    git_tree(ws, {"a.txt": b"a\n"})
    hist = tmp_path / "h"
    run = [sys.executable, "-m", "waymark", "run", "--history-dir", str(hist), "--json"]
    done = subprocess.run(
        [*run, "--prompt-id", "p1", "--", "sh", "-c", "echo z > a.txt; echo n > n.txt; exit 3"],
        cwd=ws,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 3
    report = json.loads(done.stderr.strip().splitlines()[-1])
    assert report["promptId"] == "p1"
    assert (report["created"], report["modified"], report["deleted"]) == (["n.txt"], ["a.txt"], [])
    rewind = subprocess.run(
        [sys.executable, "-m", "waymark", "rewind", "p1", "--history-dir", str(hist), "--json"],
        cwd=ws,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    result = json.loads(rewind.stdout)
    assert result["restored"] == ["a.txt"] and result["deleted"] == ["n.txt"]
    assert result["conflicts"] == []
    assert (ws / "a.txt").read_bytes() == b"a\n" and not (ws / "n.txt").exists()


def test_host_hook_events(ws: Path, history: History, tmp_path: Path) -> None:
    from waymark.doors.hooks.shell import after, before
    from waymark.doors.hosts import HOSTS, read_call

    host = HOSTS["claude-code"]

    # The hooks reach the history through their door's context; only its history is read.
    ctx = cast(CommandContext, SimpleNamespace(history=history, workspace=history.workspace))
    git_tree(ws, {"a.txt": b"a\n", "b.txt": b"b\n"})
    history.make_snapshot("t1")
    script = f"python3 -c \"open('a.txt','w').write('A')\" && rm b.txt && echo x > {tmp_path}/o"
    event = {
        "session_id": "s",
        "cwd": os.fspath(ws),
        "tool_name": "Bash",
        "tool_input": {"command": script},
        "tool_use_id": "toolu_1",
    }
    # Writing in a scratch folder of the temp directory is allowed: the command runs.
    pre = read_call(host, {**event, "hook_event_name": "PreToolUse"})
    assert before(ctx, host, pre, script) is None
    sh(ws, script)
    answer = after(ctx, host, read_call(host, {**event, "hook_event_name": "PostToolUse"}))
    assert answer is not None
    context = answer["hookSpecificOutput"]["additionalContext"]
    assert answer["hookSpecificOutput"]["hookEventName"] == "PostToolUse"
    assert "modified a.txt; deleted b.txt" in context
    assert f"{tmp_path}/o (outside the workspace folders)" in context
    # A Post without its Pre (a hook installed mid-call) records nothing and says nothing.
    assert after(ctx, host, read_call(host, {**event, "hook_event_name": "PostToolUse"})) is None
    assert outcome(history) == {"restored": ["a.txt", "b.txt"]}
    assert (ws / "a.txt").read_bytes() == b"a\n" and (ws / "b.txt").read_bytes() == b"b\n"


def test_command_that_commits_or_checks_out(ws: Path, history: History) -> None:
    git_tree(ws, {"a.txt": b"a0\n", "b.txt": b"b0\n"})
    subprocess.run([*GIT, "checkout", "-qb", "other"], cwd=ws, check=True)
    (ws / "b.txt").write_bytes(b"b-other\n")
    subprocess.run([*GIT, "commit", "-qam", "other"], cwd=ws, check=True)
    subprocess.run([*GIT, "checkout", "-q", "-"], cwd=ws, check=True)
    # Clean before and clean after: only the index says these files changed.
    script = " && ".join(
        [
            "echo a1 > a.txt",
            "git -c user.email=t@e -c user.name=t commit -qam change",
            "git checkout -q other -- b.txt",
        ]
    )
    report = tracked(history, script, ws)
    assert report.modified == ["a.txt", "b.txt"]
    assert outcome(history) == {"restored": ["a.txt", "b.txt"]}
    assert (ws / "a.txt").read_bytes() == b"a0\n" and (ws / "b.txt").read_bytes() == b"b0\n"


@pytest.mark.parametrize(
    ("host", "tool"), [("claude-code", "Bash"), ("qwen-code", "run_shell_command")]
)
def test_waymark_hook_process_tracks_a_failing_shell_call(ws: Path, host: str, tool: str) -> None:
    (ws / "a.txt").write_bytes(b"a\n")

    def hook(event: dict[str, object]) -> dict[str, object] | None:
        done = subprocess.run(
            [sys.executable, "-m", "waymark", "hook", host],
            input=json.dumps({"cwd": str(ws), "session_id": "s", **event}),
            cwd=ws,
            env={**os.environ, "CLAUDE_PROJECT_DIR": str(ws)},  # as both hosts set it
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0 and "skipped" not in done.stderr, done.stderr
        return json.loads(done.stdout) if done.stdout else None

    hook({"hook_event_name": "UserPromptSubmit", "prompt": "p", "prompt_id": "p1"})
    script = "printf A > a.txt; printf n > n.txt; exit 1"
    call = {"tool_name": tool, "tool_input": {"command": script}, "tool_use_id": "t1"}
    assert hook({**call, "hook_event_name": "PreToolUse"}) is None
    sh(ws, script)
    answer = hook({**call, "hook_event_name": "PostToolUseFailure"})
    assert answer == {
        "hookSpecificOutput": {
            "hookEventName": "PostToolUseFailure",
            "additionalContext": "Waymark tracked this command's file changes (rewindable): "
            "created n.txt; modified a.txt.",
        }
    }
    done = subprocess.run(
        [sys.executable, "-m", "waymark", "rewind", "p1", "--json"],
        cwd=ws,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    result = json.loads(done.stdout)
    assert (result["restored"], result["deleted"]) == (["a.txt"], ["n.txt"])
    assert (ws / "a.txt").read_bytes() == b"a\n" and not (ws / "n.txt").exists()


def test_waymark_run_refuses_a_blank_turn_id_and_runs_nothing(ws: Path, tmp_path: Path) -> None:
    (ws / "a.txt").write_bytes(b"a\n")
    hist = tmp_path / "history"
    waymark = [sys.executable, "-m", "waymark", "run", "--history-dir", str(hist)]
    command = ["sh", "-c", "echo b > a.txt; touch made.txt"]
    result = subprocess.run(
        [*waymark, "--prompt-id", " ", "--", *command],
        cwd=ws,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert result.stderr == (
        "waymark run: The parameter `--prompt-id` is invalid: must be a non-empty string.\n"
    )
    # The command never ran: nothing changed, nothing was created, no turn was recorded.
    assert sorted(p.name for p in ws.iterdir()) == ["a.txt"]
    assert (ws / "a.txt").read_bytes() == b"a\n"
    turns = subprocess.run(
        [sys.executable, "-m", "waymark", "turns", "--history-dir", str(hist), "--json"],
        cwd=ws,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert json.loads(turns.stdout)["turns"] == []


def _git_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    from waymark.store.shelltrack import scan

    calls: list[str] = []
    real = scan.subprocess.run

    def run(argv: list[str], *args: object, **kwargs: object) -> object:
        calls.append(str(argv[1]))
        return real(argv, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(scan.subprocess, "run", run)
    return calls


def test_after_a_command_git_is_asked_once_for_the_status(
    ws: Path, history: History, monkeypatch: pytest.MonkeyPatch, post_by: str
) -> None:
    # Issue 33: the Post of a shell call pays one `git status`, not also begin's rev-parse;
    # watched, none: the changed file was clean, so only its old blob is looked up.
    git_tree(ws, {"a.txt": b"a\n"})
    history.make_snapshot("t1")
    begin(history, "call-1", command="printf b >> a.txt", cwd=ws)
    sh(ws, "printf b >> a.txt")
    calls = _git_calls(monkeypatch)
    report = finish(history, "call-1")
    assert report is not None and report.modified == ["a.txt"]
    assert calls.count("status") == (0 if post_by == "watch" else 1)
    assert post_by == "watch" or calls[0] == "status"
    assert "rev-parse" not in calls
    assert outcome(history) == {"restored": ["a.txt"]}
    assert (ws / "a.txt").read_bytes() == b"a\n"


def test_a_command_that_removes_the_repository_is_still_seen(ws: Path, history: History) -> None:
    git_tree(ws, {"a.txt": b"a\n"})
    report = tracked(history, "rm -rf .git && printf b >> a.txt", ws)
    assert report.unreached == {".": "scan_failed"}


# Changes a resident process's watch must not miss (conftest runs each with and without).


def test_new_directory_tree_and_files_in_it(kind: str, ws: Path, history: History) -> None:
    setup(kind, ws, {"a.txt": b"a\n"})
    report = tracked(history, "mkdir -p n/m/o && printf 1 > n/m/o/f && printf 2 > n/g", ws)
    assert report.created == ["n/g", "n/m/o/f"]
    assert outcome(history) == {"deleted": ["n/g", "n/m/o/f"]}
    assert not (ws / "n/g").exists()


def test_directory_moved_then_written(kind: str, ws: Path, history: History) -> None:
    setup(kind, ws, {"d/x.txt": b"x\n", "d/e/y.txt": b"y\n"})
    report = tracked(history, "mv d q && printf z >> q/e/y.txt", ws)
    assert report.created == ["q/e/y.txt", "q/x.txt"]
    assert report.deleted == ["d/e/y.txt", "d/x.txt"]
    assert outcome(history) == {
        "restored": ["d/e/y.txt", "d/x.txt"],
        "deleted": ["q/e/y.txt", "q/x.txt"],
    }
    assert (ws / "d/e/y.txt").read_bytes() == b"y\n"


def test_commands_in_a_row_and_a_person_in_between(kind: str, ws: Path, history: History) -> None:
    setup(kind, ws, {"a.txt": b"a\n", "b.txt": b"b\n"})
    assert tracked(history, "printf 1 >> a.txt", ws, "t1").modified == ["a.txt"]
    (ws / "b.txt").write_bytes(b"person\n")  # between commands: no one's change
    report = tracked(history, "printf 2 >> b.txt && mkdir k && printf k > k/k", ws, "t2")
    assert (report.created, report.modified) == (["k/k"], ["b.txt"])
    assert outcome(history, "t2") == {"restored": ["b.txt"], "deleted": ["k/k"]}
    assert (ws / "b.txt").read_bytes() == b"person\n"
    assert (ws / "a.txt").read_bytes() == b"a\n1"


def test_tool_directory_that_git_does_not_ignore(ws: Path, history: History) -> None:
    git_tree(ws, {".venv/lib/site.py": b"v1\n", "a.txt": b"a\n"})
    report = tracked(history, "printf v2 > .venv/lib/site.py", ws)
    assert report.modified == [".venv/lib/site.py"]
    assert outcome(history) == {"restored": [".venv/lib/site.py"]}


def test_many_files_past_the_watch_record(kind: str, ws: Path, history: History) -> None:
    setup(kind, ws, {"a.txt": b"a\n"})
    count = watch.MAX_TOUCHED + 10
    report = tracked(history, f"mkdir m && cd m && seq 1 {count} | xargs touch", ws)
    assert len(report.created) == count


def test_folder_moved_away_and_back(kind: str, ws: Path, history: History) -> None:
    setup(kind, ws, {"a.txt": b"a\n"})
    assert tracked(history, "printf 1 >> a.txt", ws, "t1").modified == ["a.txt"]
    sh(ws.parent, f"mv {ws.name} moved && mv moved {ws.name}")
    report = tracked(history, "printf 2 >> a.txt", ws, "t2")
    assert report.modified == ["a.txt"]
    assert (ws / "a.txt").read_bytes() == b"a\n12"


def test_dirty_and_untracked_files_changed_again(ws: Path, history: History) -> None:
    """Files git showed before the command: one put back to its committed bytes, one
    untracked deleted, one changed further; each is tracked and comes back."""
    git_tree(ws, {"a.txt": b"committed\n", "b.txt": b"b\n"})
    (ws / "a.txt").write_bytes(b"person's\n")
    (ws / "b.txt").write_bytes(b"b2\n")
    (ws / "u.txt").write_bytes(b"untracked\n")
    report = tracked(history, "git checkout -q -- a.txt && rm u.txt && printf 3 >> b.txt", ws)
    assert (report.modified, report.deleted) == (["a.txt", "b.txt"], ["u.txt"])
    assert outcome(history) == {"restored": ["a.txt", "b.txt", "u.txt"]}
    assert (ws / "a.txt").read_bytes() == b"person's\n"
    assert (ws / "b.txt").read_bytes() == b"b2\n"
    assert (ws / "u.txt").read_bytes() == b"untracked\n"


def test_new_ignored_and_clean_files_in_one_command(ws: Path, history: History) -> None:
    git_tree(ws, {".gitignore": b"*.log\n", "a.txt": b"a\n", "keep.txt": b"k\n"})
    report = tracked(history, "printf x > new.txt; printf y > out.log; printf z >> a.txt", ws)
    assert (report.created, report.modified, report.deleted) == (["new.txt"], ["a.txt"], [])
    assert report.unreached == {"out.log": "ignored"}
    assert outcome(history) == {"restored": ["a.txt"], "deleted": ["new.txt"]}
    assert (ws / "a.txt").read_bytes() == b"a\n"
    assert (ws / "out.log").read_bytes() == b"y"


def test_a_git_without_batch_command_still_gives_the_old_bytes(
    ws: Path, history: History, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git before 2.36 has no ``cat-file --batch-command``: the blobs are asked the old way."""
    real = shutil.which("git")
    fake = tmp_path / "old-git"
    fake.mkdir()
    (fake / "git").write_text(
        "#!/bin/sh\n"
        'for a in "$@"; do [ "$a" = --batch-command ] && '
        "{ echo 'error: unknown option `batch-command' >&2; exit 129; }; done\n"
        f'exec {real} "$@"\n'
    )
    (fake / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}:{os.environ['PATH']}")
    git_tree(ws, {"a.txt": b"a\n"})
    report = tracked(history, "printf b >> a.txt", ws)
    assert report.modified == ["a.txt"]
    assert outcome(history) == {"restored": ["a.txt"]}
    assert (ws / "a.txt").read_bytes() == b"a\n"

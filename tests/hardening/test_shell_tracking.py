"""Shell tracking misses, driven where a user meets them.

Each test runs ``waymark hook claude-code`` as the host does (PreToolUse, then the command
really run with bash in the workspace, then PostToolUse), or ``waymark run -- bash -c …``;
then ``waymark turns`` / ``waymark rewind`` in a terminal, and checks the bytes on disk.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers_shell import (
    bash_call,
    git,
    prompt,
    put,
    repo,
    rewind,
    tree,
    unreached,
    waymark,
)

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return Path(os.path.realpath(root))


@pytest.fixture(params=["git", "plain"])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def setup(kind: str, ws: Path, files: dict[str, bytes]) -> None:
    if kind == "git":
        repo(ws, files)
    else:
        put(ws, files)


# -- 7. a directory replaced by a file, and the reverse ----------------------------------------


def test_directory_replaced_by_a_file_comes_back_byte_for_byte(kind: str, ws: Path) -> None:
    setup(kind, ws, {"d/a.txt": b"alpha\r\n", "d/sub/b.bin": b"\x00\xff\xfe", "k.txt": b"k\n"})
    before = tree(ws)
    prompt(ws, "p1")
    context = bash_call(ws, "rm -r d && echo x > d")
    assert context == (
        "Waymark tracked this command's file changes (rewindable): created d; "
        "deleted d/a.txt, d/sub/b.bin."
    )
    after = tree(ws)
    assert after["d"] == b"x\n"
    result = rewind(ws, "p1")
    assert (result["restored"], result["deleted"]) == (["d/a.txt", "d/sub/b.bin"], ["d"])
    assert (result["conflicts"], result["failed"]) == ([], [])
    assert tree(ws) == before
    # The rewind itself is undone just as exactly.
    undo = rewind(ws, result["undoPromptId"])
    assert (undo["restored"], undo["deleted"]) == (["d"], ["d/a.txt", "d/sub/b.bin"])
    assert tree(ws) == after


def test_file_replaced_by_a_directory_comes_back(kind: str, ws: Path) -> None:
    setup(kind, ws, {"f": b"file\n\xff", "k.txt": b"k\n"})
    before = tree(ws)
    prompt(ws, "p1")
    context = bash_call(ws, "rm f && mkdir -p f/sub && printf y > f/sub/x && printf z > f/z")
    assert context == (
        "Waymark tracked this command's file changes (rewindable): created f/sub/x, f/z; deleted f."
    )
    after = tree(ws)
    result = rewind(ws, "p1")
    assert (result["restored"], result["deleted"]) == (["f"], ["f/sub/x", "f/z"])
    assert (result["conflicts"], result["failed"], result.get("warnings")) == ([], [], None)
    assert tree(ws) == before
    undo = rewind(ws, result["undoPromptId"])
    assert (undo["restored"], undo["deleted"]) == (["f/sub/x", "f/z"], ["f"])
    assert tree(ws) == after


def test_symlink_replaced_by_a_directory_is_listed_and_its_files_rewound(
    kind: str, ws: Path
) -> None:
    setup(kind, ws, {"target.txt": b"t\n"})
    (ws / "link").symlink_to("target.txt")
    if kind == "git":
        git(ws, "add", "link")
        git(ws, "commit", "-qm", "link")
    prompt(ws, "p1")
    context = bash_call(ws, "rm link && mkdir link && printf y > link/x")
    assert context == (
        "Waymark tracked this command's file changes (rewindable): created link/x. "
        "Not rewindable (out of reach): link (a symbolic link (links are not restored))."
    )
    result = rewind(ws, "p1")
    assert (result["restored"], result["deleted"]) == ([], ["link/x"])
    assert not (ws / "link" / "x").exists()
    assert (ws / "target.txt").read_bytes() == b"t\n"


# -- 8. nested repositories and submodules -----------------------------------------------------


def test_edits_inside_a_nested_repository_and_a_submodule_are_tracked(
    ws: Path, tmp_path: Path
) -> None:
    lib = tmp_path / "lib"
    repo(lib, {"l.txt": b"lib\n"})
    repo(ws, {"top.txt": b"top\n"})
    repo(ws / "inner", {"i.txt": b"inner\n", "keep.txt": b"k\n"})
    # Untracked in the nested repository: it needs a copy of its own.
    (ws / "inner" / "scratch.txt").write_bytes(b"s0\n")
    git(ws, "-c", "protocol.file.allow=always", "submodule", "add", "-q", os.fspath(lib), "sm")
    git(ws, "commit", "-qm", "submodule")
    before = tree(ws)
    prompt(ws, "p1")
    context = bash_call(
        ws,
        "printf X > inner/i.txt; printf S > inner/scratch.txt; rm inner/keep.txt; "
        "printf Y >> sm/l.txt; echo n > sm/n.txt; git init -q fresh && echo f > fresh/f.txt",
    )
    assert context == (
        "Waymark tracked this command's file changes (rewindable): "
        "created fresh/f.txt, sm/n.txt; modified inner/i.txt, inner/scratch.txt, sm/l.txt; "
        "deleted inner/keep.txt."
    )
    result = rewind(ws, "p1")
    assert result["restored"] == ["inner/i.txt", "inner/keep.txt", "inner/scratch.txt", "sm/l.txt"]
    assert result["deleted"] == ["fresh/f.txt", "sm/n.txt"]
    assert (result["conflicts"], result["failed"]) == ([], [])
    # Rewind leaves directories (here the new repository's) and never touches a .git.
    assert tree(ws) == {**before, "fresh": "dir"}


# -- 9. paths named by a command, however it is written -----------------------------------------


def expected_unreached(items: dict[str, str]) -> str:
    reasons = {
        "outside_workspace": "outside the workspace folders",
        "ignored": "ignored by .gitignore",
    }
    return "; ".join(f"{p} ({reasons[r]})" for p, r in sorted(items.items()))


def test_paths_next_to_shell_operators_are_reported(ws: Path, tmp_path: Path) -> None:
    repo(ws, {".gitignore": b"*.log\nbuild/\n", "a.txt": b"a\n"})
    (ws / "build").mkdir()
    out, spaced = tmp_path / "out.txt", tmp_path / "with space.txt"
    command = (
        "echo hi > debug.log; true && echo o>../out.txt && (cd build && echo c > c.o) && "
        "printf s >>'../with space.txt'|cat; ls nope 2>err.log; echo q &>build/q.o; echo z>a.txt"
    )
    context = bash_call(ws, command)
    named = {
        os.fspath(out): "outside_workspace",
        os.fspath(spaced): "outside_workspace",
        # Named by ``cd build``: the directory's listing changed too.
        "build": "ignored",
        "build/c.o": "ignored",
        "build/q.o": "ignored",
        "debug.log": "ignored",
        "err.log": "ignored",
    }
    assert context == (
        "Waymark tracked this command's file changes (rewindable): modified a.txt. "
        f"Not rewindable (out of reach): {expected_unreached(named)}."
    )
    assert out.read_bytes() == b"o\n" and spaced.read_bytes() == b"s"


def test_a_path_spelled_with_an_unset_variable_is_reported_where_bash_writes_it(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # bash expands an unset variable to nothing: the write lands next to the workspace.
    monkeypatch.delenv("WAYMARK_TEST_UNSET", raising=False)
    repo(ws, {"a.txt": b"a\n"})
    out = tmp_path / "out.txt"
    context = bash_call(ws, 'echo o > "${WAYMARK_TEST_UNSET}../out.txt"; echo z > a.txt')
    named = {os.fspath(out): "outside_workspace"}
    assert context == (
        "Waymark tracked this command's file changes (rewindable): modified a.txt. "
        f"Not rewindable (out of reach): {expected_unreached(named)}."
    )
    assert out.read_bytes() == b"o\n"


def test_waymark_run_reports_paths_in_here_docs_substitutions_and_scripts(
    ws: Path, tmp_path: Path
) -> None:
    repo(ws, {".gitignore": b"*.log\n", "a.txt": b"a\n"})
    script = (
        "cat <<EOF >notes.log\nhi\nEOF\n"
        "echo $(echo s > sub.log) `echo b>tick.log`; x=1; echo $x>../run-out.txt"
    )
    done = waymark(ws, "run", "--prompt-id", "p1", "--json", "--", "bash", "-c", script)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stderr.strip().splitlines()[-1])
    named = {
        os.fspath(tmp_path / "run-out.txt"): "outside_workspace",
        "notes.log": "ignored",
        "sub.log": "ignored",
        "tick.log": "ignored",
    }
    assert report["unreached"] == [{"path": p, "reason": r} for p, r in sorted(named.items())]
    assert (report["created"], report["modified"], report["deleted"]) == ([], [], [])
    assert unreached(ws, "p1") == named


# -- 10. a change deeper than PATH_MAX ---------------------------------------------------------


def deep_tree(top: Path, depth: int, file: str) -> list[str]:
    """``depth`` directories of 200-byte names under ``top``, ``file`` in the last one."""
    names = [f"{i:03d}" + "d" * 197 for i in range(depth)]
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for name in names:
            os.mkdir(name, dir_fd=fd)
            child = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = child
        made = os.open(file, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(made, b"d0\n")
        os.close(made)
    finally:
        os.close(fd)
    return names


EDIT_DEEP = """
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
for name in sys.argv[2:-1]:
    child = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
    os.close(fd)
    fd = child
file = os.open(sys.argv[-1], os.O_WRONLY | os.O_TRUNC, dir_fd=fd)
os.write(file, b"d1\\n")
"""


# Too deep a directory; or a directory git can still open, holding a name past the limit.
@pytest.mark.parametrize(
    ("depth", "file"), [(22, "deep.txt"), (20, "f" * 200)], ids=["deep-dir", "long-name"]
)
def test_a_change_deeper_than_path_max_is_reported(
    kind: str, ws: Path, tmp_path: Path, depth: int, file: str
) -> None:
    setup(kind, ws, {"top.txt": b"top\n"})
    (ws / "deep").mkdir()
    try:
        names = deep_tree(ws / "deep", depth, file)
        editor = tmp_path / "edit_deep.py"
        editor.write_text(EDIT_DEEP)
        prompt(ws, "p1")
        command = f"printf T > top.txt; {sys.executable} {editor} deep {' '.join(names)} {file}"
        context = bash_call(ws, command)
        reasons = unreached(ws, "p1")
        assert list(reasons.values()) == ["path_too_long"]
        [where] = reasons
        deep_file = "/".join(["deep", *names, file])
        assert deep_file == where or deep_file.startswith(where + "/")
        assert context == (
            "Waymark tracked this command's file changes (rewindable): modified top.txt. "
            f"Not rewindable (out of reach): {where} (under a path too long to scan)."
        )
    finally:
        subprocess.run(["rm", "-rf", os.fspath(ws / "deep")], check=True, timeout=60)


def test_repositories_past_the_scan_limit_are_listed(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from waymark.commands.shellreport import shell_notice
    from waymark.store.history import History, history_workspace
    from waymark.store.shelltrack import track

    monkeypatch.setattr(track, "_MAX_REPOSITORIES", 1)
    repo(ws, {"top.txt": b"top\n"})
    repo(ws / "a", {"a.txt": b"a\n"})
    repo(ws / "b", {"b.txt": b"b\n"})
    history = History.open(tmp_path / "h", history_workspace(tmp_path / "h", [ws]), session="s")
    try:
        history.make_snapshot("t1")
        track.begin(history, "c", command="true", cwd=ws)
        (ws / "a" / "a.txt").write_bytes(b"A\n")
        (ws / "b" / "b.txt").write_bytes(b"B\n")
        report = track.finish(history, "c")
    finally:
        history.close()
    assert report is not None
    assert (report.modified, report.unreached) == (["a/a.txt"], {"b": "too_many_repositories"})
    assert "b (a nested repository past the first 50 scanned)" in shell_notice(report)

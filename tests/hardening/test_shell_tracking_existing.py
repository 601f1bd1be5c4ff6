"""A rewind never deletes a file that existed before the command, and restores every name of
a hard-linked file: driven through ``waymark hook claude-code`` in its own process (the
PostToolUse scans everything) and through the resident hook server (the PostToolUse looks
only where inotify saw writes), and through ``waymark run``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers_hook_server import call_records, stop_servers, wait_server
from helpers_shell import bash_call, git, prompt, put, repo, rewind, unreached, waymark
from waymark.doors import hook_relay

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(sys.platform != "linux", reason="the hook server needs abstract sockets"),
]

CONFIG = b'{"token": "the only copy"}\r\n'
TRACKED = "Waymark tracked this command's file changes (rewindable): "


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return Path(os.path.realpath(root))


@pytest.fixture(params=["hook-process", "hook-server"])
def hooks(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Who runs the hook calls; the server, started by a first call it does not answer, is
    stopped by its pid."""
    if request.param == "hook-server":
        monkeypatch.delenv(hook_relay.ENV_SWITCH)
    state = Path(os.environ["XDG_STATE_HOME"])
    try:
        yield str(request.param)
    finally:
        stop_servers(state)


def start(hooks: str, ws: Path) -> None:
    """The session's first call: it starts the server (and is answered without it)."""
    prompt(ws, "p0")
    if hooks == "hook-server":
        wait_server(Path(os.environ["XDG_STATE_HOME"]))


def served(hooks: str) -> None:
    """With the server, it acted on every call but the first (which started it)."""
    if hooks == "hook-server":
        state = Path(os.environ["XDG_STATE_HOME"])
        pids = [record["pid"] for record in call_records(state)]
        assert pids.count(wait_server(state)) == len(pids) - 1 > 0


def test_a_file_git_stops_ignoring_is_never_deleted_by_a_rewind(hooks: str, ws: Path) -> None:
    ignore = b"config.local.json\n*.log\n"
    repo(ws, {".gitignore": ignore, "a.txt": b"a\n"})
    put(ws, {"config.local.json": CONFIG})
    start(hooks, ws)

    prompt(ws, "p1")
    context = bash_call(ws, "printf '*.log\\n' > .gitignore && printf n > fresh.txt", "t1")
    assert context == f"{TRACKED}created fresh.txt; modified .gitignore."
    (ws / ".gitignore").write_bytes(ignore)  # a person's change between turns
    prompt(ws, "p2")
    assert bash_call(ws, "git add -f config.local.json", "t2") == (
        "Waymark saw no file changes in the workspace from this command."
    )
    git(ws, "rm", "-q", "--cached", "config.local.json")
    prompt(ws, "p3")
    context = bash_call(ws, "rm .gitignore && printf ' ' >> config.local.json", "t3")
    # Its bytes were kept while git ignored it (issue 39): the change rewinds too.
    assert context == f"{TRACKED}modified config.local.json; deleted .gitignore."
    assert unreached(ws, "p3") == {}
    served(hooks)

    result = rewind(ws, "p1")
    assert (result["restored"], result["deleted"]) == (
        [".gitignore", "config.local.json"],
        ["fresh.txt"],
    )
    assert (result["conflicts"], result["failed"]) == ([], [])
    assert (ws / "config.local.json").read_bytes() == CONFIG
    assert (ws / ".gitignore").read_bytes() == ignore
    assert not (ws / "fresh.txt").exists()


def test_waymark_run_never_creates_a_file_git_ignored(ws: Path) -> None:
    repo(ws, {".gitignore": b"conf/\n", "a.txt": b"a\n"})
    put(ws, {"conf/local.json": CONFIG, "conf/other.json": b"{}"})
    script = "printf 'x\\n' > .gitignore; printf ' ' >> conf/local.json; printf n > n.txt"
    done = waymark(ws, "run", "--prompt-id", "p1", "--json", "--", "bash", "-c", script)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stderr.strip().splitlines()[-1])
    assert (report["created"], report["modified"]) == (["n.txt"], [".gitignore", "conf/local.json"])
    assert report["unreached"] == []
    result = rewind(ws, "p1")
    assert (result["restored"], result["deleted"]) == ([".gitignore", "conf/local.json"], ["n.txt"])
    assert (ws / "conf/local.json").read_bytes() == CONFIG
    assert (ws / "conf/other.json").read_bytes() == b"{}"


@pytest.mark.parametrize("kind", ["git", "plain"])
def test_a_write_through_one_name_of_a_hard_link_rewinds_both(
    hooks: str, kind: str, ws: Path
) -> None:
    files = {"a.txt": b"one\r\n\xff", "keep.txt": b"k\n"}
    if kind == "git":
        repo(ws, files)
    else:
        put(ws, files)
    (ws / "sub").mkdir()
    os.link(ws / "a.txt", ws / "sub/b.txt")
    start(hooks, ws)

    prompt(ws, "p1")
    context = bash_call(ws, "printf two >> sub/b.txt", "t1")
    assert context == f"{TRACKED}modified a.txt, sub/b.txt."
    served(hooks)
    result = rewind(ws, "p1")
    assert (result["restored"], result["conflicts"]) == (["a.txt", "sub/b.txt"], [])
    assert (ws / "a.txt").read_bytes() == b"one\r\n\xff"
    assert (ws / "sub/b.txt").read_bytes() == b"one\r\n\xff"
    assert (ws / "keep.txt").read_bytes() == b"k\n"

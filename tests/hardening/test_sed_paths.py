"""``sed -i`` lines whose backup or operand is a link, ``*`` backup names, and ``~`` operands.

Each case is built twice: Waymark takes the line on a door (the ``waymark sed`` CLI, or the
``waymark hook claude-code`` process with the host's Bash call), GNU sed takes it from bash in
the twin tree. A simulated line must leave the tree GNU leaves; a declined one must leave it
untouched, and after the agent (or the host) then runs the real command, GNU's tree again.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from helpers_commands import cli

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not Path("/bin/sed").exists(), reason="needs GNU sed as /bin/sed"),
]

Setup = Callable[[Path], None]


def files(content: dict[str, str]) -> Setup:
    """Files under the tree's ``ws``, by path relative to it."""

    def setup(root: Path) -> None:
        for name, text in content.items():
            path = root / "ws" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(text.encode())

    return setup


def both(*steps: Setup) -> Setup:
    def setup(root: Path) -> None:
        for step in steps:
            step(root)

    return setup


def link(name: str, target: str) -> Setup:
    def setup(root: Path) -> None:
        os.symlink(target, root / "ws" / name)

    return setup


def hard_link(name: str, target: str) -> Setup:
    def setup(root: Path) -> None:
        os.link(root / "ws" / target, root / "ws" / name)

    return setup


def folder(name: str) -> Setup:
    def setup(root: Path) -> None:
        (root / "ws" / name).mkdir(parents=True)

    return setup


@dataclass(frozen=True)
class Case:
    id: str
    setup: Setup
    line: str
    simulated: bool | None  # None: either, as long as the tree is GNU's
    reason: str = ""  # part of the decline's reason
    home: str = "home"  # $HOME, relative to the tree root (``ws/…`` lies in the workspace)


BASE = files({"f.txt": "aaa\n", "g.txt": "ggg\n"})
NOTES = files({"~/notes.txt": "tilde dir\n"})
HOME_IN_WS = files({"home/notes.txt": "home\n", "home/b.txt": "home b\n"})

CASES = [
    # 1. The backup name.
    Case(
        "backup-link",
        both(BASE, link("f.txt.bak", "g.txt")),
        "sed -i.bak 's/a/b/' f.txt",
        False,
        "f.txt.bak is a symbolic link",
    ),
    Case(
        "backup-dangling-link",
        both(BASE, link("f.txt.bak", "nowhere.txt")),
        "sed -i.bak 's/a/b/' f.txt",
        False,
        "f.txt.bak is a symbolic link",
    ),
    Case(
        "backup-link-outside",
        both(BASE, link("f.txt.bak", "../out/o.txt")),
        "sed -i.bak 's/a/b/' f.txt",
        False,
        "f.txt.bak is a symbolic link",
    ),
    Case(
        "backup-link-to-itself",
        both(BASE, link("f.txt.bak", "f.txt")),
        "sed -i.bak 's/a/b/' f.txt",
        False,
        "f.txt.bak is a symbolic link",
    ),
    Case(
        "backup-directory",
        both(BASE, folder("f.txt.bak")),
        "sed -i.bak 's/a/b/' f.txt",
        False,
        "f.txt.bak is a directory",
    ),
    Case(
        "backup-hard-link",
        both(BASE, hard_link("f.txt.bak", "g.txt")),
        "sed -i.bak s/a/b/ f.txt",
        True,
    ),
    Case(
        "backup-replaced",
        both(BASE, files({"f.txt.bak": "old\n"})),
        "sed -i.bak s/a/b/ f.txt",
        True,
    ),
    Case("backup-tilde-suffix", BASE, "sed -i~ s/a/b/ f.txt", True),
    Case(
        "backup-is-an-operand",
        both(BASE, files({"f.txt.bak": "old a\n"})),
        "sed -i.bak s/a/b/ f.txt ./f.txt.bak",
        False,
        "backup",
    ),
    Case(
        "backup-link-on-a-glob",
        both(BASE, link("f.txt.bak", "g.txt")),
        "sed -i.bak s/a/b/ *.txt",
        False,
        "f.txt.bak is a symbolic link",
    ),
    Case("backup-on-a-glob", BASE, "sed -i.bak s/a/b/ *.txt", True),
    # The `*` form: each `*` is the operand as written; the directory must exist.
    Case("star-directory", both(BASE, folder("bak")), "sed -i'bak/*' s/a/b/ f.txt", True),
    Case(
        "star-directory-nested",
        both(files({"sub/s.txt": "aaa\n"}), folder("bak/sub")),
        "sed -i'bak/*' s/a/b/ sub/s.txt",
        True,
    ),
    Case("star-prefix", BASE, "sed -i'old_*' s/a/b/ f.txt", True),
    Case("star-twice", BASE, "sed --in-place='*.*' s/a/b/ f.txt g.txt", True),
    Case("star-alone-is-no-backup", BASE, "sed -i'*' s/a/b/ f.txt", True),
    Case(
        "star-missing-directory",
        BASE,
        "sed -i'nodir/*' s/a/b/ f.txt",
        False,
        "nodir/f.txt: its directory does not exist",
    ),
    Case(
        "star-prefix-missing-directory",
        files({"sub/s.txt": "aaa\n"}),
        "sed -i'old_*' s/a/b/ sub/s.txt",
        False,
        "old_sub/s.txt: its directory does not exist",
    ),
    Case(
        "star-directory-link-outside",
        both(BASE, link("bak", "../out")),
        "sed -i'bak/*' s/a/b/ f.txt",
        False,
        "outside the workspace",
    ),
    Case(
        "star-directory-link-inside",
        both(BASE, folder("real"), link("bak", "real")),
        "sed -i'bak/*' s/a/b/ f.txt",
        True,
    ),
    Case(
        "star-dotdot-after-a-directory-link",
        both(BASE, folder("deep/dir"), link("sub", "deep/dir")),
        "sed -i'sub/../*' s/a/b/ f.txt",
        None,
    ),
    Case("slash-without-star", BASE, "sed -i/x s/a/b/ f.txt", False, "'/' but no '*'"),
    # 3. A quoted `~` is a literal directory name; only an unquoted leading one expands.
    *(
        Case(f"quoted-tilde-{n}", both(NOTES, HOME_IN_WS), line, True, home="ws/home")
        for n, line in enumerate(
            [
                "sed -i s/e/E/ '~/notes.txt'",
                "sed -i s/e/E/ \\~/notes.txt",
                'sed -i s/e/E/ "~/notes.txt"',
                "sed -i s/e/E/ '~'/notes.txt",
                "sed -i s/e/E/ ~'/notes.txt'",
                "sed -i.bak s/e/E/ '~/notes.txt'",
                "sed -i s/e/E/ '~'/*.txt",
            ]
        )
    ),
    Case(
        "quoted-tilde-home-outside",
        both(NOTES, files({"../home/notes.txt": "home\n"})),
        "sed -i s/e/E/ '~/notes.txt'",
        True,
    ),
    Case(
        "tilde-home-in-workspace",
        both(NOTES, HOME_IN_WS),
        "sed -i s/e/E/ ~/notes.txt",
        True,
        home="ws/home",
    ),
    Case("tilde-glob", both(NOTES, HOME_IN_WS), "sed -i s/e/E/ ~/*.txt", True, home="ws/home"),
    Case(
        "tilde-home-outside",
        both(NOTES, files({"../home/notes.txt": "home\n"})),
        "sed -i s/e/E/ ~/notes.txt",
        False,
        "outside the workspace",
    ),
    Case(
        "tilde-unknown-user-is-literal",
        files({"~nosuchuser_wm/notes.txt": "literal\n"}),
        "sed -i s/e/E/ ~nosuchuser_wm/notes.txt",
        True,
    ),
    Case(
        "tilde-plus",
        files({"notes.txt": "cwd\n"}),
        "sed -i s/e/E/ ~+/notes.txt",
        False,
        "'~+'",
    ),
]


def build(root: Path, case: Case) -> None:
    (root / "ws").mkdir(parents=True)
    (root / "out").mkdir()
    (root / "out" / "o.txt").write_bytes(b"outside\n")
    (root / "home").mkdir(exist_ok=True)
    case.setup(root)


def tree(root: Path) -> dict[str, Any]:
    """Every entry under ``root``: a link's target, a file's bytes, or that it is a directory."""
    found: dict[str, Any] = {}
    for folder_, dirs, names in os.walk(root):
        for name in dirs + names:
            path = Path(folder_, name)
            key = path.relative_to(root).as_posix()
            if path.is_symlink():
                found[key] = ("link", os.readlink(path))
            elif path.is_dir():
                found[key] = ("dir",)
            else:
                found[key] = ("file", path.read_bytes())
    return found


def env_for(root: Path, case: Case) -> dict[str, str]:
    # The host names the project to its hooks (a temp tree has no project marker).
    return {**os.environ, "HOME": str(root / case.home), "CLAUDE_PROJECT_DIR": str(root / "ws")}


def bash(root: Path, case: Case) -> None:
    """The line as the agent's shell runs it; GNU's failures are part of what it does."""
    subprocess.run(
        ["bash", "-c", case.line.replace("sed ", "/bin/sed ", 1)],
        cwd=root / "ws",
        env=env_for(root, case),
        capture_output=True,
        timeout=60,
    )


def through_cli(root: Path, case: Case) -> tuple[bool, str]:
    done = subprocess.run(
        [sys.executable, "-m", "waymark", "sed", case.line, "--json"],
        cwd=root / "ws",
        env=env_for(root, case),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["ok"] is True, result
    return result["simulated"], result.get("reason", "")


def through_hook(root: Path, case: Case) -> tuple[bool, str]:
    event = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": case.line},
        "cwd": str(root / "ws"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "waymark", "hook", "claude-code"],
        input=json.dumps(event),
        cwd=root / "ws",
        env=env_for(root, case),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    if not done.stdout:
        return False, done.stderr
    # Applied: the host runs a printf of the result instead (the model reads a success).
    answer = json.loads(done.stdout)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "allow"
    printed = answer["updatedInput"]["command"]
    assert printed.startswith("printf '%s' ") and "applied this sed -i" in printed, printed
    return True, ""


DOORS = {"cli": through_cli, "hook": through_hook}


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_sed_line_leaves_what_gnu_sed_leaves(tmp_path: Path, case: Case, door: str) -> None:
    ours, gnu = tmp_path / "ours", tmp_path / "gnu"
    build(ours, case)
    build(gnu, case)
    before = tree(ours)
    bash(gnu, case)
    simulated, reason = DOORS[door](ours, case)
    if not simulated:
        assert tree(ours) == before, "a declined line changed the tree"
        # The agent (or the host, after the hook's answer) runs the line itself.
        bash(ours, case)
    assert tree(ours) == tree(gnu)
    if door == "hook" and case.home.startswith("ws/"):
        # A project folder holding $HOME is not one a hook trusts: the host runs the line.
        assert not simulated and "the home directory" in reason, reason
        return
    assert simulated is (simulated if case.simulated is None else case.simulated), reason
    assert case.reason in reason


def test_a_simulated_star_backup_and_quoted_tilde_rewind(tmp_path: Path) -> None:
    case = Case("rewind", both(BASE, NOTES, folder("bak/~")), "", True, home="ws/home")
    build(tmp_path, case)
    before = tree(tmp_path)
    ws = tmp_path / "ws"
    env = env_for(tmp_path, case)

    assert cli(ws, "snapshot", "t1", env=env)["ok"] is True
    assert cli(ws, "sed", "sed -i'bak/*' s/e/E/ '~/notes.txt' f.txt", env=env)["simulated"] is True
    assert (ws / "bak" / "~" / "notes.txt").read_bytes() == b"tilde dir\n"
    assert (ws / "~" / "notes.txt").read_bytes() == b"tildE dir\n"
    assert cli(ws, "rewind", "t1", env=env)["ok"] is True
    assert tree(tmp_path) == before

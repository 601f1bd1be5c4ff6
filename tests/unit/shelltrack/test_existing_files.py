"""Files that existed before a command but that its first scan did not see (git ignored
them, the walk stopped before them) are never "created" by it, and a rewind never deletes
them; a file with more than one name is restored under every name.

Each test runs twice (conftest): Post scanning everything, and Post looking where a watch saw
writes.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from waymark.commands.shellreport import shell_notice
from waymark.store.history import History
from waymark.store.shelltrack.track import Report, begin, finish

GIT = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
CONFIG = b'{"token": "only copy"}\n'


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return Path(os.path.realpath(root))


def write(root: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)


def git(cwd: Path, *args: str) -> None:
    subprocess.run([*GIT, *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def repo(root: Path, files: dict[str, bytes]) -> None:
    """``files`` in a new repository at ``root``, all that git does not ignore committed."""
    write(root, files)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")


def tracked(history: History, ws: Path, script: str, turn: str = "t1") -> Report:
    history.make_snapshot(turn)
    begin(history, "call", command=script, cwd=ws)
    subprocess.run(["sh", "-c", script], cwd=ws, check=False, timeout=60)
    report = finish(history, "call")
    assert report is not None
    return report


def rewound(history: History, turn: str = "t1") -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for item in history.rewind(turn).outcomes:
        out.setdefault(item.kind, []).append(history.display(item.key))
    return {k: sorted(v) for k, v in out.items() if k != "unchanged"}


def ignored_by(how: str, ws: Path, tmp_path: Path) -> tuple[str, str]:
    """A repository in ``ws`` whose ``config.local.json`` (or ``conf/local.json``) git
    ignores ``how``, written before the repository was (a command changes files later than
    that); the file's path and a command that makes git see it (the excludes file it empties
    is outside the workspace: out of reach itself)."""
    name = "conf/local.json" if how == "ignored-directory" else "config.local.json"
    if how == "nested-gitignore":
        name = "inner/config.local.json"
        repo(ws, {"a.txt": b"a\n"})
        repo(ws / "inner", {".gitignore": b"config.local.json\n", "config.local.json": CONFIG})
        return name, "printf 'x\\n' > inner/.gitignore"
    rules = {
        "gitignore": {".gitignore": b"config.local.json\n"},
        "add-force": {".gitignore": b"config.local.json\n"},
        "ignored-directory": {".gitignore": b"conf/\n"},
    }
    write(ws, {name: CONFIG, "a.txt": b"a\n", **rules.get(how, {})})
    if how == "ignored-directory":
        # What the directory holds that no rewind could restore, left alone as well.
        (ws / "conf/link").symlink_to("local.json")
    git(ws, "init", "-q")
    if how == "info-exclude":
        (ws / ".git/info/exclude").write_bytes(b"config.local.json\n")
    if how == "excludes-file":
        (tmp_path / "excludes").write_bytes(b"config.local.json\n")
        git(ws, "config", "core.excludesFile", os.fspath(tmp_path / "excludes"))
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "init")
    unignore = {
        "info-exclude": ": > .git/info/exclude",
        "excludes-file": f": > {tmp_path / 'excludes'}",
        "add-force": "git add -f config.local.json",
    }
    return name, unignore.get(how, "printf 'x\\n' > .gitignore")


def outside(how: str, tmp_path: Path) -> dict[str, str]:
    return {os.fspath(tmp_path / "excludes"): "outside_workspace"} if how == "excludes-file" else {}


HOW = [
    "gitignore",
    "info-exclude",
    "excludes-file",
    "add-force",
    "nested-gitignore",
    "ignored-directory",
]


@pytest.mark.parametrize("how", HOW)
def test_an_ignored_file_git_sees_afterwards_is_not_created(
    how: str, ws: Path, tmp_path: Path, history: History
) -> None:
    name, unignore = ignored_by(how, ws, tmp_path)
    report = tracked(history, ws, f"{unignore} && printf n > fresh.txt")
    assert report.created == ["fresh.txt"]
    assert report.unreached == outside(how, tmp_path)
    assert name not in shell_notice(report)
    assert rewound(history).get("deleted") == ["fresh.txt"]
    assert (ws / name).read_bytes() == CONFIG
    assert not (ws / "fresh.txt").exists()


@pytest.mark.parametrize("how", HOW)
def test_an_ignored_file_changed_as_git_starts_seeing_it_rewinds(
    how: str, ws: Path, tmp_path: Path, history: History
) -> None:
    """Its bytes were kept before the command (issue 39): the change is the command's."""
    name, unignore = ignored_by(how, ws, tmp_path)
    report = tracked(history, ws, f"{unignore} && printf changed > {name}")
    assert (report.created, report.deleted) == ([], [])
    assert name in report.modified
    assert report.unreached == outside(how, tmp_path)
    assert rewound(history).get("restored", []).count(name) == 1
    assert (ws / name).read_bytes() == CONFIG


def test_a_walk_cut_short_never_creates_the_files_past_its_end(ws: Path, history: History) -> None:
    """Past the limit a new file is not told from an old one: none is created."""
    files = {f"f{i:02d}.txt": f"{i}\n".encode() for i in range(30)}
    write(ws, files)
    history.make_snapshot("t1")
    begin(history, "call", command="printf n > new.txt", cwd=ws, max_files=10)
    (ws / "new.txt").write_bytes(b"n")
    report = finish(history, "call")
    assert report is not None
    assert (report.created, report.modified, report.deleted) == ([], [], [])
    assert report.unreached == {".": "scan_cut_short"}
    assert shell_notice(report) == (
        "Waymark saw no file changes in the workspace from this command. Not rewindable "
        "(out of reach): . (in a folder too big to scan (file limit reached))."
    )
    assert rewound(history) == {}
    assert {p.name: p.read_bytes() for p in ws.iterdir()} == {**files, "new.txt": b"n"}


@pytest.fixture(params=["git", "plain"])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.mark.parametrize(
    ("first", "second", "through"),
    [
        ("a.txt", "b.txt", "b.txt"),
        ("a.txt", "b.txt", "a.txt"),
        ("a.txt", "sub/deeper/b.txt", "sub/deeper/b.txt"),
    ],
)
def test_a_write_through_one_name_of_a_hard_link_restores_both(
    kind: str, ws: Path, history: History, first: str, second: str, through: str
) -> None:
    files = {first: b"shared\r\n\xff", "k.txt": b"k\n"}
    if kind == "git":
        repo(ws, files)
    else:
        write(ws, files)
    (ws / second).parent.mkdir(parents=True, exist_ok=True)
    os.link(ws / first, ws / second)
    report = tracked(history, ws, f"printf more >> {through}")
    assert report.modified == sorted([first, second])
    assert (report.created, report.deleted, report.unreached) == ([], [], {})
    assert rewound(history) == {"restored": sorted([first, second])}
    assert (ws / first).read_bytes() == b"shared\r\n\xff"
    assert (ws / second).read_bytes() == b"shared\r\n\xff"
    assert (ws / "k.txt").read_bytes() == b"k\n"


def test_other_names_are_found_without_another_git_status(
    ws: Path, history: History, monkeypatch: pytest.MonkeyPatch, post_by: str
) -> None:
    """Watched, names git showed account for every link: git is not asked to scan the folder
    whole (as it is when a name may be a clean file, which no scan stat'ed)."""
    from waymark.store.shelltrack import scan

    repo(ws, {"a.txt": b"a\n"})
    write(ws, {"u.txt": b"u\n"})
    os.link(ws / "u.txt", ws / "u2.txt")
    history.make_snapshot("t1")
    begin(history, "call", command="printf b >> u.txt", cwd=ws)
    subprocess.run(["sh", "-c", "printf b >> u.txt"], cwd=ws, check=True, timeout=60)
    calls: list[str] = []
    real = scan.subprocess.run

    def run(argv: list[str], *args: object, **kwargs: object) -> object:
        calls.append(str(argv[1]))
        return real(argv, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(scan.subprocess, "run", run)
    report = finish(history, "call")
    assert report is not None
    assert (report.modified, report.unreached) == (["u.txt", "u2.txt"], {})
    assert calls.count("status") == (0 if post_by == "watch" else 1)
    assert rewound(history) == {"restored": ["u.txt", "u2.txt"]}
    assert [(ws / n).read_bytes() for n in ("u.txt", "u2.txt")] == [b"u\n", b"u\n"]

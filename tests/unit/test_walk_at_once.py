"""The one-call walk (openat2, waymark.store._nofollow) against the component walk it stands in
front of: the same directory reached, or the same refusal with the same component named, the
same directories made, over a tree with a symlink at every position of the path."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from collections.abc import Callable
from importlib import import_module
from pathlib import Path

import pytest

from waymark.store import walk as walks_module
from waymark.store.walk import Walks, split_path, walk

Outcome = tuple[object, ...]


def test_the_one_call_walk_is_built_and_used() -> None:
    assert walks_module.one_call_built() is not None, (
        "waymark.store._nofollow is not importable: install a C compiler and python3-dev, "
        "then reinstall (pip install -e .)"
    )
    absolute, dirs, _ = split_path(Path("/tmp/f.txt"), False)
    with walk(absolute, dirs):
        pass
    assert walks_module._one_call is walks_module.one_call_built(), "openat2 was refused"


def test_waymark_pure_python_leaves_the_component_walk_alone() -> None:
    code = "from waymark.store import walk; print(walk.one_call_built() is not None)"
    for value, expected in (("1", "False"), ("0", "True"), ("", "True")):
        env = {**os.environ, "WAYMARK_PURE_PYTHON": value}
        done = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
        )
        assert done.stdout.strip() == expected, (value, done.stderr)


def test_the_module_is_loaded_by_the_first_walk_not_by_an_import() -> None:
    # An in-process hook call imports the store whether or not it walks.
    code = (
        "import sys; from pathlib import Path; from waymark.store.walk import split_path, walk\n"
        "print('waymark.store._nofollow' in sys.modules)\n"
        "absolute, dirs, _ = split_path(Path('/tmp/f.txt'), False)\n"
        "with walk(absolute, dirs): pass\n"
        "print('waymark.store._nofollow' in sys.modules)\n"
    )
    env = {**os.environ, "WAYMARK_PURE_PYTHON": ""}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.stdout.split() == ["False", "True"], done.stderr


class _Calls:
    """The built opener, counting what it answered."""

    def __init__(self) -> None:
        # The module itself, whatever WAYMARK_PURE_PYTHON says (it only decides what walks use).
        self.opener = import_module("waymark.store._nofollow").open_dir
        self.opened = 0
        self.failed = 0

    def __call__(self, path: str, *dir_fd: int) -> int:
        try:
            fd = self.opener(path, *dir_fd)
        except OSError:
            self.failed += 1
            raise
        self.opened += 1
        return fd


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> _Calls:
    counting = _Calls()
    monkeypatch.setattr(walks_module, "_one_call", counting)
    return counting


def _tree(root: Path, outside: Path) -> None:
    (root / "real" / "sub").mkdir(parents=True)
    (root / "file").write_text("x")
    os.symlink(root / "real", root / "in_link")
    os.symlink("real", root / "relative_link")
    os.symlink(outside, root / "out_link")
    os.symlink(root / "nowhere", root / "dangling")
    os.symlink(root / "file", root / "file_link")
    os.symlink("..", root / "real" / "sub" / "up")


# Directories on the way to a file ``f.txt``, relative to the tree (absolute: as they are).
PATHS = [
    "real",
    "real/sub",
    # a symlink as the last directory, in the middle, to a directory inside and outside
    "in_link",
    "in_link/sub",
    "relative_link/sub",
    "out_link",
    "out_link/deeper",
    "real/sub/up",
    "real/sub/up/sub",
    # dangling, last and in the middle
    "dangling",
    "dangling/deeper",
    # missing components
    "missing",
    "missing/deeper/still",
    "real/missing",
    # a file where a directory is expected, and a symlink to one
    "file",
    "file/deeper",
    "file_link",
    "file_link/deeper",
    # `..` and `.` are normalized away before the walk; a NUL is refused as os.open does
    "real/../real/./sub",
    "real/a\x00b",
]
# A symlink as the first component (Debian's merged /usr) and /proc's links: `self` is a
# plain symlink, `cwd` and `root` are magic links, never followed either.
SYSTEM = [
    "/bin/sh-dir",
    "/proc/self/fd",
    f"/proc/{os.getpid()}/cwd",
    f"/proc/{os.getpid()}/root/tmp",
    "/proc/thread-self",
    "/",
]


def _directories(root: Path) -> set[str]:
    return {
        str(Path(top).relative_to(root) / name) for top, dirs, _ in os.walk(root) for name in dirs
    }


def _outcome(root: Path, relative: str, **options: object) -> Outcome:
    """What walking to ``relative/f.txt`` does, with the tree's root written ``<root>``."""
    target = relative if relative.startswith("/") else f"{root}/{relative}"
    path = target.rstrip("/") + "/f.txt"
    absolute, dirs, _ = split_path(Path(path), False)
    created: list[Path] = []
    try:
        with walk(absolute, dirs, created=created, **options) as fd:  # type: ignore[arg-type]
            answer: Outcome = ("reached", os.readlink(f"/proc/self/fd/{fd}"))
    except Exception as exc:
        details = getattr(exc, "details", None)
        answer = ("refused", type(exc).__name__, str(exc), details, getattr(exc, "errno", None))
    made = (tuple(str(p) for p in created), tuple(sorted(_directories(root))))
    return tuple(str(part).replace(str(root), "<root>") for part in (*answer, *made))


def _open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


def _both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: Callable[[Path], Outcome]
) -> tuple[Outcome, Outcome, _Calls]:
    """``run`` on the component walk and on the one-call walk, each in a fresh tree."""
    outside = tmp_path / "outside"
    (outside / "deeper").mkdir(parents=True)
    for index in range(2):
        root = tmp_path / f"tree{index}" / "root"
        _tree(root, outside)
    fast = _Calls()
    before = _open_fds()
    monkeypatch.setattr(walks_module, "_one_call", None)
    reference = run(tmp_path / "tree0" / "root")
    monkeypatch.setattr(walks_module, "_one_call", fast)
    tried = run(tmp_path / "tree1" / "root")
    assert _open_fds() == before, "a walk left a descriptor open"
    return reference, tried, fast


@pytest.mark.parametrize("relative", PATHS + SYSTEM)
@pytest.mark.parametrize("create", [False, True])
def test_the_one_call_walk_ends_as_the_component_walk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, relative: str, create: bool
) -> None:
    def run(root: Path) -> Outcome:
        # create=True makes the missing directories from the tree's root on, never above it.
        start = len(root.parts) - 1
        options = {"create": True, "create_from": start} if create else {}
        return _outcome(root, relative, **options)

    reference, tried, fast = _both(tmp_path, monkeypatch, run)
    assert tried == reference
    if "\x00" in relative:
        assert (fast.opened, fast.failed) == (0, 0)
    elif reference[0] == "reached" and reference[-2] == "()":
        # Reached in one call, nothing to make: the component walk never ran.
        assert (fast.opened, fast.failed) == (1, 0)
    else:
        assert (fast.opened, fast.failed) == (0, 1)


def test_the_one_call_walk_reaches_the_very_directory(tmp_path: Path, calls: _Calls) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    absolute, dirs, _ = split_path(tmp_path / "a" / "b" / "f.txt", False)
    with walk(absolute, dirs) as fd:
        assert os.stat(fd).st_ino == (tmp_path / "a" / "b").stat().st_ino
        flags = int(
            next(
                line.split()[1]
                for line in Path(f"/proc/self/fdinfo/{fd}").read_text().splitlines()
                if line.startswith("flags:")
            ),
            8,
        )
    assert flags & os.O_CLOEXEC and flags & os.O_PATH and flags & os.O_DIRECTORY
    assert (calls.opened, calls.failed) == (1, 0)


def test_a_path_longer_than_path_max_is_walked_by_components(tmp_path: Path, calls: _Calls) -> None:
    names = ["d" * 200] * 24  # past PATH_MAX (4096): the one call fails, each component fits
    fd = os.open(tmp_path, os.O_PATH | os.O_DIRECTORY)
    try:
        for name in names:
            os.mkdir(name, dir_fd=fd)
            child = os.open(name, os.O_PATH | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = child
        deepest = os.stat(fd).st_ino
    finally:
        os.close(fd)
    absolute, dirs, _ = split_path(Path(tmp_path, *names, "f.txt"), False)
    with walk(absolute, dirs) as reached:
        assert os.stat(reached).st_ino == deepest
    assert (calls.opened, calls.failed) == (0, 1)


@pytest.mark.parametrize("code", [errno.ENOSYS, errno.EPERM, errno.EINVAL, errno.E2BIG])
def test_a_refused_call_falls_back_and_is_not_asked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    asked: list[str] = []

    def refused(path: str, *dir_fd: int) -> int:
        asked.append(path)
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(walks_module, "_one_call", refused)
    (tmp_path / "a").mkdir()
    for _ in range(3):
        absolute, dirs, _ = split_path(tmp_path / "a" / "f.txt", False)
        with walk(absolute, dirs) as fd:
            assert os.stat(fd).st_ino == (tmp_path / "a").stat().st_ino
    assert len(asked) == 1
    assert walks_module._one_call is None


def test_a_failure_of_one_path_keeps_the_call_for_the_next(tmp_path: Path, calls: _Calls) -> None:
    (tmp_path / "real").mkdir()
    os.symlink(tmp_path / "real", tmp_path / "link")
    for name in ("link", "missing", "real"):
        absolute, dirs, _ = split_path(tmp_path / name / "f.txt", False)
        try:
            with walk(absolute, dirs):
                pass
        except Exception:
            pass
    assert (calls.opened, calls.failed) == (1, 2)
    assert walks_module._one_call is calls


# Files of one operation, in the order a rewind visits them: up and down the stack, through
# symlinks and missing directories, back to directories held before.
SEQUENCE = [
    "real/sub",
    "real/sub",
    "real",
    "real/sub/deep/er",
    "real/sub/deep",
    "in_link/sub",
    "real/sub/deep/er",
    "dangling",
    "real/missing/x",
    "file/deeper",
    "real/sub/up/sub",
    "out_link/deeper",
    "",
    "real/sub/deep",
]


def test_walks_reach_what_the_component_walks_reach(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def run(root: Path) -> Outcome:
        (root / "real" / "sub" / "deep" / "er").mkdir(parents=True)
        seen: list[object] = []
        with Walks() as walks:
            for relative in SEQUENCE:
                absolute, dirs, _ = split_path(root / relative / "f.txt", False)
                try:
                    fd = walks.directory(absolute, dirs)
                    seen.append(os.readlink(f"/proc/self/fd/{fd}"))
                except Exception as exc:
                    seen.append((type(exc).__name__, str(exc), getattr(exc, "details", None)))
        return tuple(str(item).replace(str(root), "<root>") for item in seen)

    reference, tried, fast = _both(tmp_path, monkeypatch, run)
    assert tried == reference
    assert fast.opened and fast.failed  # both the one call and its fallback ran

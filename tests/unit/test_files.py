"""Atomic writes, file state and temp-file sweeping (``waymark.files``)."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import xxhash

from waymark.engine.errors import FileNotFound, IoError, IsDirectory, PathOutsideWorkspace
from waymark.store import files

NOBODY = 65534


def temps_in(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.rglob("*") if files.TEMP_MARKER in p.name)


def require_root() -> None:
    if os.geteuid() != 0:
        pytest.fail("this test gives files to another owner and needs root (CI runs as root)")


# ---- atomic_write: content, mode, owner -------------------------------------------------


def test_atomic_write_creates_and_replaces_exact_bytes(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    files.atomic_write(target, b"one\r\n")
    assert target.read_bytes() == b"one\r\n"
    files.atomic_write(target, b"")
    assert target.read_bytes() == b""
    big = bytes(range(256)) * 40_000
    files.atomic_write(target, big)
    assert target.read_bytes() == big
    assert temps_in(tmp_path) == []


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o644, 0o755, 0o444, 0o4755, 0o2750, 0o1777])
def test_atomic_write_keeps_the_mode(tmp_path: Path, mode: int) -> None:
    target = tmp_path / "m.txt"
    target.write_bytes(b"old\n")
    os.chmod(target, mode)
    files.atomic_write(target, b"new\n")
    assert stat.S_IMODE(os.stat(target).st_mode) == mode
    assert target.read_bytes() == b"new\n"


@pytest.mark.parametrize("mode", [0o640, 0o4755, 0o2755, 0o6755])
def test_atomic_write_keeps_another_users_owner_and_mode(tmp_path: Path, mode: int) -> None:
    require_root()
    target = tmp_path / "theirs.txt"
    target.write_bytes(b"old\n")
    os.chown(target, NOBODY, NOBODY)
    os.chmod(target, mode)
    files.atomic_write(target, b"new\n")
    st = os.stat(target)
    assert (st.st_uid, st.st_gid) == (NOBODY, NOBODY)
    # chown clears set-id bits, so the writer must set the mode after giving the file away.
    assert stat.S_IMODE(st.st_mode) == mode
    assert target.read_bytes() == b"new\n"


def test_new_file_mode_honours_the_umask_in_force_at_import(tmp_path: Path) -> None:
    current = os.umask(0)
    os.umask(current)
    target = tmp_path / "new.txt"
    files.atomic_write(target, b"x")
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o666 & ~current


@pytest.mark.parametrize(("umask", "expected"), [(0o077, 0o600), (0o002, 0o664), (0o027, 0o640)])
def test_new_file_mode_honours_umask_in_a_fresh_process(
    tmp_path: Path, umask: int, expected: int
) -> None:
    target = tmp_path / "new.txt"
    code = (
        "import os, sys; from pathlib import Path; "
        f"os.umask({umask}); from waymark.store import files; "
        "files.atomic_write(Path(sys.argv[1]), b'x')"
    )
    subprocess.run([sys.executable, "-c", code, str(target)], check=True)
    assert stat.S_IMODE(os.stat(target).st_mode) == expected


def test_replace_gives_the_path_a_new_inode_so_hard_links_keep_the_old_bytes(
    tmp_path: Path,
) -> None:
    # The documented price of rename-based atomicity: a hard link is not written through.
    target = tmp_path / "a.txt"
    other = tmp_path / "b.txt"
    target.write_bytes(b"old\n")
    os.link(target, other)
    files.atomic_write(target, b"new\n")
    assert target.read_bytes() == b"new\n"
    assert other.read_bytes() == b"old\n"


# ---- symlinks ------------------------------------------------------------------------------


@pytest.mark.parametrize("relative", [True, False])
def test_write_through_a_symlink_keeps_the_link(tmp_path: Path, relative: bool) -> None:
    real = tmp_path / "real.txt"
    real.write_bytes(b"old\n")
    os.chmod(real, 0o640)
    link = tmp_path / "link.txt"
    link.symlink_to("real.txt" if relative else real)
    before = os.readlink(link)
    files.atomic_write(link, b"new\n", follow_links=True)
    assert link.is_symlink()
    assert os.readlink(link) == before
    assert real.read_bytes() == b"new\n"
    assert stat.S_IMODE(os.stat(real).st_mode) == 0o640
    assert temps_in(tmp_path) == []


def test_write_through_a_chain_of_links_into_another_directory(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    real = tmp_path / "b" / "real.txt"
    real.write_bytes(b"old\n")
    (tmp_path / "b" / "hop").symlink_to("real.txt")
    link = tmp_path / "a" / "link.txt"
    link.symlink_to("../b/hop")
    files.atomic_write(link, b"new\n", follow_links=True)
    assert real.read_bytes() == b"new\n"
    assert link.is_symlink() and (tmp_path / "b" / "hop").is_symlink()
    assert sorted(os.listdir(tmp_path / "a")) == ["link.txt"]
    assert sorted(os.listdir(tmp_path / "b")) == ["hop", "real.txt"]


def test_write_through_a_dangling_link_creates_its_target(tmp_path: Path) -> None:
    link = tmp_path / "link.txt"
    link.symlink_to("missing.txt")
    files.atomic_write(link, b"made\n", follow_links=True)
    assert link.is_symlink()
    assert (tmp_path / "missing.txt").read_bytes() == b"made\n"


# ---- failures leave nothing behind ----------------------------------------------------------


def test_atomic_write_to_a_directory_is_is_directory(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    with pytest.raises(IsDirectory) as info:
        files.atomic_write(tmp_path / "d", b"x")
    assert info.value.code == "is_directory"
    assert sorted(os.listdir(tmp_path)) == ["d"]
    assert os.listdir(tmp_path / "d") == []


def test_atomic_write_into_a_missing_directory_is_io_error_enoent(tmp_path: Path) -> None:
    with pytest.raises(IoError) as info:
        files.atomic_write(tmp_path / "nope" / "a.txt", b"x")
    assert info.value.code == "io_error"
    assert info.value.details["errno"] == "ENOENT"
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize(
    ("durability", "step"), [("sync", "fsync"), ("sync", "fchmod"), ("", "fchmod")]
)
def test_an_exception_mid_write_removes_the_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, durability: str, step: str
) -> None:
    target = tmp_path / "a.txt"
    target.write_bytes(b"old\n")

    def boom(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setenv("WAYMARK_DURABILITY", durability)
    monkeypatch.setattr(os, step, boom)
    with pytest.raises(KeyboardInterrupt):
        files.atomic_write(target, b"new\n")
    monkeypatch.undo()
    assert target.read_bytes() == b"old\n"
    assert sorted(os.listdir(tmp_path)) == ["a.txt"]


def test_create_parents(tmp_path: Path) -> None:
    target = tmp_path / "x" / "y" / "z.txt"
    files.create_parents(target)
    assert (tmp_path / "x" / "y").is_dir()
    (tmp_path / "file").write_bytes(b"")
    with pytest.raises(IoError) as info:
        files.create_parents(tmp_path / "file" / "sub" / "a.txt")
    assert info.value.details["errno"] in {"ENOTDIR", "EEXIST"}


# ---- read_state and identity by content -----------------------------------------------------


def test_read_state_of_an_absent_file(tmp_path: Path) -> None:
    state = files.read_state(tmp_path / "absent.txt")
    assert state == files.FileState(tmp_path / "absent.txt", None, None, None)
    assert not state.exists


def test_read_state_of_a_present_file(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_bytes(b"hello\n")
    state = files.read_state(target)
    st = os.stat(target)
    assert state.exists
    assert state.data == b"hello\n"
    assert state.digest == xxhash.xxh3_128_hexdigest(b"hello\n")
    assert state.stat == files.StatKey(st.st_dev, st.st_ino, 6, st.st_mtime_ns)


def test_read_state_of_a_directory_is_is_directory(tmp_path: Path) -> None:
    with pytest.raises(IsDirectory) as info:
        files.read_state(tmp_path)
    assert info.value.code == "is_directory"


def test_read_state_follows_a_link_only_when_asked(tmp_path: Path) -> None:
    (tmp_path / "real.txt").write_bytes(b"r\n")
    (tmp_path / "link").symlink_to("real.txt")
    assert files.read_state(tmp_path / "link", follow_links=True).data == b"r\n"
    with pytest.raises(PathOutsideWorkspace):
        files.read_state(tmp_path / "link")
    (tmp_path / "dangling").symlink_to("nowhere")
    assert not files.read_state(tmp_path / "dangling", follow_links=True).exists


def test_read_bytes_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFound) as missing:
        files.read_bytes(tmp_path / "absent")
    assert missing.value.code == "file_not_found"
    with pytest.raises(IsDirectory) as directory:
        files.read_bytes(tmp_path)
    assert directory.value.code == "is_directory"


def test_same_size_same_mtime_different_content_is_detected(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_bytes(b"version one\n")
    before = files.read_state(target)
    assert before.stat is not None
    # Rewrite in place (same inode), same length, then put the old mtime back: stat cannot
    # tell the difference, the digest must.
    with open(target, "r+b") as handle:
        handle.write(b"version two\n")
    os.utime(target, ns=(before.stat.mtime_ns, before.stat.mtime_ns))
    after = files.read_state(target)
    assert after.stat == before.stat
    assert after.digest != before.digest
    assert after.data == b"version two\n"


def test_digest_is_by_content_only(tmp_path: Path) -> None:
    a = tmp_path / "a"
    b = tmp_path / "b"
    a.write_bytes(b"same\n")
    b.write_bytes(b"same\n")
    os.utime(b, ns=(1, 1))
    assert files.read_state(a).digest == files.read_state(b).digest == files.digest(b"same\n")
    assert files.digest(b"a\n") != files.digest(b"a\r\n")
    assert len(files.digest(b"")) == 32


# ---- delete_file -----------------------------------------------------------------------


def test_delete_file_removes_the_link_not_the_target(tmp_path: Path) -> None:
    (tmp_path / "real.txt").write_bytes(b"keep\n")
    (tmp_path / "link").symlink_to("real.txt")
    files.delete_file(tmp_path / "link")
    assert sorted(os.listdir(tmp_path)) == ["real.txt"]
    assert (tmp_path / "real.txt").read_bytes() == b"keep\n"
    files.delete_file(tmp_path / "real.txt")
    assert os.listdir(tmp_path) == []
    files.delete_file(tmp_path / "real.txt")  # absent: nothing to do


def test_delete_file_on_a_directory_is_is_directory(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    with pytest.raises(IsDirectory) as info:
        files.delete_file(tmp_path / "d")
    assert info.value.code == "is_directory"
    assert (tmp_path / "d").is_dir()


# ---- sweep_temp_files ------------------------------------------------------------------


def test_sweep_removes_crash_leftovers_and_nothing_else(tmp_path: Path) -> None:
    leftovers = [
        tmp_path / ".a.txt.waymark-tmp-0a1b2c3d",
        tmp_path / "sub" / ".b.py.waymark-tmp-deadbeef",
        tmp_path / "sub" / "deep" / ".c.waymark-tmp-00000000",
    ]
    keep = [
        tmp_path / "a.txt",
        tmp_path / "notes.waymark-tmp-1",  # not hidden: not one of ours
        tmp_path / ".hidden",
        tmp_path / ".git" / ".x.waymark-tmp-1",  # never walked into
        tmp_path / "node_modules" / ".y.waymark-tmp-1",
    ]
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    (outside / ".z.waymark-tmp-1").write_bytes(b"")
    (tmp_path / "linked-dir").parent.mkdir(exist_ok=True)
    (tmp_path / "linked-dir").symlink_to(outside)  # links are not followed
    for path in leftovers + keep:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"partial")
    removed = files.sweep_temp_files(tmp_path)
    assert sorted(removed) == sorted(leftovers)
    for path in leftovers:
        assert not path.exists()
    for path in keep:
        assert path.read_bytes() == b"partial"
    assert (outside / ".z.waymark-tmp-1").exists()
    assert files.sweep_temp_files(tmp_path) == []


def test_sweep_non_recursive_stays_at_the_top(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    top = tmp_path / ".a.waymark-tmp-1"
    low = tmp_path / "sub" / ".b.waymark-tmp-1"
    top.write_bytes(b"")
    low.write_bytes(b"")
    assert files.sweep_temp_files(tmp_path, recursive=False) == [top]
    assert low.exists()


def test_sweep_of_a_missing_root_is_empty(tmp_path: Path) -> None:
    assert files.sweep_temp_files(tmp_path / "absent") == []


def test_temp_names_never_repeat_in_a_process_nor_across_a_fork() -> None:
    """Temp names count on from a random start (one getrandom per process): a process's
    names are all distinct, a forked child draws a start of its own, and each name keeps
    the ``.NAME.waymark-tmp-XXXXXXXX`` shape the start-up sweep removes."""
    shape = re.compile(r"\.f\.txt\.waymark-tmp-[0-9a-f]{8}\Z")
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(read_end)
        os.write(write_end, "\n".join(files._temp_name("f.txt") for _ in range(1000)).encode())
        os._exit(0)
    os.close(write_end)
    mine = [files._temp_name("f.txt") for _ in range(1000)]
    with os.fdopen(read_end, "rb") as pipe:
        theirs = pipe.read().decode().split("\n")
    assert os.waitpid(child, 0)[1] == 0
    assert len(set(mine)) == len(mine) == len(theirs) == len(set(theirs))
    assert not set(mine) & set(theirs)
    assert all(shape.match(name) for name in mine + theirs)

"""The workspace path policy (``waymark.workspace``).

Symlinks are made here, in temp dirs, rather than committed: git and Windows checkouts
mangle them. Every refusal asserts the exact error code and that nothing on disk changed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers_foundation import tree_snapshot

from waymark.engine.errors import WaymarkError
from waymark.store import files
from waymark.store.workspace import DEFAULT_PROTECTED, Workspace, glob_regex, matches_glob


@pytest.fixture
def layout(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """A workspace folder ``ws`` and a sibling ``outside`` with a secret in it."""
    ws = tmp_path / "ws"
    outside = tmp_path / "outside"
    for d in (ws / "src", ws / ".git", ws / "sub" / ".git", ws / "node_modules" / "x", outside):
        d.mkdir(parents=True)
    (ws / "src" / "main.py").write_bytes(b"print('hi')\n")
    (ws / ".git" / "config").write_bytes(b"[core]\n")
    (ws / "sub" / ".git" / "config").write_bytes(b"[core]\n")
    (ws / ".env").write_bytes(b"TOKEN=1\n")
    (ws / "node_modules" / "x" / "index.js").write_bytes(b"module.exports = 1\n")
    (outside / "secret.txt").write_bytes(b"secret\n")
    # A sibling whose name starts with the folder's: a string-prefix check would let it in.
    (tmp_path / "ws-evil").mkdir()
    (tmp_path / "ws-evil" / "x.txt").write_bytes(b"evil\n")
    yield ws, outside


def workspace(*folders: Path, **kwargs: object) -> Workspace:
    ws = Workspace(**kwargs)  # type: ignore[arg-type]
    ws.set_folders(folders)
    return ws


def refused(ws: Workspace, path: str, code: str, root: Path) -> WaymarkError:
    before = tree_snapshot(root)
    with pytest.raises(WaymarkError) as info:
        ws.check_readable(ws.resolve(path))
    assert info.value.code == code, info.value.message
    assert info.value.to_result()["error"] == code
    assert tree_snapshot(root) == before
    return info.value


# ---- escapes ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "../outside/secret.txt",
        "src/../../outside/secret.txt",
        "./../ws-evil/x.txt",
        "..",
        "../../../../../../etc/passwd",
    ],
)
def test_dotdot_escapes_are_outside(layout: tuple[Path, Path], path: str) -> None:
    ws_dir, _ = layout
    err = refused(workspace(ws_dir), path, "path_outside_workspace", ws_dir.parent)
    assert err.details["path"] == path


def test_absolute_paths_outside_are_refused(layout: tuple[Path, Path]) -> None:
    ws_dir, outside = layout
    ws = workspace(ws_dir)
    for path in ("/etc/passwd", str(outside / "secret.txt"), str(ws_dir.parent / "ws-evil/x.txt")):
        err = refused(ws, path, "path_outside_workspace", ws_dir.parent)
        assert err.details["resolved"] == os.path.realpath(path)


def test_symlink_to_a_file_outside_is_refused(layout: tuple[Path, Path]) -> None:
    ws_dir, outside = layout
    (ws_dir / "escape.txt").symlink_to(outside / "secret.txt")
    (ws_dir / "rel-escape.txt").symlink_to("../outside/secret.txt")
    (ws_dir / "dangling-out").symlink_to(outside / "not-yet.txt")
    ws = workspace(ws_dir)
    for path in ("escape.txt", "rel-escape.txt", str(ws_dir / "escape.txt"), "dangling-out"):
        refused(ws, path, "path_outside_workspace", ws_dir.parent)
    assert (outside / "secret.txt").read_bytes() == b"secret\n"
    assert not (outside / "not-yet.txt").exists()


def test_symlinked_directory_escape_is_refused(layout: tuple[Path, Path]) -> None:
    ws_dir, outside = layout
    (ws_dir / "src" / "vendor").symlink_to(outside, target_is_directory=True)
    refused(workspace(ws_dir), "src/vendor/secret.txt", "path_outside_workspace", ws_dir.parent)


def test_no_folders_means_everything_is_outside(tmp_path: Path) -> None:
    refused(Workspace(), str(tmp_path), "path_outside_workspace", tmp_path)


# ---- protected globs ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "pattern"),
    [
        (".git/config", ".git/**"),
        (".git", ".git/**"),
        ("sub/.git/config", ".git/**"),
        (".ssh/id_ed25519", ".ssh/**"),
        ("home/.gnupg/pubring.kbx", ".gnupg/**"),
        (".env", "**/.env"),
        ("deploy/prod/.env", "**/.env"),
        ("node_modules/x/index.js", "node_modules/**"),
        ("web/node_modules/pkg/index.js", "node_modules/**"),
    ],
)
def test_default_protected_globs(layout: tuple[Path, Path], path: str, pattern: str) -> None:
    ws_dir, _ = layout
    err = refused(workspace(ws_dir), path, "protected_path", ws_dir.parent)
    assert err.details == {"path": path, "pattern": pattern}


@pytest.mark.parametrize(
    "path",
    [
        ".gitignore",
        ".github/workflows/ci.yml",
        "git/config",
        "my.git/config",
        ".env.example",
        ".envrc",
        "config/.env.local",
        "node_modules_backup/x.js",
        "src/ssh/key",
    ],
)
def test_near_misses_are_not_protected(layout: tuple[Path, Path], path: str) -> None:
    ws_dir, _ = layout
    resolved = workspace(ws_dir).resolve(path)
    assert resolved.display == path
    assert resolved.real == ws_dir / path


def test_default_protected_matches_the_contract() -> None:
    assert DEFAULT_PROTECTED == (".git/**", ".ssh/**", ".gnupg/**", "**/.env", "node_modules/**")


def test_symlink_inside_to_a_protected_target_is_refused(layout: tuple[Path, Path]) -> None:
    ws_dir, _ = layout
    (ws_dir / "notes").symlink_to(".git/config")
    (ws_dir / "src" / "settings").symlink_to("../.env")
    (ws_dir / "dotgit").symlink_to(".git", target_is_directory=True)
    ws = workspace(ws_dir)
    assert refused(ws, "notes", "protected_path", ws_dir.parent).details["pattern"] == ".git/**"
    assert refused(ws, "src/settings", "protected_path", ws_dir.parent).details["pattern"] == (
        "**/.env"
    )
    refused(ws, "dotgit/config", "protected_path", ws_dir.parent)


def test_a_protected_spelling_of_an_innocent_file_is_refused(layout: tuple[Path, Path]) -> None:
    ws_dir, _ = layout
    (ws_dir / "conf").mkdir()
    (ws_dir / "conf" / ".env").symlink_to("../src/main.py")
    refused(workspace(ws_dir), "conf/.env", "protected_path", ws_dir.parent)


def test_anchored_glob_matches_only_at_the_root(layout: tuple[Path, Path]) -> None:
    ws_dir, _ = layout
    ws = workspace(ws_dir, protected=("/build/**", "*.pem"))
    refused(ws, "build/out.js", "protected_path", ws_dir.parent)
    refused(ws, "build", "protected_path", ws_dir.parent)
    assert ws.resolve("src/build/out.js").display == "src/build/out.js"
    refused(ws, "keys/deep/server.pem", "protected_path", ws_dir.parent)
    # Custom globs replace the defaults.
    assert ws.resolve(".git/config").display == ".git/config"


@pytest.mark.parametrize(
    ("pattern", "path", "hit"),
    [
        ("*.pem", "a.pem", True),
        ("*.pem", "a/b/c.pem", True),
        ("*.pem", "a.pem/x", False),
        ("docs/*.md", "docs/a.md", True),
        ("docs/*.md", "x/docs/a.md", True),
        ("docs/*.md", "docs/sub/a.md", False),
        ("/docs/*.md", "x/docs/a.md", False),
        ("?.txt", "a.txt", True),
        ("?.txt", "ab.txt", False),
        ("?.txt", "/.txt", False),
        ("a/**/b", "a/b", True),
        ("a/**/b", "a/x/y/b", True),
        ("a/**/b", "a/x/y/bc", False),
        ("**", "anything/at/all", True),
        ("secrets/**", "secrets", True),
        ("secrets/**", "secretsx", False),
        ("a+b(c)[d].txt", "a+b(c)[d].txt", True),
        ("a+b(c)[d].txt", "aab(c)d.txt", False),
    ],
)
def test_glob_semantics(pattern: str, path: str, hit: bool) -> None:
    assert bool(glob_regex(pattern).match(path)) is hit
    assert (matches_glob(path, [pattern]) == pattern) is hit


# ---- allowed paths ------------------------------------------------------------------------


def test_relative_paths_resolve_against_the_first_folder(layout: tuple[Path, Path]) -> None:
    ws_dir, outside = layout
    ws = workspace(ws_dir, outside)
    resolved = ws.resolve("src/main.py")
    assert resolved.real == ws_dir / "src" / "main.py"
    assert resolved.lexical == ws_dir / "src" / "main.py"
    assert resolved.folder == ws_dir
    assert resolved.display == "src/main.py"
    assert ws.resolve("./src//../src/main.py").real == ws_dir / "src" / "main.py"
    assert ws.check_readable(resolved) == len(b"print('hi')\n")
    # `base` overrides the folder relative paths start from.
    assert ws.resolve("main.py", base=ws_dir / "src").real == ws_dir / "src" / "main.py"


def test_multiple_folders(layout: tuple[Path, Path]) -> None:
    ws_dir, outside = layout
    ws = workspace(ws_dir, outside)
    second = ws.resolve(str(outside / "secret.txt"))
    assert (second.folder, second.display) == (outside, "secret.txt")
    # Relative paths never search the other folders.
    refused(ws, "secret.txt", "file_not_found", ws_dir.parent)
    # A link from one folder into another is inside the workspace.
    (ws_dir / "to-second").symlink_to(outside / "secret.txt")
    crossed = ws.resolve("to-second")
    assert (crossed.folder, crossed.display, crossed.real) == (
        outside,
        "secret.txt",
        outside / "secret.txt",
    )


def test_nested_folders_pick_the_most_specific(layout: tuple[Path, Path]) -> None:
    ws_dir, _ = layout
    ws = workspace(ws_dir, ws_dir / "src")
    resolved = ws.resolve("src/main.py")
    assert (resolved.folder, resolved.display) == (ws_dir / "src", "main.py")


def test_folder_given_through_a_symlink(layout: tuple[Path, Path]) -> None:
    ws_dir, _ = layout
    alias = ws_dir.parent / "alias"
    alias.symlink_to(ws_dir, target_is_directory=True)
    for ws in (workspace(alias), Workspace(folders=[alias])):
        resolved = ws.resolve(str(alias / "src" / "main.py"))
        assert (resolved.real, resolved.display) == (ws_dir / "src" / "main.py", "src/main.py")
        assert ws.resolve("src/main.py").real == ws_dir / "src" / "main.py"
        refused(ws, str(alias / ".git" / "config"), "protected_path", ws_dir.parent)


def test_symlink_to_a_file_inside_resolves_to_and_writes_the_target(
    layout: tuple[Path, Path],
) -> None:
    ws_dir, _ = layout
    link = ws_dir / "main-link.py"
    link.symlink_to("src/main.py")
    ws = workspace(ws_dir)
    resolved = ws.resolve("main-link.py")
    assert resolved.real == ws_dir / "src" / "main.py"
    assert resolved.lexical == link
    assert resolved.display == "src/main.py"
    files.atomic_write(resolved.real, b"print('bye')\n")
    assert link.is_symlink() and os.readlink(link) == "src/main.py"
    assert (ws_dir / "src" / "main.py").read_bytes() == b"print('bye')\n"


def test_a_missing_file_inside_resolves(layout: tuple[Path, Path]) -> None:
    ws_dir, _ = layout
    resolved = workspace(ws_dir).resolve("src/new/file.py")
    assert resolved.real == ws_dir / "src" / "new" / "file.py"


def test_tilde_expands_to_home(layout: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    ws_dir, _ = layout
    monkeypatch.setenv("HOME", str(ws_dir))
    assert workspace(ws_dir).resolve("~/src/main.py").real == ws_dir / "src" / "main.py"
    monkeypatch.setenv("HOME", str(ws_dir.parent / "outside"))
    refused(workspace(ws_dir), "~/secret.txt", "path_outside_workspace", ws_dir.parent)


# ---- check_readable -----------------------------------------------------------------------


def test_directory_is_is_directory(layout: tuple[Path, Path]) -> None:
    ws_dir, _ = layout
    ws = workspace(ws_dir)
    for path in ("src", ".", str(ws_dir), "src/"):
        assert refused(ws, path, "is_directory", ws_dir.parent).details["path"] in {"src", "."}


def test_missing_file_is_file_not_found(layout: tuple[Path, Path]) -> None:
    ws_dir, _ = layout
    (ws_dir / "dangling").symlink_to("nowhere.txt")
    ws = workspace(ws_dir)
    assert refused(ws, "src/nope.py", "file_not_found", ws_dir.parent).details == {
        "path": "src/nope.py"
    }
    refused(ws, "dangling", "file_not_found", ws_dir.parent)


def test_file_too_large_with_a_small_limit(layout: tuple[Path, Path]) -> None:
    ws_dir, _ = layout
    (ws_dir / "big.txt").write_bytes(b"x" * 11)
    (ws_dir / "limit.txt").write_bytes(b"x" * 10)
    ws = workspace(ws_dir, max_file_size=10)
    err = refused(ws, "big.txt", "file_too_large", ws_dir.parent)
    assert err.details == {"path": "big.txt", "size": 11, "limit": 10}
    assert ws.check_readable(ws.resolve("limit.txt")) == 10


def test_default_size_limit_is_20_mb() -> None:
    assert Workspace().max_file_size == 20 * 1024 * 1024


def test_symlink_loop_is_an_io_error(layout: tuple[Path, Path]) -> None:
    ws_dir, _ = layout
    (ws_dir / "loop-a").symlink_to("loop-b")
    (ws_dir / "loop-b").symlink_to("loop-a")
    err = refused(workspace(ws_dir), "loop-a", "io_error", ws_dir.parent)
    assert err.details["errno"] == "ELOOP"


# ---- bad params ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["", "   ", "a\x00b", None, 3])
def test_bad_path_params_are_invalid_params(layout: tuple[Path, Path], path: object) -> None:
    ws_dir, _ = layout
    before = tree_snapshot(ws_dir.parent)
    with pytest.raises(WaymarkError) as info:
        workspace(ws_dir).resolve(path)  # type: ignore[arg-type]
    assert info.value.code == "invalid_params"
    assert info.value.details == {"field": "path"}
    assert tree_snapshot(ws_dir.parent) == before

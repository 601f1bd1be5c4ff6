"""``Workspace.resolve`` works on strings until its kept policy answer (issue 43): for every
spelling it must answer what the Path-based resolution answered, refusals included."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from waymark.engine.errors import WaymarkError
from waymark.store import workspace as ws_module
from waymark.store.workspace import ResolvedPath, Workspace


def _path_based(ws: Workspace, path: str, base: Path | None) -> ResolvedPath:
    """The resolution as it was written with Path objects (after the same argument checks)."""
    candidate = Path(os.path.expanduser(path) if path.startswith("~") else path)
    if not candidate.is_absolute():
        candidate = (base or ws.folders[0]) / candidate
    lexical = ws_module._as_the_kernel_walks(candidate, path)
    real = Path(os.path.realpath(lexical))
    folder = ws_module._folder_of(real, tuple(ws.folders))
    if folder is None:
        raise AssertionError("outside")
    display = real.relative_to(folder).as_posix()
    for relative in {display, ws_module._relative_spelling(lexical, tuple(ws.folders))} - {None}:
        assert relative is not None
        if ws_module.matches_glob(relative, ws.protected) is not None:
            raise AssertionError("protected")
    return ResolvedPath(display=display, lexical=lexical, real=real, folder=folder)


def _answer(call) -> object:
    try:
        return call()
    except WaymarkError as exc:
        return (exc.code, str(exc))
    except AssertionError as exc:
        return str(exc)


SPELLINGS = [
    "a.txt",
    "./a.txt",
    "sub/b.txt",
    "sub//b.txt",
    "sub/./b.txt",
    "sub/",
    "sub/../a.txt",
    "link/b.txt",
    "link/../a.txt",
    "lib/../config.txt",
    "sub/../../outside.txt",
    "a.txt/../a.txt",
    "to_a",
    "to_out",
    ".git/config",
    "sub/.env",
    "new/dir/c.txt",
    ".",
    "..",
]


@pytest.mark.parametrize("spelled", SPELLINGS)
@pytest.mark.parametrize("based", [False, True])
def test_resolve_answers_as_the_path_based_resolution(
    tmp_path: Path, spelled: str, based: bool
) -> None:
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (root / "vendor" / "pkg" / "lib").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "a.txt").write_text("a\n")
    (root / "sub" / "b.txt").write_text("b\n")
    (root / "vendor" / "pkg" / "config.txt").write_text("c\n")
    (root / "link").symlink_to("sub")
    (root / "lib").symlink_to("vendor/pkg/lib")
    (root / "to_a").symlink_to("a.txt")
    (tmp_path / "outside.txt").write_text("o\n")
    (root / "to_out").symlink_to(tmp_path / "outside.txt")
    ws = Workspace([root])
    base = root / "sub" if based else None
    for path in (spelled, str(root / spelled)):
        got = _answer(lambda: ws.resolve(path, base=base))  # noqa: B023
        want = _answer(lambda: _path_based(ws, path, base))  # noqa: B023
        if isinstance(want, str):  # a refusal: the same kind, the contract's own wording
            assert isinstance(got, tuple), (path, got)
            assert (
                got[0] == {"outside": "path_outside_workspace", "protected": "protected_path"}[want]
            ), (path, got)
        else:
            assert got == want, path

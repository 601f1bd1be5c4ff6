"""Which folder a hook may treat as the project: never one whose tracking would harm.

A shell hook scans and backs up its whole workspace, and a rewind deletes or restores what
it recorded there. Taken as ``/``, ``$HOME`` or ``/tmp``, that is every file of the machine
or of the user, and other processes' changes recorded as the command's. So a hook acts only
on a trusted folder:

- the host's project-dir variable (``Host.project_env``), unless it names a folder refused
  below;
- else the nearest folder from the hook's ``cwd`` upward holding a project marker
  (:data:`MARKERS`), the search stopping at the first refused folder (so ``~/.git`` of a
  dotfiles repository never makes all of ``$HOME`` the project).

Refused always: ``/``, ``$HOME`` and every folder above it, the temp directory
(``$TMPDIR``) and the system's top-level folders (:data:`SYSTEM_DIRS`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from waymark.doors.hosts import Host

# What a project's root holds: version control, Waymark's and the hosts' project config,
# and the manifests of common toolchains.
MARKERS = (
    ".git",
    ".hg",
    ".svn",
    ".jj",
    ".waymark",
    ".claude",
    ".qwen",
    ".codex",
    ".gemini",
    ".opencode",
    "opencode.json",
    ".clinerules",
    ".mcp.json",
    "pyproject.toml",
    "package.json",
    "Cargo.toml",
    "go.mod",
)

SYSTEM_DIRS = frozenset(
    Path(p)
    for p in (
        "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/media", "/mnt",
        "/opt", "/proc", "/root", "/run", "/sbin", "/srv", "/sys", "/tmp", "/usr", "/var",
        "/var/tmp", "/Applications", "/Library", "/System", "/Users", "/Volumes", "/private",
        "/private/tmp", "/private/var",
    )
)  # fmt: skip


class UntrustedWorkspace(Exception):
    """The hook found no folder it may track; the message says which and why."""


def _refused(folder: Path, home: Path, temp: Path | None) -> bool:
    refused = {home, *home.parents, *SYSTEM_DIRS}
    return folder in refused or folder == temp or folder.parent == folder


def trusted_root(host: Host, cwd: str, environ: Mapping[str, str] = os.environ) -> Path:
    """The project folder the hook works in (real path), or :class:`UntrustedWorkspace`."""
    home = Path(os.path.realpath(environ.get("HOME") or os.path.expanduser("~")))
    temp = Path(os.path.realpath(environ["TMPDIR"])) if environ.get("TMPDIR") else None
    named = next(((v, environ[v]) for v in host.project_env if environ.get(v)), None)
    if named is not None:
        variable, value = named
        folder = Path(os.path.realpath(value))
        if not folder.is_dir():
            raise UntrustedWorkspace(f"{variable}={value} is not a directory")
        if _refused(folder, home, temp):
            raise UntrustedWorkspace(
                f"{variable}={value} is the root, the home directory or a system directory"
            )
        return folder
    start = Path(os.path.realpath(cwd))
    for folder in [start, *start.parents]:
        if _refused(folder, home, temp):
            break
        if any(os.path.lexists(folder / marker) for marker in MARKERS):
            return folder
    return _no_project(start, home, temp, host)


def _no_project(start: Path, home: Path, temp: Path | None, host: Host) -> Path:
    variables = " or ".join(host.project_env) or "a project directory"
    if _refused(start, home, temp):
        raise UntrustedWorkspace(
            f"the hook runs in {start}, the root, the home directory or a system directory, "
            f"and the host set no {variables}"
        )
    raise UntrustedWorkspace(
        f"{start} is in no project (no .git, pyproject.toml, package.json or other marker "
        f"up to the home directory) and the host set no {variables}"
    )


def refused_folder(folder: Path, environ: Mapping[str, str] = os.environ) -> bool:
    """Whether ``folder`` (a real path) is one no door may track whole: the root, ``$HOME``
    or above it, the temp directory, a system folder."""
    home = Path(os.path.realpath(environ.get("HOME") or os.path.expanduser("~")))
    temp = Path(os.path.realpath(environ["TMPDIR"])) if environ.get("TMPDIR") else None
    return _refused(folder, home, temp)

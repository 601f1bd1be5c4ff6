"""A command's Pre scan of a git work tree, from the last Pre's and what a watch saw since.

Every Pre asks ``git status`` of the whole tree: anything may have changed between two
commands. In a resident process (the hook server) whose watch (:mod:`.watch`) has seen the
folder without a break since the last Pre's scan, the tree changed only where inotify
reported, so git is asked about those paths alone and the rest of the last answer stands:
what git said clean is still its index's bytes, what it listed is listed again.

Whenever the two answers could differ, the tree is scanned whole: the watch cannot vouch
(see :mod:`.watch`, including what inotify never sees); git's own files changed (the index,
HEAD and its branch, ``.git/config``, ``.git/info``'s rules, the user's and the system's
config and ignore files: none is in the watched tree, so each is stamped); a rule file
(``.gitignore``, ``.gitattributes``, ``.gitmodules``) or a directory was touched; a touched
file has other names (a write through a hard link names only the path written); the
environment's git variables changed; or the last scan found repositories inside or places
it could not look into.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import NamedTuple

from waymark.store.shelltrack import ignored, watch
from waymark.store.shelltrack.scan import (
    FolderScan,
    GitUnavailable,
    Signature,
    lstat_signature,
    scan_git,
    signature,
)

_RULE_FILES = frozenset({".gitignore", ".gitattributes", ".gitmodules"})
# File systems whose every change reaches inotify: written only through this kernel. A
# network or FUSE file system may change under it without an event.
_LOCAL_FILE_SYSTEMS = frozenset(
    {"ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", "overlay", "zfs", "f2fs", "bcachefs", "jfs"}
)


class _Last(NamedTuple):
    """A folder's last Pre scan as git answered it (before the ignored files were expanded),
    the watch's token armed before it, and git's files as they were then."""

    scan: FolderScan
    token: list[object]
    stamps: tuple[object, ...]


# Per folder, the newest last; as many as the watch keeps folders.
_LAST: dict[str, _Last] = {}
# Per folder, what the last Pre found under the directories git ignores, and the token of
# the scan it expanded.
_WALKED: dict[str, tuple[list[object], dict[str, ignored.Walked]]] = {}


def scan(folder: Path, index: Path, token: list[object] | None) -> FolderScan:
    """git's view of ``folder``, the top level of an ordinary repository whose index is
    ``index``, with what git ignores: the last one brought up to date when it can be.
    ``token``: the watch armed on ``folder`` just before (None: not watched)."""
    key = os.fspath(folder)
    stamps = _stamps(folder, index)  # before git is asked: a change after it is seen next time
    last = _LAST.pop(key, None)
    result = None
    watched = token is not None and local_file_system(folder)
    if last is not None and watched and last.stamps == stamps:
        result = _brought_up_to_date(last, folder, index)
    if result is None:
        result = scan_git(folder, folder, index, ignored=True)
    if token is not None and not result.nested and not result.unscanned:
        _LAST[key] = _Last(_copy(result), token, stamps)
        while len(_LAST) > watch.MAX_FOLDERS:
            _LAST.pop(next(iter(_LAST)))
    return result


def expand(scan: FolderScan, budget: int) -> ignored.Ignored:
    """:func:`.ignored.expand` of ``scan``'s ignored entries, taking again what the last
    Pre found in a directory where nothing was touched since."""
    key = os.fspath(scan.scope)
    earlier = _WALKED.pop(key, None)
    since = scan.since
    last = _LAST.get(key)
    usable = since is not None and earlier is not None and earlier[0] == since[0]
    walked = earlier[1] if usable and earlier is not None else {}
    touched = since[1] if since is not None else set()

    def unchanged(top: str) -> ignored.Walked | None:
        inside = top + "/"
        if top not in walked or top in touched or any(p.startswith(inside) for p in touched):
            return None
        return walked[top]

    kept = ignored.expand(scan.root, scan.ignored, budget, unchanged)
    if last is not None and scan.root == scan.scope:
        _WALKED[key] = (last.token, kept.walked)
        while len(_WALKED) > watch.MAX_FOLDERS:
            _WALKED.pop(next(iter(_WALKED)))
    return kept


def _brought_up_to_date(last: _Last, folder: Path, index: Path) -> FolderScan | None:
    """The last scan with git's answer for the paths touched since, or None: scan it all."""
    watches = watch.active()
    touched = watches.touched(last.token) if watches is not None else None
    if touched is None or touched.directories:
        return None
    if any(p.rpartition("/")[2] in _RULE_FILES for p in touched.paths):
        return None
    before = last.scan
    # What lies in a directory git ignores is not listed (the directory is, and expanded).
    covered = tuple(d for d in before.ignored if d.endswith("/"))
    listed = set(before.ignored)
    known: dict[str, Signature] = {}
    asked: list[str] = []
    gone: set[str] = set()
    for rel in sorted(touched.paths):
        ignored = bool(covered and rel.startswith(covered)) or rel in listed
        try:
            st = os.lstat(os.path.join(folder, rel))
        except FileNotFoundError:
            if rel in listed:
                gone.add(rel)
            elif not ignored:
                asked.append(rel)  # git says whether it was tracked (listed deleted) or not
            continue
        except OSError:
            return None
        if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
            return None
        if ignored:
            continue  # ignored before, ignored still: the rules did not change
        if rel in before.dirty:
            # Listed before, listed still: changed since its index entry (it may have gone
            # back to those bytes; a copy of it then costs only the copy).
            known[rel] = signature(st)
        else:
            asked.append(rel)
    for rel, sig in before.dirty.items():
        if rel in touched.paths:
            continue
        # A file git listed may have changed where inotify does not see (a write through a
        # shared mapping): its stat is taken again, as a whole scan would.
        now = lstat_signature(folder / rel)
        if now is None:
            if sig is not None:
                asked.append(rel)
        elif now != sig:
            known[rel] = now
    if asked:
        try:
            fresh = scan_git(folder, folder, index, sorted(asked), ignored=True)
        except GitUnavailable:
            return None
        if fresh.nested or fresh.unscanned:
            return None
    else:
        fresh = FolderScan(folder, True, folder, index=index, index_sig=lstat_signature(index))
    fresh.dirty.update(known)
    gone.update(asked)
    fresh.dirty = {
        **{rel: sig for rel, sig in before.dirty.items() if rel not in gone},
        **fresh.dirty,
    }
    kept = [rel for rel in before.ignored if rel not in gone]
    # git lists what it ignores in byte order.
    fresh.ignored = sorted({*kept, *fresh.ignored}, key=os.fsencode)
    fresh.since = (last.token, set(touched.paths))
    return fresh


def local_file_system(folder: Path) -> bool:
    """Whether ``folder`` is on a local file system (the mount holding it, from the kernel's
    table)."""
    try:
        with open("/proc/self/mountinfo", "rb") as handle:
            table = handle.read().decode("utf-8", "surrogateescape")
    except OSError:
        return False
    path = os.fspath(folder)
    best, kind = "", ""
    for line in table.splitlines():
        mount, _, fs = line.partition(" - ")
        fields = mount.split(" ")
        if len(fields) < 5 or not fs:
            continue
        point = fields[4].replace("\\040", " ").replace("\\011", "\t").replace("\\134", "\\")
        inside = path == point or path.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best):
            best, kind = point, fs.split(" ")[0]
    return kind in _LOCAL_FILE_SYSTEMS


def _copy(result: FolderScan) -> FolderScan:
    """What git answered, kept apart from the scan the Pre goes on to fill in."""
    return FolderScan(
        result.root,
        result.git,
        result.scope,
        dirty=dict(result.dirty),
        index=result.index,
        index_sig=result.index_sig,
        ignored=list(result.ignored),
    )


def _stamps(folder: Path, index: Path) -> tuple[object, ...]:
    """What git's answer depends on besides the watched tree."""
    dot_git = folder / ".git"
    try:
        head = (dot_git / "HEAD").read_bytes()
    except OSError:
        head = b""
    ref = head[5:].strip() if head.startswith(b"ref: ") else b""
    files = [
        os.fspath(index),
        os.fspath(dot_git / "config"),
        os.fspath(dot_git / "packed-refs"),
        os.fspath(dot_git / "info" / "exclude"),
        os.fspath(dot_git / "info" / "attributes"),
        "/etc/gitconfig",
    ]
    # Without HOME git reads no config of the user's (nor XDG_CONFIG_HOME's when relative).
    home = os.environ.get("HOME", "")
    config_home = os.environ.get("XDG_CONFIG_HOME", "")
    if not os.path.isabs(config_home) and os.path.isabs(home):
        config_home = os.path.join(home, ".config")
    if os.path.isabs(home):
        files.append(os.path.join(home, ".gitconfig"))
    if os.path.isabs(config_home):
        files += [
            os.path.join(config_home, "git", name) for name in ("config", "ignore", "attributes")
        ]
    if ref:
        files.append(os.fspath(dot_git / os.fsdecode(ref)))
    env = sorted(
        (name, value)
        for name, value in os.environ.items()
        if name.startswith("GIT_") or name in ("HOME", "XDG_CONFIG_HOME")
    )
    return (head, tuple(_followed(path) for path in files), tuple(env))


def _followed(path: str) -> Signature | None:
    """A file's stamp through links (dotfiles are often links into another folder)."""
    try:
        return signature(os.stat(path))
    except OSError:
        return None

"""Files git ignores, kept like untracked ones within limits: secrets, local configs, notes
and build outputs of modest size come back on a rewind; bulky regenerable trees do not.

``git status --ignored=matching`` (the scan before a command) names each ignored file, or an
ignored directory as one entry. Those files get a stat signature and a copy in the pre-image
cache, as untracked ones do, smallest first until the ignored files' share of the history's
disk budget is spent. What is left out is named, never skipped silently:

- a directory named like a tool's regenerable tree (``node_modules``, ``.venv`` …) or holding
  more than :data:`DIRECTORY_FILE_LIMIT` files: ``bulky_tree``, reported when the command
  changed the directory's own listing (a change deep inside one goes unseen);
- a file over :data:`FILE_LIMIT`: ``ignored_too_large``; past the share: ``ignored_budget``.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

from waymark.store.shelltrack.scan import Signature, lstat_signature, signature
from waymark.store.walk import SKIP_DIRS

# An ignored file larger than this is a data set or a build artefact, not a hand-written one.
FILE_LIMIT = 4 * 1024 * 1024
# An ignored directory with more files than this is a generated tree (a cache, a download).
DIRECTORY_FILE_LIMIT = 1_000
# The share of the history's disk budget the copies of ignored files may take.
BUDGET_SHARE = 4
# Trees tools make and make again: never copied, named when a command changes them.
REGENERABLE = frozenset(
    {
        *SKIP_DIRS,
        "venv",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".gradle",
        ".next",
        ".nuxt",
        ".cache",
        ".terraform",
        ".parcel-cache",
    }
)
BULKY = "bulky_tree"
# What the walk of one ignored directory found: its files, and the bulky trees in it.
Walked = tuple[dict[str, Signature], dict[str, Signature | None]]
TOO_LARGE = "ignored_too_large"
OVER_BUDGET = "ignored_budget"


class Ignored:
    """What one scan's ignored entries hold: ``files`` to keep (relative path → signature),
    ``refused`` files not kept (→ reason) and ``bulky`` directories (→ their signature)."""

    def __init__(self) -> None:
        self.files: dict[str, Signature] = {}
        self.refused: dict[str, str] = {}
        self.bulky: dict[str, Signature | None] = {}
        # Per ignored directory, what its walk found (or a walk before it, taken again).
        self.walked: dict[str, Walked] = {}


def expand(
    root: Path,
    entries: list[str],
    budget: int,
    unchanged: Callable[[str], Walked | None] = lambda top: None,
) -> Ignored:
    """The files under git's ignored ``entries`` (relative to ``root``), within ``budget``
    bytes for all of them, smallest first. ``unchanged``: what an earlier walk found in a
    directory nothing has changed in since (None: walk it); the bulky trees' stats, whose
    insides no one watched, are taken again."""
    out = Ignored()
    found: dict[str, Signature] = {}
    for entry in entries:
        relative = entry.rstrip("/")
        if entry.endswith("/"):
            earlier = unchanged(relative)
            if earlier is None:
                files, bulky = _directory(root, relative)
            else:
                files = earlier[0]
                bulky = {path: lstat_signature(root / path) for path in earlier[1]}
            out.walked[relative] = (files, bulky)
            found.update(files)
            out.bulky.update(bulky)
            continue
        sig = lstat_signature(root / relative)
        if sig is not None and stat.S_ISREG(sig[0]):
            found[relative] = sig
    spent = 0
    # Every file is listed (a change to one refused is then reported); the small ones kept.
    for relative, sig in sorted(found.items(), key=lambda item: item[1][3]):
        out.files[relative] = sig
        if sig[3] > FILE_LIMIT:
            out.refused[relative] = TOO_LARGE
        elif spent + sig[3] > budget:
            out.refused[relative] = OVER_BUDGET
        else:
            spent += sig[3]
    return out


def _directory(root: Path, top: str) -> Walked:
    """Every file under the ignored directory ``top``, unless it is bulky (then none), and
    the bulky trees found."""
    bulky: dict[str, Signature | None] = {}
    if top.rpartition("/")[2] in REGENERABLE:
        bulky[top] = lstat_signature(root / top)
        return {}, bulky
    files: dict[str, Signature] = {}
    stack = [top]
    while stack:
        relative = stack.pop()
        try:
            entries = list(os.scandir(root / relative))
        except OSError:
            continue
        for entry in entries:
            path = f"{relative}/{entry.name}"
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(st.st_mode):
                if entry.name in REGENERABLE:
                    bulky[path] = signature(st)
                else:
                    stack.append(path)
            elif stat.S_ISREG(st.st_mode):
                if len(files) >= DIRECTORY_FILE_LIMIT:
                    bulky[top] = lstat_signature(root / top)
                    return {}, bulky
                files[path] = signature(st)
    return files, bulky

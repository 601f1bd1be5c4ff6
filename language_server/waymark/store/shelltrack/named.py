"""The paths a shell command names: found before it runs, so the ones it changes out of the
workspace's reach (or, in a git work tree, that git ignores) are reported after it.
"""

from __future__ import annotations

import glob
import itertools
import os
from pathlib import Path
from typing import Any

from waymark.engine.shellwords import MAX_WORDS, command_words
from waymark.store.history import History
from waymark.store.shelltrack.reach import expand
from waymark.store.shelltrack.scan import FolderScan, lstat_signature

# A named path inside a git work tree, asked of git only if the command changed it unseen.
MAYBE_IGNORED = "maybe_ignored"

# Directories a line ``cd``s into that relative words are also resolved against.
_MAX_BASES = 8


def named_paths(
    history: History, scans: list[FolderScan], command: str, cwd: Path | None
) -> dict[str, Any]:
    """Paths the command names that are outside the workspace, or inside a git work tree
    (whether git ignores them is asked after the command, of those it changed), with stats."""
    named = command_words(command)
    base = cwd or (history.workspace.folders[0] if history.workspace.folders else Path.cwd())
    # A relative word may be relative to any directory the line ``cd``s into.
    bases = [base]
    for directory in named.directories[:_MAX_BASES]:
        expanded = expand(directory)
        if expanded is not None:
            bases.append(base / expanded)
    out: dict[str, str] = {}
    inside: list[Path] = []
    paths = (
        path
        for word in named.words
        if (text := expand(word.text)) is not None
        for path in _candidates(text, word.pattern, bases)
    )
    for path in itertools.islice(paths, MAX_WORDS):
        real = Path(os.path.realpath(path))
        if history.workspace._folder_of(real) is None:
            out[os.fspath(real)] = "outside_workspace"
        else:
            inside.append(real)
    roots = [s.root for s in scans if s.git]
    out.update(
        {os.fspath(p): MAYBE_IGNORED for p in inside if any(p.is_relative_to(r) for r in roots)}
    )
    return {path: (reason, lstat_signature(Path(path))) for path, reason in out.items()}


def _candidates(text: str, pattern: bool, bases: list[Path]) -> list[Path]:
    paths = [Path(text)] if os.path.isabs(text) else [b / text for b in bases]
    if not pattern:
        return paths
    # A glob names what it matches now (files it deletes); unmatched, the shell passes it on.
    matched = [Path(m) for p in paths for m in itertools.islice(glob.iglob(os.fspath(p)), 200)]
    return matched or paths

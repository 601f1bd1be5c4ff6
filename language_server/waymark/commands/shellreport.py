"""What the model (or a terminal) reads after a shell command: the store's facts, worded.

The shell tracker (``store/shelltrack``) returns what one command created, modified and
deleted and what was out of reach by reason code; the sentences are made here, with the
other wording of the command layer. Loaded with the first shell command, as the tracker.
"""

from __future__ import annotations

from waymark.store.shelltrack import ignored
from waymark.store.shelltrack.track import _MAX_REPOSITORIES, Report

# Why a file is out of reach, by the reason code the turn's record and the report carry.
REASONS = {
    "outside_workspace": "outside the workspace folders",
    "ignored": "ignored by .gitignore",
    "protected": "a protected path",
    "too_large": "over the file size limit",
    "symlink": "a symbolic link (links are not restored)",
    "not_a_file": "not a regular file",
    "backup_budget": "past the per-command backup budget",
    "unreadable": "unreadable",
    "backup_failed": "its backup could not be written",
    "scan_cut_short": "in a folder too big to scan (file limit reached)",
    "scan_failed": "in a folder git could no longer scan",
    "path_too_long": "under a path too long to scan",
    "too_many_repositories": f"a nested repository past the first {_MAX_REPOSITORIES} scanned",
    "not_backed_up_yet": "not backed up yet (the first commands in a big folder without git "
    "copy it a part at a time)",
    ignored.BULKY: "a bulky or regenerable tree, never backed up",
    ignored.TOO_LARGE: f"ignored by git and over {ignored.FILE_LIMIT // (1024 * 1024)} MiB",
    ignored.OVER_BUDGET: "ignored by git, past the history's budget for ignored files",
    "git_directory": "the repository's own .git, which rewinds read from",
}


def reason(code: str) -> str:
    """The words for reason ``code`` (an unknown one, from a newer tracker: the code)."""
    return REASONS.get(code, code)


def shell_notice(report: Report) -> str:
    """One paragraph for the model (or a terminal): what rewind covers and what not."""
    parts = []
    for name, paths in (
        ("created", report.created),
        ("modified", report.modified),
        ("deleted", report.deleted),
    ):
        if paths:
            parts.append(f"{name} {', '.join(paths)}")
    text = (
        "Waymark tracked this command's file changes (rewindable): " + "; ".join(parts) + "."
        if parts
        else "Waymark saw no file changes in the workspace from this command."
    )
    if report.unreached:
        listed = "; ".join(f"{p} ({reason(r)})" for p, r in sorted(report.unreached.items()))
        text += f" Not rewindable (out of reach): {listed}."
    return text

"""Rewind plans: what a rewind would do to each file, decided before anything is written.

A plan is made per file from three states: the target (the file's entry in the snapshot
rewound to, or its first backup), the current bytes on disk, and what the agent last wrote.
Bytes are held only for files the rewind would change (or would change with ``force``), so a
plan over thousands of unchanged files stays small.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

Outcome = Literal["restore", "delete", "unchanged", "conflict", "failed"]


@dataclass(frozen=True)
class FilePlan:
    """One file's would-be outcome.

    ``target`` is what a restore writes (``None`` with ``target_exists`` false: the file is
    deleted); ``current`` is the content now (``None`` when absent or not loaded). For
    ``unchanged`` and ``failed`` files neither is loaded.
    """

    key: str
    path: str
    outcome: Outcome
    target_exists: bool = False
    target: bytes | None = None
    target_digest: str | None = None
    current: bytes | None = None
    current_digest: str | None = None
    reason: str | None = None
    errno: str | None = None

    @property
    def real(self) -> Path:
        return Path(self.key)

    def matches(self, other: FilePlan) -> bool:
        """Same outcome from the same bytes on both sides."""
        return (self.outcome, self.target_digest, self.current_digest, self.target_exists) == (
            other.outcome,
            other.target_digest,
            other.current_digest,
            other.target_exists,
        )


@dataclass(frozen=True)
class RewindPlan:
    """What ``rewind(prompt_id, force=force)`` would do, file by file; nothing written yet."""

    prompt_id: str
    force: bool
    files: tuple[FilePlan, ...]

    @property
    def changes(self) -> tuple[FilePlan, ...]:
        """The files a rewind would write or delete."""
        return tuple(f for f in self.files if f.outcome in ("restore", "delete"))


Done = Literal["restored", "deleted", "unchanged", "conflict", "failed"]


@dataclass(frozen=True)
class FileOutcome:
    """What a rewind did to one file (``digest``: what it wrote, for restored files)."""

    key: str
    path: str
    kind: Done
    reason: str | None = None
    errno: str | None = None
    digest: str | None = None


@dataclass
class RewindResult:
    """What a rewind did: one outcome per tracked file, the undo turn, dropped turns."""

    prompt_id: str
    option: str
    undo_prompt_id: str
    outcomes: list[FileOutcome] = field(default_factory=list)
    dropped_turns: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def add(self, done: FileOutcome) -> None:
        self.outcomes.append(done)

    def keys(self, *kinds: Done) -> list[str]:
        """Absolute paths of the files whose outcome is one of ``kinds``."""
        return [o.key for o in self.outcomes if o.kind in kinds]

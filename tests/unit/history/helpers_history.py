"""An agent that writes the way the command pipeline does, and workspace copies."""

from __future__ import annotations

from pathlib import Path

from waymark.files import atomic_write, create_parents, delete_file, digest
from waymark.history import History


class Agent:
    """Writes files through history the way every mutating command does."""

    def __init__(self, history: History, workspace: Path) -> None:
        self.history = history
        self.workspace = workspace
        self.warnings: list[str] = []

    def path(self, name: str) -> Path:
        return self.workspace / name

    def write(self, name: str, data: bytes | None) -> list[str]:
        """Write (``None``: delete) ``name``; returns track_edit's warnings."""
        path = self.path(name)
        with self.history.lock:
            warnings = self.history.track_edit(path, name)
            if data is None:
                delete_file(path)
            else:
                create_parents(path)
                atomic_write(path, data)
            self.history.record_write(path, None if data is None else digest(data))
        self.warnings.extend(warnings)
        return warnings


def tree(workspace: Path) -> dict[str, bytes]:
    """Every regular file under ``workspace`` with its bytes."""
    return {
        p.relative_to(workspace).as_posix(): p.read_bytes()
        for p in sorted(workspace.rglob("*"))
        if p.is_file()
    }

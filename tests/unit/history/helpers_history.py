"""An agent that writes through the command pipeline, and the history's wire answers."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from waymark.commands.changes import FileChange, load_path
from waymark.commands.commit import write_changes
from waymark.commands.context import CommandContext
from waymark.commands.history import (
    history_errors,
    rewind_json,
    snapshot_json,
    stats_json,
    turns_json,
)
from waymark.store.history import History, history_workspace
from waymark.store.history.packs import HEADER, parse_header
from waymark.store.session import Session


class Wire:
    """A :class:`History` answering snapshot/turns/diffStats/rewind in the wire shape."""

    def __init__(self, history: History) -> None:
        self.raw = history

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)

    def make_snapshot(self, prompt_id: str, label: str | None = None) -> dict[str, Any]:
        return snapshot_json(self.raw, *self.raw.make_snapshot(prompt_id, label))

    def turns(self) -> list[dict[str, Any]]:
        return turns_json(self.raw)

    def diff_stats(self, prompt_id: str) -> dict[str, Any]:
        return stats_json(self.raw, prompt_id)

    def rewind(self, prompt_id: str, **kwargs: Any) -> dict[str, Any]:
        with history_errors():
            return rewind_json(self.raw, self.raw.rewind(prompt_id, **kwargs))


def open_history(root: Path, workspace: Path, session: str | None = "s1", **kwargs: Any) -> Wire:
    return Wire(History.open(root, history_workspace(root, [workspace]), session=session, **kwargs))


class Agent:
    """Writes files through the commit path every mutating command takes."""

    def __init__(self, history: Wire, workspace: Path) -> None:
        self.history = history
        self.workspace = workspace
        self.warnings: list[str] = []
        # The history's own path policy: its directory is protected, as in every door.
        self.ctx = CommandContext(
            workspace=history.raw.workspace, session=Session(), history=history.raw
        )

    def path(self, name: str) -> Path:
        return self.workspace / name

    def write(self, name: str, data: bytes | None) -> list[str]:
        """Write (``None``: delete) ``name``; returns history's warnings."""
        source = load_path(self.ctx, name, must_exist=False)
        warnings: list[str] = []
        write_changes(self.ctx, [FileChange(source, data)], "write", warnings)
        self.warnings.extend(warnings)
        return warnings


def tree(workspace: Path) -> dict[str, bytes]:
    """Every regular file under ``workspace`` with its bytes."""
    return {
        p.relative_to(workspace).as_posix(): p.read_bytes()
        for p in sorted(workspace.rglob("*"))
        if p.is_file()
    }


def stored_blobs(history: Wire | History) -> set[str]:
    """The blobs the history still holds: packed records it has not released, loose files."""
    raw = history.raw if isinstance(history, Wire) else history
    blobs = raw.ledger.blobs
    with raw.lock:
        return {d for d in blobs.packs.index} | {name for name, _ in blobs.names()}


def packed_records(history_dir: Path) -> dict[str, tuple[Path, int, int]]:
    """Every record on disk, read as a person recovering blobs by hand would (the format in
    docs/history.md): digest → (segment, offset of its bytes, length)."""
    found: dict[str, tuple[Path, int, int]] = {}
    for segment in sorted((history_dir / "packs").glob("pack-*")):
        data = segment.read_bytes()
        pos = 0
        while (parsed := parse_header(data[pos : pos + HEADER])) is not None:
            digest, length = parsed
            if pos + HEADER + length > len(data):
                break  # a torn tail
            found[digest] = (segment, pos + HEADER, length)
            pos += HEADER + length
    return found


def overwrite_blob(history_dir: Path, digest: str, data: bytes) -> None:
    """Overwrite the stored bytes of a blob in place (as bit rot or a stray writer would)."""
    segment, offset, length = packed_records(history_dir)[digest]
    assert len(data) <= length
    with open(segment, "r+b") as handle:
        handle.seek(offset)
        handle.write(data)


def loose_history(history_dir: Path) -> None:
    """Turn the history's packed blobs into the layout versions before pack segments wrote
    (one file per blob under ``blobs/``, mode 0600; the journal is the same in both)."""
    loose = history_dir / "blobs"
    loose.mkdir(mode=0o700, exist_ok=True)
    for digest, (segment, offset, length) in packed_records(history_dir).items():
        with open(segment, "rb") as handle:
            handle.seek(offset)
            (loose / digest).write_bytes(handle.read(length))
        (loose / digest).chmod(0o600)
    shutil.rmtree(history_dir / "packs")

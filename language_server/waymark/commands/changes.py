"""The one path every change takes: load → propose → preview or approve → track → write.

Handlers of mutating commands return a :class:`Proposal` (the bytes each file should get,
planned against a :class:`Loaded` snapshot); :func:`waymark.commands.commit.finish` parks it
as a preview or commits it. Here: loading, the proposal and its diffs, and the changes as an
editor applies them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from waymark.commands import line_indexes
from waymark.commands.context import CommandContext
from waymark.commands.encoding import buffer_bytes, declared_for, encode_as
from waymark.engine.anchors import changed_anchors, render
from waymark.engine.diff import EditTarget, FileDiff, diff_file
from waymark.engine.encodings import canonical, canonical_bom
from waymark.engine.errors import InvalidParams, WaymarkError
from waymark.engine.text import TextFile
from waymark.store.files import digest, read_found
from waymark.store.real_path import Reached
from waymark.store.walk import Walks
from waymark.store.workspace import ResolvedPath


@dataclass(frozen=True)
class Loaded:
    """A file as a command saw it: disk bytes, and the buffer when the editor has it open."""

    resolved: ResolvedPath
    disk: bytes | None
    data: bytes | None  # what the user sees: the open buffer, else the disk
    version: int | None  # the open buffer's version
    uri: str
    declared: str | None = None  # the encoding declared for the file (engine/encodings.py)
    disk_digest: str | None = None  # the digest of ``disk`` the store took as it read it

    @property
    def exists(self) -> bool:
        return self.data is not None

    @property
    def dirty(self) -> bool:
        return self.version is not None and self.data != self.disk

    # Handlers, previews and results all look at the same snapshot: hash and decode it once.
    @cached_property
    def digest(self) -> str | None:
        if self.disk_digest is not None and self.data is self.disk:
            return self.disk_digest  # one hash of a large file's bytes per read
        return None if self.data is None else digest(self.data)

    @cached_property
    def decoded(self) -> TextFile | None:
        if self.data is None:
            return None
        known = line_indexes.known(self.resolved.real, self.digest, self.data)
        return TextFile.decode(self.data, self.declared, known=known)

    def text_file(self) -> TextFile:
        assert self.decoded is not None
        return self.decoded

    def text_file_as_written(self, written: tuple[bytes, TextFile] | None) -> TextFile:
        """:meth:`text_file`, told what an edit wrote as ``written`` (the bytes and their
        file, taken by :func:`line_indexes.lend`, which the decode could then not ask for)."""
        if "decoded" not in self.__dict__:
            assert self.data is not None
            known = None if written is None or written[0] != self.data else written[1]
            self.__dict__["decoded"] = TextFile.decode(self.data, self.declared, known=known)
        return self.text_file()

    def empty(self) -> TextFile:
        """A new file: empty, in the encoding declared for it (UTF-8 by default)."""
        declared = self.declared or ""
        return TextFile((), (), canonical(declared) or "utf-8", canonical_bom(declared))


def load(
    ctx: CommandContext,
    resolved: ResolvedPath,
    *,
    must_exist: bool = True,
    encoding: str | None = None,
    reached: Reached | None = None,
) -> Loaded:
    """Read a file (and its open buffer); ``must_exist`` enforces the readable checks;
    ``encoding``: the caller's declaration of the file's encoding; ``reached``: where
    resolving the file reached it (:meth:`~waymark.store.workspace.Workspace.resolve_reached`)."""
    found = read_checked(ctx, resolved, must_exist=must_exist, reached=reached)
    declared = declared_for(ctx, resolved, encoding, None if reached is None else reached.dir_fd)
    disk = None if found is None else found[0]
    disk_digest = None if disk is None else digest(disk)
    uri = resolved.uri
    document = ctx.documents.get(resolved.real)
    if document is None:
        return Loaded(resolved, disk, disk, None, uri, declared, disk_digest)
    # The buffer has no encoding of its own: it is saved the way the file on disk is encoded.
    like = TextFile.decode(disk, declared) if disk is not None else TextFile((), ())
    data = buffer_bytes(like, document.text)
    return Loaded(resolved, disk, data, document.version, document.uri, declared, disk_digest)


def read_checked(
    ctx: CommandContext,
    resolved: ResolvedPath,
    *,
    must_exist: bool,
    walks: Walks | None = None,
    reached: Reached | None = None,
) -> tuple[bytes, os.stat_result] | None:
    """The disk's bytes of ``resolved`` and their ``fstat`` (``None``: absent), refused as
    the workspace's checks refuse it (``must_exist``: the readable checks, else the size
    check), the path named as shown.

    Those checks stat the file, which a read that succeeds has done already (a regular file
    within the limit, no symlink on the way): they run only when the read fails or finds no
    file, and so give the refusal they gave when they ran before the read.
    """
    limit = ctx.workspace.max_file_size
    try:
        found = read_found(resolved.real, limit=limit, walks=walks, reached=reached)
    except WaymarkError:
        refuse_as_shown(ctx, resolved, must_exist=must_exist)
        raise
    if found is None and must_exist:
        ctx.workspace.check_readable(resolved)
        # Created between the read and the check: read what is there now.
        found = read_found(resolved.real, limit=limit, walks=walks)
    return found


def refuse_as_shown(ctx: CommandContext, resolved: ResolvedPath, *, must_exist: bool) -> None:
    """For a read of ``resolved`` that failed: the workspace's checks' refusal, when they
    refuse it (:func:`read_checked`); the caller raises the read's own error otherwise."""
    if must_exist:
        ctx.workspace.check_readable(resolved)
    else:
        ctx.workspace.check_size(resolved)


def load_path(
    ctx: CommandContext,
    path: str,
    *,
    must_exist: bool = True,
    base: Path | None = None,
    encoding: str | None = None,
) -> Loaded:
    resolved, reached = ctx.workspace.resolve_reached(path, base=base)
    try:
        return load(ctx, resolved, must_exist=must_exist, encoding=encoding, reached=reached)
    finally:
        if reached is not None:
            os.close(reached.dir_fd)


@dataclass(frozen=True)
class FileChange:
    source: Loaded
    after: bytes | None  # None: delete the file
    # Leading and trailing lines the planner knows it left as they were: the diff skips them.
    untouched: tuple[int, int] = (0, 0)
    # The new file as an anchored plan made it (its text splits back into its lines).
    planned: TextFile | None = None
    # Its diff, when the planner made it from the stretch it changed (engine/edits/from_bytes).
    diff: FileDiff | None = None
    # The planner knows ``after`` decodes to ``planned``'s text (engine/edits/spliced_bytes).
    reads_back: bool = False

    @cached_property
    def after_file(self) -> TextFile | None:
        # Decoded the way the file was: a detector must not change its mind mid-edit.
        if self.after is None:
            return None
        if self.reads_back and self.planned is not None and self.source.decoded is not None:
            return self.source.decoded.read_back(self.planned)
        like = self.source.decoded if self.source.decoded is not None else self.source.empty()
        return like.decode_like(self.after, self.source.declared, self.planned)

    @cached_property
    def changed(self) -> bool:  # asked by the plan, its diffs and its commit: compared once
        return self.after != self.source.data

    @cached_property
    def digests(self) -> tuple[str | None, str | None]:
        """The digests of ``source.disk`` and ``after`` (``None``: absent), each taken once
        for the history's record and the read records: the load's, when it took one."""
        disk, known = self.source.disk, self.source.disk_digest
        before = known if known is not None or disk is None else digest(disk)
        return before, None if self.after is None else digest(self.after)


@dataclass
class Proposal:
    """What a mutating command wants to do, before anything is written."""

    writer: str
    label: str
    changes: list[FileChange]
    result: dict[str, Any] = field(default_factory=dict)
    # Rewind commits its own way (per-file outcomes); everything else uses _write_all.
    apply: Callable[[CommandContext], dict[str, Any]] | None = None

    @property
    def changed(self) -> bool:
        return any(c.changed for c in self.changes)

    @cached_property
    def diffs(self) -> list[FileDiff]:  # made on the planning thread (registry.execute)
        return _diff([c for c in self.changes if c.changed])


# Anchors a result carries for the lines it changed: few enough to read at a glance, from a
# file small enough to index in a few tens of milliseconds.
ANCHOR_LINES = 40
_ANCHOR_FILE_LINES = 20_000


def new_anchors(before: TextFile | None, change: FileChange) -> dict[str, Any]:
    """``{"anchors": ["LINE#HASH|text", …]}`` for the lines ``change`` writes, or ``{}``."""
    if change.after_file is None:
        return {}
    lines = changed_anchors(
        before, change.after_file, max_lines=ANCHOR_LINES, max_file_lines=_ANCHOR_FILE_LINES
    )
    return {} if lines is None else {"anchors": [render([line])[:-1] for line in lines]}


def _diff(changes: list[FileChange]) -> list[FileDiff]:
    return [
        c.diff
        or diff_file(c.source.resolved.display, c.source.decoded, c.after_file, known=_known(c))
        for c in changes
    ]


def _known(change: FileChange) -> tuple[int, int]:
    """The lines the planner left alone, while the new bytes read back in the old encoding
    (decided afresh, the old lines' bytes could read as other text)."""
    before, after = change.source.decoded, change.after_file
    if before is None or after is None:
        return 0, 0
    if (after.encoding, after.bom) != (before.encoding, before.bom):
        return 0, 0
    return change.untouched


def edit_targets(changes: list[FileChange]) -> list[EditTarget]:
    """The changes as an editor applies them; each door builds its own edit from these."""
    return [
        EditTarget(
            uri=c.source.uri,
            display=c.source.resolved.display,
            before=c.source.decoded,
            after=c.after_file,
            version=c.source.version,
        )
        for c in changes
    ]


def with_new_content(proposal: Proposal, new_content: str) -> Proposal:
    """The proposal with the user's edited text in place of ours (single-file only)."""
    if (
        len(proposal.changes) != 1
        or proposal.apply is not None
        or proposal.changes[0].after is None
    ):
        raise InvalidParams(
            "newContent can only replace the proposal for a single created or updated file; "
            "apply without newContent or discard the preview.",
            {"field": "newContent"},
        )
    change = proposal.changes[0]
    assert change.after_file is not None
    after = encode_as(change.after_file, new_content, "newContent")
    result = dict(proposal.result)
    if after != change.after:
        result.pop("anchoredDiff", None)
        result.pop("anchors", None)
        result["editedByUser"] = True
        result["warnings"] = [
            *result.get("warnings", []),
            "The user edited the proposal before approving it; read the file again before "
            "the next edit.",
        ]
    return Proposal(proposal.writer, proposal.label, [FileChange(change.source, after)], result)

"""The one path every change takes: load → propose → preview or approve → track → write.

Handlers of mutating commands return a :class:`Proposal` (the bytes each file should get,
planned against a :class:`Loaded` snapshot). :func:`finish` parks it as a preview (a token, a
unified diff, the proposed files) or commits it: re-reads every file and refuses with
``file_changed_since_read`` if any moved on since the plan, records pre-images and the write
into history, and writes — directly, or through the editor when approval is ``editor`` or
the buffer has unsaved changes (disk is never written under a dirty buffer).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from waymark.commands.context import CommandContext
from waymark.commands.descriptions import DECLINED
from waymark.commands.encoding import buffer_bytes, declared_for, encode_as
from waymark.engine.anchors import changed_anchors, render
from waymark.engine.diff import EditTarget, FileDiff, diff_file
from waymark.engine.encodings import canonical, canonical_bom
from waymark.engine.errors import Declined, FileChangedSinceRead, InvalidParams, WaymarkError
from waymark.engine.text import TextFile
from waymark.store.batch import BatchWrite, remove_dirs, write_batch
from waymark.store.files import atomic_write, create_parents, delete_file, digest, read_state
from waymark.store.history import write_locks
from waymark.store.locks import locked
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

    @property
    def exists(self) -> bool:
        return self.data is not None

    @property
    def dirty(self) -> bool:
        return self.version is not None and self.data != self.disk

    # Handlers, previews and results all look at the same snapshot: hash and decode it once.
    @cached_property
    def digest(self) -> str | None:
        return None if self.data is None else digest(self.data)

    @cached_property
    def decoded(self) -> TextFile | None:
        return None if self.data is None else TextFile.decode(self.data, self.declared)

    def text_file(self) -> TextFile:
        assert self.decoded is not None
        return self.decoded

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
) -> Loaded:
    """Read a file (and its open buffer); ``must_exist`` enforces the readable checks;
    ``encoding``: the caller's declaration of the file's encoding."""
    if must_exist:
        ctx.workspace.check_readable(resolved)
    else:
        ctx.workspace.check_size(resolved)
    declared = declared_for(ctx, resolved, encoding)
    disk = read_state(resolved.real, limit=ctx.workspace.max_file_size).data
    uri = resolved.lexical.as_uri()
    document = ctx.documents.get(resolved.real)
    if document is None:
        return Loaded(resolved, disk, disk, None, uri, declared)
    # The buffer has no encoding of its own: it is saved the way the file on disk is encoded.
    like = TextFile.decode(disk, declared) if disk is not None else TextFile((), ())
    data = buffer_bytes(like, document.text)
    return Loaded(resolved, disk, data, document.version, document.uri, declared)


def load_path(
    ctx: CommandContext,
    path: str,
    *,
    must_exist: bool = True,
    base: Path | None = None,
    encoding: str | None = None,
) -> Loaded:
    resolved = ctx.workspace.resolve(path, base=base)
    return load(ctx, resolved, must_exist=must_exist, encoding=encoding)


@dataclass(frozen=True)
class FileChange:
    source: Loaded
    after: bytes | None  # None: delete the file
    # Leading and trailing lines the planner knows it left as they were: the diff skips them.
    untouched: tuple[int, int] = (0, 0)

    @cached_property
    def after_file(self) -> TextFile | None:
        # Decoded the way the file was: a detector must not change its mind mid-edit.
        if self.after is None:
            return None
        like = self.source.decoded if self.source.decoded is not None else self.source.empty()
        return like.decode_like(self.after, self.source.declared)

    @property
    def changed(self) -> bool:
        return self.after != self.source.data


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
        diff_file(c.source.resolved.display, c.source.decoded, c.after_file, known=_known(c))
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


def _preview_files(changes: list[FileChange]) -> list[dict[str, Any]]:
    files = []
    for c in changes:
        action = "deleted" if c.after is None else "created" if c.source.data is None else "updated"
        files.append(
            {
                "path": c.source.resolved.display,
                "uri": c.source.uri,
                "action": action,
                "newContent": None if c.after_file is None else c.after_file.text,
            }
        )
    return files


async def finish(ctx: CommandContext, proposal: Proposal, *, preview: bool) -> dict[str, Any]:
    """Park the proposal as a preview, or commit it now."""
    if not preview:
        return await commit(ctx, proposal)
    token = ctx.pending.add(proposal)
    changes = [c for c in proposal.changes if c.changed]
    result = dict(proposal.result)
    if not result.get("warnings"):
        result.pop("warnings", None)
    result.update(
        ok=True,
        preview=True,
        token=token,
        changed=bool(changes),
        diff="".join(d.text for d in proposal.diffs),
        files=_preview_files(changes),
    )
    return result


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


async def commit(ctx: CommandContext, proposal: Proposal) -> dict[str, Any]:
    async with ctx.mutation_lock:
        if proposal.apply is not None:
            return proposal.apply(ctx)
        return await _write_all(ctx, proposal)


async def _write_all(ctx: CommandContext, proposal: Proposal) -> dict[str, Any]:
    warnings = list(proposal.result.get("warnings", []))
    changes, through_editor = write_changes(ctx, proposal.changes, proposal.writer, warnings)
    if through_editor:
        # The editor may ask the user: never hold other processes' locks across that wait.
        await _apply_through_editor(ctx, proposal, changes)
        for change in changes:
            _note_write(ctx, change, proposal.writer)
    return _result(proposal, warnings, changes)


def write_changes(
    ctx: CommandContext, planned: list[FileChange], writer: str, warnings: list[str]
) -> tuple[list[FileChange], bool]:
    """Re-check, back up and write ``planned`` under the locks, all files or none; history's
    warnings go to ``warnings``. Returns the changes that change a file, and whether the
    editor must apply them (nothing written here then)."""
    ctx.workspace.check_folders()
    created: list[Path] = []
    try:
        # The lock needs the directories; a failed change removes those it made.
        for change in planned:
            if change.after is not None and change.source.disk is None:
                resolved = change.source.resolved
                created += create_parents(resolved.real, below=resolved.folder)
        return _write_locked(ctx, planned, writer, warnings)
    except BaseException:
        remove_dirs(created)
        raise


def _write_locked(
    ctx: CommandContext, planned: list[FileChange], writer: str, warnings: list[str]
) -> tuple[list[FileChange], bool]:
    touched = [c for c in planned if c.after is not None or c.source.disk is not None]
    # The one lock order a rewind takes too, so the two never wait for each other crosswise.
    with write_locks(ctx.history, [c.source.resolved.real for c in touched]):
        # Under the lock no other Waymark process writes these files: what is re-read here
        # is what the writes below replace (and each write compares once more).
        current = [load(ctx, c.source.resolved, must_exist=False) for c in planned]
        for change, now in zip(planned, current, strict=True):
            if now.data != change.source.data:
                ctx.session.observe(now.resolved.real, now.digest)
                raise _changed_since_planned(now.resolved.display)
        changes = [c for c in planned if c.changed]
        through_editor = ctx.editor is not None and (
            ctx.options.approval == "editor" or any(c.source.dirty for c in changes)
        )
        if changes and ctx.history is not None:
            for change in changes:
                ahead = None if through_editor else (change.source.disk, change.after)
                warnings.extend(ctx.history.track_edit(change.source.resolved.real, ahead))
        if not through_editor:
            _write_batch(ctx, changes, writer)
    return changes, through_editor


def _write_batch(ctx: CommandContext, changes: list[FileChange], writer: str) -> None:
    """Write every change or none (store/batch.py): recorded ahead, and put back on failure."""
    try:
        write_batch([BatchWrite(c.source.resolved.real, c.after, c.source.disk) for c in changes])
    except WaymarkError as exc:
        failed = exc.details.get("path")
        left = set(exc.details.get("unrestored", ()))
        for change in (kept := [c for c in changes if str(c.source.resolved.real) in left]):
            _note_write(ctx, change, writer, True)
        back = {c.source.resolved.real: c.source.disk for c in changes if c not in kept}
        if ctx.history is not None:
            ctx.history.put_back(back)
        if isinstance(exc, FileChangedSinceRead):
            shown = {str(c.source.resolved.real): c.source.resolved.display for c in changes}
            raise _changed_since_planned(shown.get(str(failed), str(failed))) from exc
        raise
    for change in changes:
        _note_write(ctx, change, writer, True)


def _changed_since_planned(display: str) -> FileChangedSinceRead:
    return FileChangedSinceRead(
        f"{display} changed after this change was planned; read it again "
        "and redo the change against the current content.",
        {"path": display, "suggested_action": "re-read_file"},
    )


def _note_write(ctx: CommandContext, change: FileChange, writer: str, ahead: bool = False) -> None:
    new_digest = None if change.after is None else digest(change.after)
    if ctx.history is not None and not ahead:  # else recorded before the write
        ctx.history.record_write(change.source.resolved.real, new_digest)
    ctx.session.note_write(change.source.resolved.real, new_digest, writer)


def _write(change: FileChange) -> None:
    """Write one change if the disk still holds what it was planned against."""
    real = change.source.resolved.real
    disk = change.source.disk
    expected = None if disk is None else digest(disk)
    try:
        if change.after is None:
            delete_file(real, expected=expected)
        else:
            atomic_write(real, change.after, expected=expected)
    except FileChangedSinceRead as exc:
        raise _changed_since_planned(change.source.resolved.display) from exc


async def _apply_through_editor(
    ctx: CommandContext, proposal: Proposal, changes: list[FileChange]
) -> None:
    assert ctx.editor is not None
    confirm = ctx.options.approval == "editor"
    applied = await ctx.editor.apply_edit(edit_targets(changes), proposal.label, confirm=confirm)
    if not applied:
        raise Declined(DECLINED, {"paths": [c.source.resolved.display for c in changes]})
    for change in changes:
        # "Applied" means the client applied exactly our edit. Its buffer may not say so yet
        # (Neovim debounces didChange past the response), so the proposal is the truth.
        # Never write disk under a buffer the user had not saved; the edit lives in the buffer.
        if not change.source.dirty:
            with locked(change.source.resolved.real):
                disk = read_state(
                    change.source.resolved.real, limit=ctx.workspace.max_file_size
                ).data
                if disk != change.after:
                    _write(change)


def _result(proposal: Proposal, warnings: list[str], changes: list[FileChange]) -> dict[str, Any]:
    # ``changes`` are the files the proposal changes: its diffs are theirs.
    result = dict(proposal.result, diff="".join(d.text for d in proposal.diffs))
    result.update(
        ok=True,
        changed=bool(changes),
        insertions=sum(d.stats.insertions for d in proposal.diffs),
        deletions=sum(d.stats.deletions for d in proposal.diffs),
        writer_type=proposal.writer,
    )
    if len(proposal.changes) == 1:
        result.setdefault("path", proposal.changes[0].source.resolved.display)
    else:
        result.setdefault("paths", [c.source.resolved.display for c in changes])
    if warnings:
        result["warnings"] = warnings
    else:
        result.pop("warnings", None)
    return result

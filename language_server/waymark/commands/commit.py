"""The change pipeline's last step: a proposal parked as a preview, or committed.

:func:`finish` parks a :class:`~waymark.commands.changes.Proposal` as a preview (a token, a
unified diff, the proposed files) or commits it: under the locks, re-reads every file and
refuses with ``file_changed_since_read`` if any moved on since the plan, records pre-images
and the write into history, and writes — directly, or through the editor when approval is
``editor`` or the buffer has unsaved changes (disk is never written under a dirty buffer).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from waymark.commands.changes import (
    FileChange,
    Loaded,
    Proposal,
    edit_targets,
    load,
    read_checked,
    refuse_as_shown,
)
from waymark.commands.context import CommandContext
from waymark.commands.descriptions import DECLINED
from waymark.engine.errors import Declined, FileChangedSinceRead, WaymarkError
from waymark.store.batch import BatchWrite, remove_dirs, write_batch
from waymark.store.files import (
    atomic_write,
    create_parents,
    delete_file,
    digest,
    read_state,
)
from waymark.store.history import write_locks
from waymark.store.holds import holds
from waymark.store.locks import locked
from waymark.store.walk import Walks
from waymark.store.workspace import ResolvedPath


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
    # The locks, the re-reads and the writes go through the same directories, each walked
    # once (the lock is on the very directory read and written).
    with (
        Walks() as walks,
        write_locks(ctx.history, [c.source.resolved.real for c in touched], walks=walks),
    ):
        # Under the lock no other Waymark process writes these files: what is re-read here
        # is what the writes below replace (and each write compares once more).
        for change in planned:
            if not _unchanged(ctx, change.source, walks):
                now = _seen_now(ctx, change.source.resolved, walks)
                ctx.session.observe(
                    change.source.resolved.real, None if now is None else digest(now)
                )
                raise _changed_since_planned(change.source.resolved.display)
        changes = [c for c in planned if c.changed]
        through_editor = ctx.editor is not None and (
            ctx.options.approval == "editor" or any(c.source.dirty for c in changes)
        )
        if changes and ctx.history is not None:
            for change in changes:
                real = change.source.resolved.real
                if through_editor:
                    warnings.extend(ctx.history.track_edit(real))
                else:
                    ahead = (change.source.disk, change.after)
                    warnings.extend(ctx.history.track_edit(real, ahead, change.digests))
        if not through_editor:
            _write_batch(ctx, changes, writer, walks)
    return changes, through_editor


def _unchanged(ctx: CommandContext, source: Loaded, walks: Walks) -> bool:
    """Whether :func:`load` would see ``source.data`` now: an open buffer's bytes, else the
    disk's, compared as they are read (none kept, no digest made)."""
    resolved = source.resolved
    if ctx.documents.get(resolved.real) is not None:
        return _seen_now(ctx, resolved, walks) == source.data
    try:
        return holds(resolved.real, source.data, limit=ctx.workspace.max_file_size, walks=walks)
    except WaymarkError:
        refuse_as_shown(ctx, resolved, must_exist=False)
        raise


def _seen_now(ctx: CommandContext, resolved: ResolvedPath, walks: Walks) -> bytes | None:
    """The bytes :func:`load` would see now: an open buffer's, else the disk's (read
    without what only a decode needs: the declared encoding, the URI)."""
    if ctx.documents.get(resolved.real) is not None:
        return load(ctx, resolved, must_exist=False).data
    found = read_checked(ctx, resolved, must_exist=False, walks=walks)
    return None if found is None else found[0]


def _write_batch(ctx: CommandContext, changes: list[FileChange], writer: str, walks: Walks) -> None:
    """Write every change or none (store/batch.py): recorded ahead, and put back on failure."""
    try:
        write_batch(
            [BatchWrite(c.source.resolved.real, c.after, c.source.disk) for c in changes], walks
        )
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
    new_digest = change.digests[1]
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

"""``waymark.patch``: a unified diff applied as one proposal, all files or none."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from waymark.commands.changes import FileChange, Loaded, Proposal, load_path
from waymark.commands.context import CommandContext
from waymark.commands.descriptions import ENCODING, PREVIEW
from waymark.commands.encoding import encode_as
from waymark.commands.line_ends import merge_refusal
from waymark.commands.params import require
from waymark.commands.schema import param
from waymark.engine.errors import InvalidParams, PatchFailed

if TYPE_CHECKING:
    from waymark.engine.edits.patch import FilePatch


@attrs.define(kw_only=True)
class PatchParams:
    patch: str = param(
        "The unified diff (diff -u or git diff output), every file in one text.", cli_file=True
    )
    cwd: str | None = param(
        "Directory the patch's paths are relative to (default: the first workspace folder).",
        default=None,
    )
    strip: int | None = param(
        "Leading path components to drop, like patch -p (default: 1 when every path has "
        "git's a/ and b/ prefixes, else 0).",
        default=None,
        minimum=0,
    )
    preview: bool = param(PREVIEW, default=False)
    encoding: str | None = param(
        ENCODING + " It applies to every file the patch names, those it creates too.",
        default=None,
    )


def read_patch(text: str, strip: int | None) -> list[FilePatch]:
    """:func:`parse_patch`, a text it cannot read refused as the ``patch`` or ``strip`` param."""
    # The parser (and unidiff under it) loads with the first patch, not at every door's start.
    from waymark.engine.edits.patch import StripTooLong, UnreadablePatch, parse_patch

    try:
        return parse_patch(text, strip)
    except UnreadablePatch as exc:
        if exc.problem is None:
            message = (
                "`patch` holds no file diff; send `diff -u` or `git diff` output with ---/+++ "
                "headers and @@ hunks."
            )
        else:
            message = (
                f"`patch` is not a valid unified diff ({exc.problem}); send `diff -u` or "
                "`git diff` output."
            )
        raise InvalidParams(message, {"field": "patch"}) from exc
    except StripTooLong as exc:
        raise InvalidParams(
            f"`strip` {exc.strip} removes the whole path {exc.name!r}; use a smaller strip.",
            {"field": "strip"},
        ) from None


def _existing(ctx: CommandContext, path: str, base: Path | None, encoding: str | None) -> Loaded:
    loaded = load_path(ctx, path, base=base, encoding=encoding)
    ctx.session.observe(loaded.resolved.real, loaded.digest)
    return loaded


def _absent(
    ctx: CommandContext, path: str, base: Path | None, status: str, encoding: str | None
) -> Loaded:
    loaded = load_path(ctx, path, must_exist=False, base=base, encoding=encoding)
    if loaded.exists:
        raise PatchFailed(
            f"The patch creates {loaded.resolved.display} ({status}) but it already exists; "
            "read it and make the patch against it, or delete it first.",
            {"path": loaded.resolved.display, "reason": "exists"},
        )
    return loaded


def _file_changes(
    ctx: CommandContext, fp: FilePatch, base: Path | None, encoding: str | None
) -> tuple[list[FileChange], dict[str, Any]]:
    source = None if fp.source is None else _existing(ctx, fp.source, base, encoding)
    target = source
    if fp.target is not None and (source is None or fp.target != fp.source):
        target = _absent(ctx, fp.target, base, fp.status, encoding)
    shown = target or source
    assert shown is not None
    display = shown.resolved.display
    # A file the patch creates is in the encoding declared for it, as a write's would be.
    before = source.text_file() if source is not None else shown.empty()
    from waymark.engine.edits.line_ends import EndingsWouldMerge
    from waymark.engine.edits.patch import apply_file_patch

    try:
        patched = apply_file_patch(display, before, fp)
    except EndingsWouldMerge as exc:
        raise merge_refusal(exc, display) from None
    after = patched.text_file
    changes: list[FileChange] = []
    if fp.target is None:
        assert source is not None
        if after.lines:
            raise PatchFailed(
                f"The patch deletes {display} but removes only part of it; the file has "
                "more lines than the patch removes.",
                {"path": display, "reason": "delete_incomplete"},
            )
        changes.append(FileChange(source, None))
    else:
        assert target is not None
        if source is not None and target is not source and fp.status == "renamed":
            changes.append(FileChange(source, None))
        changes.append(FileChange(target, encode_as(after, after.text, "patch")))
    entry: dict[str, Any] = {"path": display, "status": fp.status}
    if source is not None and target is not source:
        entry["from"] = source.resolved.display
    if any(patched.offsets):
        entry["offsets"] = patched.offsets
    return changes, entry


def patch(ctx: CommandContext, params: PatchParams) -> Proposal:
    require(params.strip is None or params.strip >= 0, "strip", "must be 0 or more")
    file_patches = read_patch(params.patch, params.strip)
    base = ctx.workspace.resolve(params.cwd).real if params.cwd else None
    changes: list[FileChange] = []
    files: list[dict[str, Any]] = []
    warnings: list[str] = []
    for fp in file_patches:
        file_changes, entry = _file_changes(ctx, fp, base, params.encoding)
        changes += file_changes
        files.append(entry)
        if fp.old_mode and fp.new_mode and fp.old_mode != fp.new_mode:
            warnings.append(
                f"The mode change of {entry['path']} ({fp.old_mode} -> {fp.new_mode}) was not "
                "applied; Waymark changes file contents only (chmod it yourself)."
            )
    seen: set[Path] = set()
    for change in changes:
        real = change.source.resolved.real
        if real in seen:
            raise PatchFailed(
                f"The patch changes {change.source.resolved.display} twice; send one diff "
                "per file.",
                {"path": change.source.resolved.display, "reason": "duplicate"},
            )
        seen.add(real)
    result = {"patched": files, "details": {"writer_type": "patch"}, "warnings": warnings}
    return Proposal("patch", "Waymark: patch", changes, result)

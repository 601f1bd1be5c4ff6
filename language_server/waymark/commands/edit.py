"""``waymark.edit``: anchored line edits (docs/anchored-edits.md).

The engine places the operations and reports failures as data; the messages agents read
(``operations[2].hash: anchor … is not in the file any more``) are worded here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import attrs

from waymark.commands import line_indexes
from waymark.commands.changes import FileChange, Loaded, Proposal, load_path
from waymark.commands.context import CommandContext
from waymark.commands.descriptions import ENCODING, PATH, PREVIEW
from waymark.commands.edit_ops import EditOperation, to_operations
from waymark.commands.encoding import encoded_input
from waymark.commands.line_ends import merge_refusal
from waymark.commands.schema import param
from waymark.engine.anchors import LineIndex
from waymark.engine.edits.anchored import plan_anchored_edit
from waymark.engine.edits.from_bytes import BytesEdit, plan_from_bytes
from waymark.engine.edits.line_ends import EndingsWouldMerge
from waymark.engine.edits.operations import (
    AdvisoryLineIgnored,
    AmbiguousAnchor,
    Failure,
    LowEntropyAnchor,
    OneLineRange,
    Operation,
    OperationsRefused,
    Overlap,
    RangeSwapped,
    ReversedRange,
    StaleAnchor,
)
from waymark.engine.edits.reindex import IndexAfterEdit
from waymark.engine.errors import (
    AnchorAmbiguous,
    AnchorContextAmbiguous,
    AnchorLowEntropy,
    AnchorStale,
    InvalidParams,
    InvalidRangeOrder,
    OperationsOverlap,
    WaymarkError,
)
from waymark.engine.text import TextFile

_PREVIEW = 80


@attrs.define(kw_only=True)
class EditParams:
    # path is required; it has a default only so the deprecated alias can stand in.
    path: str | None = param(PATH, default=None, required=True)
    file_path: str | None = param(default=None, hidden=True)
    operations: list[EditOperation] = param(
        "The line edits (replace_line, insert_after, delete_range, ...) naming lines by the "
        "LINE#HASH anchors a read with hashes returned; all of them apply, or none.",
        minItems=1,
        default=attrs.Factory(list),
        required=True,
        flags=("--ops",),
    )
    preview: bool = param(PREVIEW, default=False)
    encoding: str | None = param(ENCODING, default=None)


# Not frozen: a frozen dataclass sets each of its eight fields through object.__setattr__,
# and every edit makes one (nothing changes it after).
@dataclass
class PlannedEdit:
    """An anchored edit as ``waymark.edit`` answers it: details, diff and warnings worded."""

    text_file: TextFile
    details: dict[str, Any]
    diff: list[dict[str, Any]]
    warnings: list[str]
    # The new file's bytes, given the bytes ``text_file`` was planned on (only the changed
    # lines are encoded).
    encode: Callable[[bytes], bytes]
    index: IndexAfterEdit
    untouched: tuple[int, int]  # leading and trailing lines left as they were
    reads_back: bool  # the new bytes decode to ``text_file``'s text (no need to decode them)


def _preview(text: str) -> str:
    return text if len(text) <= _PREVIEW else text[: _PREVIEW - 1] + "…"


def _worded(f: Failure) -> tuple[type[WaymarkError], str, dict[str, Any]]:
    """The error class, message and extra details of one failure."""
    where = f"operations[{f.index}]"
    if isinstance(f, StaleAnchor):
        if f.occurrence is None:
            problem = "is not in the file any more"
        else:
            problem = f"has {f.found} candidate(s), not an occurrence {f.occurrence}"
        message = f"{where}.{f.field}: anchor {f.token} {problem}; re-read the file"
        return AnchorStale, message, {"hash": f.token, "field": f.field}
    if isinstance(f, AmbiguousAnchor):
        hint = "add occurrence (or line)" if f.single else "use the .N form of the anchor"
        message = (
            f"{where}.{f.field}: anchor {f.token} matches {len(f.candidates)} lines; "
            f"{hint} to pick one"
        )
        extra: dict[str, Any] = {
            "hash": f.token,
            "field": f.field,
            "candidates": [{"line": n, "preview": _preview(text)} for n, text in f.candidates],
        }
        if f.single:
            return AnchorAmbiguous, message, extra
        return AnchorContextAmbiguous, message, {**extra, "endpoint": f.field}
    if isinstance(f, LowEntropyAnchor):
        message = (
            f"{where}: line {f.line} ({f.content.strip()!r}) is a low-quality anchor; use a "
            "range whose ends are the neighbor anchors"
        )
        extra = {"line": f.line, "content": f.content, "neighbor_anchors": list(f.neighbors)}
        return AnchorLowEntropy, message, extra
    if isinstance(f, OneLineRange):
        message = (
            f"{where}: the range starts and ends on line {f.line}; "
            f"use {f.op.replace('range', 'line')} for one line"
        )
        return InvalidRangeOrder, message, {"line": f.line}
    if isinstance(f, ReversedRange):
        message = (
            f"{where}: start_hash is on line {f.start_line}, after end_hash on line "
            f"{f.end_line}, and the file changed since it was read; re-read the file"
        )
        extra = {"line": f.start_line, "end_line": f.end_line, "reversed": True}
        return InvalidRangeOrder, message, extra
    assert isinstance(f, Overlap)
    message = (
        f"{where} and operations[{f.other}] touch the same lines; merge them into one operation"
    )
    return OperationsOverlap, message, {"conflicts_with": f.other, "lines": list(f.lines)}


def refusal(refused: OperationsRefused) -> WaymarkError:
    """The error for a refused batch: the first failure's, every failure in the details."""
    worded = [_worded(f) for f in refused.failures]
    failures = [
        {"index": f.index, "op": f.op, "reason": cls.code, "message": message, **extra}
        for f, (cls, message, extra) in zip(refused.failures, worded, strict=True)
    ]
    cls, message, extra = worded[0]
    details: dict[str, Any] = {**extra, "failures": failures}
    if cls is AnchorStale:
        details["suggested_action"] = "re-read_file"
    more = len(failures) - 1
    tail = f" ({more} more problem(s) in details.failures)" if more else ""
    return cls(f"{message}{tail}.", details)


def _advisory(note: AdvisoryLineIgnored) -> str:
    return (
        f"operations[{note.index}].{note.field}: anchor {note.token} is on line {note.line}, "
        f"not on the advisory line {note.advisory}; the hash wins"
    )


def _correction(note: RangeSwapped) -> dict[str, Any]:
    return {
        "type": "range_order_swapped",
        "index": note.index,
        "detail": f"operations[{note.index}]: start_hash is on line {note.start_line} and "
        f"end_hash on line {note.end_line}; used lines {note.end_line}-{note.start_line}",
    }


def plan_edit(
    tf: TextFile,
    operations: Sequence[Operation],
    *,
    swap_reversed_ranges: bool = True,
    index: LineIndex | None = None,
) -> PlannedEdit:
    """:func:`plan_anchored_edit`, its refusals and notes worded for the wire."""
    try:
        plan = plan_anchored_edit(
            tf, operations, swap_reversed_ranges=swap_reversed_ranges, index=index
        )
    except OperationsRefused as exc:
        raise refusal(exc) from None
    except EndingsWouldMerge as exc:
        raise merge_refusal(exc) from None
    details = {
        **plan.details,
        "auto_corrections": [_correction(note) for note in plan.swapped],
        "safety_status": "ok",
    }
    warnings = [_advisory(note) for note in plan.advisories]
    return PlannedEdit(
        plan.text_file,
        details,
        plan.diff,
        warnings,
        plan.encode,
        plan.index,
        plan.untouched,
        plan.reads_back,
    )


def _proposal(
    ctx: CommandContext, loaded: Loaded, warnings: list[str], quick: BytesEdit
) -> Proposal:
    """The proposal of an edit planned on the file's bytes: the same as the decoded file's."""
    details = {
        **quick.details,
        "auto_corrections": [_correction(note) for note in quick.swapped],
        "safety_status": "ok",
        "baseline_continuity": ctx.session.continuity(loaded.resolved.real),
        "writer_type": "edit",
    }
    result: dict[str, Any] = {
        "details": details,
        "anchoredDiff": quick.diff,
        "warnings": warnings + [_advisory(note) for note in quick.advisories],
    }
    diff = quick.unified(loaded.resolved.display)
    change = FileChange(loaded, quick.after, quick.untouched, diff=diff)
    return Proposal("edit", "Waymark: anchored edit", [change], result)


def edit(ctx: CommandContext, params: EditParams) -> Proposal:
    warnings: list[str] = []
    if params.file_path is not None:
        warnings.append(
            "`file_path` is deprecated; use `path`"
            + (" (both were given; `path` was used)." if params.path is not None else ".")
        )
    path = params.path if params.path is not None else params.file_path
    if path is None:
        raise InvalidParams("The parameter `path` is required.", {"field": "path"})
    operations = to_operations(params.operations)
    loaded = load_path(ctx, path, encoding=params.encoding)
    real = loaded.resolved.real
    # A reversed range is only safely "meant the other way round" on the very text the agent
    # read; on a file that moved on, it may be a block someone else moved: refuse it.
    as_read = ctx.session.read_is_current(real, loaded.digest)
    ctx.session.observe(real, loaded.digest)
    data = loaded.data
    assert data is not None
    # The bytes answer alone when they can: on a small file that is cheaper than a kept
    # index, whose tables an edit copies (bench/results.md, h51plan); a large file's kept
    # index is asked first, as before (the two were not compared there).
    lent = None if loaded.digest is None else line_indexes.lend(real, loaded.digest)
    if lent is None or len(data) <= line_indexes.MAX_WRITTEN_BYTES:
        quick = plan_from_bytes(data, loaded.declared, operations, swap_reversed_ranges=as_read)
        if quick is not None:
            line_indexes.keep_spliced(real, lent, data, quick.replaced, quick.after)
            return _proposal(ctx, loaded, warnings, quick)
    if lent is None:
        tf, kept = loaded.text_file(), None
    else:
        index, written = line_indexes.unpacked(lent)
        tf = loaded.text_file_as_written(written)
        kept = line_indexes.fitting(index, tf)
    plan = plan_edit(tf, operations, swap_reversed_ranges=as_read, index=kept)
    details = dict(plan.details)
    details["baseline_continuity"] = ctx.session.continuity(real)
    details["writer_type"] = "edit"
    result: dict[str, Any] = {
        "details": details,
        "anchoredDiff": plan.diff,
        "warnings": warnings + plan.warnings,
    }
    after = encoded_input(lambda: plan.encode(data), plan.text_file.encoding, "operations")
    plan.index.release()
    change = FileChange(loaded, after, plan.untouched, plan.text_file, reads_back=plan.reads_back)
    # The new file as the diff decodes it (made here, not there): the next edit reads these
    # bytes back.
    written = None
    if change.changed and change.after_file is not None:
        written = (after, change.after_file)
    # The commit records the same digest (FileChange.digests): the file is hashed once.
    after_digest = change.digests[1]
    assert after_digest is not None
    line_indexes.keep(real, after_digest, plan.index, written)
    return Proposal("edit", "Waymark: anchored edit", [change], result)

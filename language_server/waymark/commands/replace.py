"""``waymark.replace``, ``waymark.multiReplace``, ``waymark.write`` (string edits).

The engine refuses with data (which edit, which pairs conflict); the wire wording
(``edits[1]: …``, "use waymark.write") is chosen here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import attrs

from waymark.commands.changes import (
    FileChange,
    Loaded,
    Proposal,
    load,
    load_path,
    new_anchors,
)
from waymark.commands.context import CommandContext
from waymark.commands.descriptions import ENCODING, PATH, PREVIEW
from waymark.commands.encoding import encode_as
from waymark.commands.params import BadFields, register_hook, require, structure_item
from waymark.commands.schema import param
from waymark.engine.edits.replace import (
    BatchEditFailed,
    ConflictingEdits,
    EmptyOldString,
    ReplaceEdit,
    ReplaceResult,
    UnencodableText,
    plan_multi_replace,
    plan_replace,
    plan_write,
)
from waymark.engine.errors import EditConflict, InvalidParams
from waymark.engine.text import TextFile

_REASONS = {
    "overlapping_targets": "their old_strings overlap in the file",
    "same_target": "they replace the same text in two different ways",
    "duplicate_edit": "they are the same edit twice",
    "depends_on_earlier_output": "the later old_string matches text the earlier edit writes",
}


@attrs.define(kw_only=True)
class ReplaceParams:
    path: str = param(PATH)
    old_string: str = param("Exact text to find.")
    new_string: str = param("Text to put instead.")
    expected_replacements: int = param(
        "How many times old_string must occur; any other count changes nothing.",
        default=1,
        minimum=1,
        flags=("--count",),
    )
    preview: bool = param(PREVIEW, default=False)
    encoding: str | None = param(ENCODING, default=None)


@attrs.define(kw_only=True)
class EditShape:
    """One item of ``edits``: the schema shows it, :func:`structure_edits` parses it."""

    old_string: str
    new_string: str
    expected_replacements: int = param(default=1, minimum=1)


@attrs.define(kw_only=True)
class MultiReplaceParams:
    path: str = param(PATH)
    edits: list[EditShape] = param(
        "The replacements, applied in order to the one file: all of them, or none.", minItems=1
    )
    preview: bool = param(PREVIEW, default=False)
    encoding: str | None = param(ENCODING, default=None)


def _structure_edit(field: str, raw: object) -> EditShape:
    if not isinstance(raw, dict):
        raise InvalidParams(
            f"`{field}` must be an object with old_string, new_string and optionally "
            "expected_replacements.",
            {"field": field},
        )
    for key in raw:
        if key not in attrs.fields_dict(EditShape):
            hint = (
                "set expected_replacements to the number of occurrences instead"
                if key == "replace_all"
                else "an edit has old_string, new_string and expected_replacements"
            )
            raise InvalidParams(
                f"`{field}.{key}` is not supported; {hint}.", {"field": f"{field}.{key}"}
            )
    try:
        return structure_item(raw, EditShape)
    except BadFields as exc:
        name = exc.names[0]
        if name == "expected_replacements":
            problem = "must be an integer of 1 or more: the number of occurrences to replace"
        else:
            problem = "is required" if raw.get(name) is None else "must be a string"
        raise InvalidParams(f"`{field}.{name}` {problem}.", {"field": f"{field}.{name}"}) from None


def structure_edits(raw: object) -> list[EditShape]:
    """The ``edits`` parameter of ``waymark.multiReplace``; errors name the field."""
    if not isinstance(raw, list) or not raw:
        raise InvalidParams(
            "`edits` must be a non-empty array of {old_string, new_string, "
            "expected_replacements?} objects.",
            {"field": "edits"},
        )
    return [_structure_edit(f"edits[{i}]", item) for i, item in enumerate(raw)]


register_hook(list[EditShape], structure_edits)


def _empty_old_string(index: int | None) -> InvalidParams:
    field = "old_string" if index is None else f"edits[{index}].old_string"
    details: dict[str, Any] = {"field": field, "use": "waymark.write"}
    return InvalidParams(
        f"`{field}` is empty",
        details if index is None else {"edit_index": index, **details},
        next_step="write",
    )


def replace_text(text: str, edit: ReplaceEdit) -> ReplaceResult:
    """:func:`plan_replace`, its refusals worded for ``waymark.replace``."""
    try:
        return plan_replace(text, edit)
    except EmptyOldString:
        raise _empty_old_string(None) from None


def multi_replace_text(text: str, edits: Sequence[ReplaceEdit]) -> ReplaceResult:
    """:func:`plan_multi_replace`, its refusals worded for ``waymark.multiReplace``: an edit's
    error names it (``edits[1]: …``, ``edit_index``)."""
    if not edits:
        raise InvalidParams("`edits` must not be empty.", {"field": "edits"})
    try:
        return plan_multi_replace(text, edits)
    except ConflictingEdits as exc:
        listed = "; ".join(
            f"edits[{c['edits'][0]}] and edits[{c['edits'][1]}]: {_REASONS[c['reason']]}"
            for c in exc.conflicts[:5]
        )
        raise EditConflict(
            f"The edits conflict ({listed}); make every old_string match the file as read and "
            "touch a different place (merge edits that touch the same lines).",
            {"conflicts": exc.conflicts},
        ) from None
    except BatchEditFailed as exc:
        error = exc.error
        if isinstance(error, EmptyOldString):
            raise _empty_old_string(exc.index) from None
        raise type(error)(
            f"edits[{exc.index}]: {error.message}", {"edit_index": exc.index, **error.details}
        ) from None


def write_bytes(existing: TextFile | None, content: str, new: TextFile | None = None) -> bytes:
    """:func:`plan_write`, a text it cannot encode refused as ``content``."""
    try:
        return plan_write(existing, content, new)
    except UnencodableText as exc:
        raise InvalidParams(
            f"`content` cannot be written as {exc.encoding}: it has a lone surrogate at "
            f"offset {exc.offset}.",
            {"field": "content", "offset": exc.offset},
        ) from None


@attrs.define(kw_only=True)
class WriteParams:
    path: str = param(PATH)
    content: str = param("The whole new file content.")
    preview: bool = param(PREVIEW, default=False)
    encoding: str | None = param(ENCODING, default=None)


def _read_guarded(ctx: CommandContext, loaded: Loaded) -> Loaded:
    assert loaded.digest is not None
    ctx.session.require_fresh_read(loaded.resolved.real, loaded.digest, loaded.resolved.display)
    return loaded


def _replace_in_file(
    ctx: CommandContext,
    path: str,
    encoding: str | None,
    plan: Callable[[str], ReplaceResult],
    field: str,
    label: str,
) -> tuple[Proposal, ReplaceResult]:
    loaded = _read_guarded(ctx, load_path(ctx, path, encoding=encoding))
    tf = loaded.text_file()
    planned = plan(tf.text)
    result = {
        "snippet": planned.snippet,
        "replacements": planned.replacements,
        "warnings": list(planned.warnings),
    }
    change = FileChange(loaded, encode_as(tf, planned.text, field))
    result.update(new_anchors(tf, change))
    return Proposal("replace", label, [change], result), planned


def replace(ctx: CommandContext, params: ReplaceParams) -> Proposal:
    require(params.expected_replacements >= 1, "expected_replacements", "must be 1 or more")
    edit = ReplaceEdit(params.old_string, params.new_string, params.expected_replacements)
    proposal, _ = _replace_in_file(
        ctx,
        params.path,
        params.encoding,
        lambda text: replace_text(text, edit),
        "new_string",
        "Waymark: replace",
    )
    return proposal


def multi_replace(ctx: CommandContext, params: MultiReplaceParams) -> Proposal:
    edits = [ReplaceEdit(e.old_string, e.new_string, e.expected_replacements) for e in params.edits]
    proposal, planned = _replace_in_file(
        ctx,
        params.path,
        params.encoding,
        lambda text: multi_replace_text(text, edits),
        "edits",
        "Waymark: multi-replace",
    )
    proposal.result["editsApplied"] = planned.edits_applied
    return proposal


def write(ctx: CommandContext, params: WriteParams) -> Proposal:
    resolved = ctx.workspace.resolve(params.path)
    loaded = load(ctx, resolved, must_exist=False, encoding=params.encoding)
    existing = None
    if loaded.exists:
        loaded = _read_guarded(ctx, load_path(ctx, params.path, encoding=params.encoding))
        existing = loaded.text_file()
    after = write_bytes(existing, params.content, loaded.empty())
    change = FileChange(loaded, after)
    result = {"action": "updated" if loaded.exists else "created", **new_anchors(existing, change)}
    return Proposal("write", "Waymark: write", [change], result)

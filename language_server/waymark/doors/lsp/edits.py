"""The LSP door's edits: ``WorkspaceEdit``\\s for a client, and the results it answers with.

Edits are plain JSON-shaped dicts (the server converts them with lsprotocol at the wire), so
this module is pure and testable without a client. Text edits replace whole lines, so every
position is at character 0 except the end of an unterminated last line, whose column is
counted in UTF-16 code units as LSP requires.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from waymark.commands.changes import Proposal, edit_targets
from waymark.commands.pending import PendingStore
from waymark.engine.diff import EditTarget, opcodes
from waymark.engine.text import TextFile


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _position(tf: TextFile, index: int) -> dict[str, int]:
    """Start of line ``index``, or the end of an unterminated last line when past it."""
    if index < len(tf.lines) or tf.final_newline or not tf.lines:
        return {"line": index, "character": 0}
    return {"line": len(tf.lines) - 1, "character": utf16_len(tf.lines[-1])}


def text_edits(before: TextFile, after: TextFile) -> list[dict[str, Any]]:
    """Minimal whole-line LSP ``TextEdit``s turning ``before`` into ``after``."""
    old = before.lines_with_ends()
    new = after.lines_with_ends()
    edits: list[dict[str, Any]] = []
    for tag, i1, i2, j1, j2 in opcodes(old, new):
        if tag == "equal":
            continue
        edits.append(
            {
                "range": {"start": _position(before, i1), "end": _position(before, i2)},
                "newText": "".join(new[j1:j2]),
            }
        )
    return edits


@dataclass(frozen=True)
class WorkspaceEdits:
    """Builds one client's ``WorkspaceEdit``\\s.

    ``annotations`` is the client's ``changeAnnotationSupport``, read once at initialize: a
    client without it gets the same edits plain, labelled only by the request.
    """

    annotations: bool

    def build(self, targets: Sequence[EditTarget], label: str, *, confirm: bool) -> dict[str, Any]:
        """A ``WorkspaceEdit`` for ``targets``; with annotations, one ``ChangeAnnotation`` per
        file whose ``needsConfirmation`` is ``confirm``."""
        changes: list[dict[str, Any]] = []
        annotations: dict[str, dict[str, Any]] = {}
        for target in targets:
            annotated: dict[str, str] = {}
            if self.annotations:
                annotation = f"waymark:{target.display}"
                annotations[annotation] = {
                    "label": f"{label}: {target.display}",
                    "needsConfirmation": confirm,
                    "description": "Proposed by Waymark",
                }
                annotated = {"annotationId": annotation}
            if target.after is None:
                changes.append(
                    {
                        "kind": "delete",
                        "uri": target.uri,
                        "options": {"ignoreIfNotExists": True},
                        **annotated,
                    }
                )
                continue
            before = target.before
            if before is None:
                changes.append(
                    {
                        "kind": "create",
                        "uri": target.uri,
                        "options": {"overwrite": False, "ignoreIfExists": False},
                        **annotated,
                    }
                )
                before = TextFile((), (), target.after.encoding, target.after.bom)
            edits = text_edits(before, target.after)
            if not edits:
                continue
            changes.append(
                {
                    "textDocument": {"uri": target.uri, "version": target.version},
                    "edits": [{**edit, **annotated} for edit in edits],
                }
            )
        if not self.annotations:
            return {"documentChanges": changes}
        return {"documentChanges": changes, "changeAnnotations": annotations}


async def lsp_result(
    result: dict[str, Any], pending: PendingStore[Any], edits: WorkspaceEdits
) -> dict[str, Any]:
    """A command's result as ``workspace/executeCommand`` answers it: a preview also carries
    its ``WorkspaceEdit``, built from the parked proposal, for a client that applies the
    proposal itself."""
    if not (result.get("ok") and result.get("preview") is True):
        return result
    # Read on the loop: the store is not shared with worker threads.
    proposal: Proposal | None = pending.get(result["token"])
    if proposal is None:  # already pushed out by newer previews: its token is spent anyway
        return result
    targets = edit_targets([c for c in proposal.changes if c.changed])
    # Diffing a large file takes a while: off the loop, as the preview's unified diff is.
    edit = await asyncio.to_thread(edits.build, targets, proposal.label, confirm=True)
    return {**result, "workspaceEdit": edit}

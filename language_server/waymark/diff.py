"""Diffs in the shapes people and editors read: unified text and LSP edits (pure).

LSP edits are built as plain JSON-shaped dicts (the protocol layer converts them), so the
engine and the CLI never import lsprotocol. Text edits replace whole lines, so every position
is at character 0 except the end of an unterminated last line, whose column is counted in
UTF-16 code units as LSP requires.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .text import TextFile, split_lines


def unified_diff(display: str, before: str | None, after: str | None, context: int = 3) -> str:
    """A ``git diff``-style unified diff; ``None`` stands for an absent file."""
    old = [] if before is None else _with_ends(before)
    new = [] if after is None else _with_ends(after)
    lines = difflib.unified_diff(
        old,
        new,
        fromfile="/dev/null" if before is None else f"a/{display}",
        tofile="/dev/null" if after is None else f"b/{display}",
        n=context,
    )
    out: list[str] = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _with_ends(text: str) -> list[str]:
    lines, eols = split_lines(text)
    return [line + eol for line, eol in zip(lines, eols, strict=True)]


@dataclass(frozen=True)
class DiffStats:
    insertions: int
    deletions: int


def count_changes(before: Sequence[str], after: Sequence[str]) -> DiffStats:
    """Lines inserted and deleted between two line lists."""
    insertions = deletions = 0
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            deletions += i2 - i1
        if tag in ("replace", "insert"):
            insertions += j2 - j1
    return DiffStats(insertions, deletions)


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _position(tf: TextFile, index: int) -> dict[str, int]:
    """Start of line ``index``, or the end of an unterminated last line when past it."""
    if index < len(tf.lines) or tf.final_newline or not tf.lines:
        return {"line": index, "character": 0}
    return {"line": len(tf.lines) - 1, "character": utf16_len(tf.lines[-1])}


def text_edits(before: TextFile, after: TextFile) -> list[dict[str, Any]]:
    """Minimal whole-line LSP ``TextEdit``s turning ``before`` into ``after``."""
    old = [line + eol for line, eol in zip(before.lines, before.eols, strict=True)]
    new = [line + eol for line, eol in zip(after.lines, after.eols, strict=True)]
    edits: list[dict[str, Any]] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
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
class EditTarget:
    """One file of a proposed change, as the workspace edit needs it."""

    uri: str
    display: str
    before: TextFile | None  # None: the file does not exist yet
    after: TextFile | None  # None: the file is deleted
    version: int | None  # the open document's version, when the editor has it open


def workspace_edit(
    targets: Sequence[EditTarget], label: str, *, confirm: bool = True
) -> dict[str, Any]:
    """An LSP ``WorkspaceEdit`` with one ``ChangeAnnotation`` per file."""
    changes: list[dict[str, Any]] = []
    annotations: dict[str, dict[str, Any]] = {}
    for target in targets:
        annotation = f"waymark:{target.display}"
        annotations[annotation] = {
            "label": f"{label}: {target.display}",
            "needsConfirmation": confirm,
            "description": "Proposed by Waymark",
        }
        if target.after is None:
            changes.append(
                {
                    "kind": "delete",
                    "uri": target.uri,
                    "options": {"ignoreIfNotExists": True},
                    "annotationId": annotation,
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
                    "annotationId": annotation,
                }
            )
            before = TextFile((), (), target.after.encoding, target.after.bom)
        edits = text_edits(before, target.after)
        if not edits:
            continue
        for edit in edits:
            edit["annotationId"] = annotation
        changes.append(
            {
                "textDocument": {"uri": target.uri, "version": target.version},
                "edits": edits,
            }
        )
    return {"documentChanges": changes, "changeAnnotations": annotations}

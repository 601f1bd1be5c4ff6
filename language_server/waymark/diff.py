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

from .text import TextFile

Opcode = tuple[str, int, int, int, int]


def common_ends(before: Sequence[Any], after: Sequence[Any]) -> tuple[int, int]:
    """How many leading and trailing items two sequences share (never overlapping)."""
    limit = min(len(before), len(after))
    head = 0
    while head < limit and before[head] == after[head]:
        head += 1
    tail = 0
    while tail < limit - head and before[-1 - tail] == after[-1 - tail]:
        tail += 1
    return head, tail


def opcodes(before: Sequence[str], after: Sequence[str]) -> list[Opcode]:
    """difflib opcodes, computed only between the first and last differing lines.

    Agents change a few lines of large files; trimming the common head and tail first keeps
    diffing proportional to the change instead of quadratic-ish in the file.
    """
    head, tail = common_ends(before, after)
    matcher = difflib.SequenceMatcher(
        None, before[head : len(before) - tail], after[head : len(after) - tail], autojunk=False
    )
    ops: list[Opcode] = [("equal", 0, head, 0, head)] if head else []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        op = (tag, i1 + head, i2 + head, j1 + head, j2 + head)
        if tag == "equal" and ops and ops[-1][0] == "equal":
            ops[-1] = ("equal", ops[-1][1], op[2], ops[-1][3], op[4])
        else:
            ops.append(op)
    if tail:
        op = ("equal", len(before) - tail, len(before), len(after) - tail, len(after))
        if ops and ops[-1][0] == "equal":
            ops[-1] = ("equal", ops[-1][1], op[2], ops[-1][3], op[4])
        else:
            ops.append(op)
    return ops


def _hunks(ops: list[Opcode], context: int) -> list[list[Opcode]]:
    """Group changes whose equal gap is at most ``2 * context`` lines, with context around."""
    changes = [op for op in ops if op[0] != "equal"]
    hunks: list[list[Opcode]] = []
    for op in changes:
        if hunks and op[1] - hunks[-1][-1][2] <= 2 * context:
            last = hunks[-1][-1]
            if op[1] > last[2]:
                hunks[-1].append(("equal", last[2], op[1], last[4], op[3]))
            hunks[-1].append(op)
        else:
            hunks.append([op])
    return hunks


def _range(start: int, length: int) -> str:
    # Unified-diff convention: 1-based start; an empty range names the line before it.
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


@dataclass(frozen=True)
class DiffStats:
    insertions: int
    deletions: int


@dataclass(frozen=True)
class FileDiff:
    """A file's unified diff and its line counts, from one diffing pass."""

    text: str
    stats: DiffStats


def _stats(ops: list[Opcode]) -> DiffStats:
    insertions = deletions = 0
    for tag, i1, i2, j1, j2 in ops:
        if tag in ("replace", "delete"):
            deletions += i2 - i1
        if tag in ("replace", "insert"):
            insertions += j2 - j1
    return DiffStats(insertions, deletions)


def diff_file(
    display: str, before: TextFile | None, after: TextFile | None, context: int = 3
) -> FileDiff:
    """A ``git diff``-style unified diff (``None`` stands for an absent file) and its counts."""
    old = [] if before is None else before.lines_with_ends()
    new = [] if after is None else after.lines_with_ends()
    ops = opcodes(old, new)
    hunks = _hunks(ops, context)
    if not hunks:
        return FileDiff("", _stats(ops))
    out = [
        "--- /dev/null\n" if before is None else f"--- a/{display}\n",
        "+++ /dev/null\n" if after is None else f"+++ b/{display}\n",
    ]
    for hunk in hunks:
        a1 = max(hunk[0][1] - context, 0)
        b1 = max(hunk[0][3] - context, 0)
        a2 = min(hunk[-1][2] + context, len(old))
        b2 = min(hunk[-1][4] + context, len(new))
        out.append(f"@@ -{_range(a1, a2 - a1)} +{_range(b1, b2 - b1)} @@\n")
        lines = [" " + line for line in old[a1 : hunk[0][1]]]
        for tag, i1, i2, j1, j2 in hunk:
            if tag == "equal":
                lines.extend(" " + line for line in old[i1:i2])
                continue
            lines.extend("-" + line for line in old[i1:i2])
            lines.extend("+" + line for line in new[j1:j2])
        lines.extend(" " + line for line in old[hunk[-1][2] : a2])
        out.extend(
            line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
            for line in lines
        )
    return FileDiff("".join(out), _stats(ops))


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

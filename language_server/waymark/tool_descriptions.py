"""The model-facing tools: names, descriptions and JSON input schemas, in one place.

The server's ``waymark.describeTools``, the CLI's ``waymark describe-tools`` and the VS Code
tool manifest are all generated from :data:`TOOLS`, so an agent reads the same guidance
whichever host runs it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ToolSpec:
    name: str
    command: str
    description: str
    input_schema: dict[str, Any]


_PATH = {
    "type": "string",
    "description": "File path, absolute or relative to the first workspace folder.",
}
_PREVIEW = {
    "type": "boolean",
    "default": False,
    "description": "true: write nothing; return the diff and a token for approval.",
}


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


READ = """Read a text file. With hashes=true every line comes back as LINE#HASH|content: \
HASH is a short content hash that names the line for waymark_edit.

Anchor freshness: read a file, then edit it, one file at a time. After an edit, anchors \
are valid only up to details.anchors_valid_through; re-read from details.must_refresh_from_line \
(offset=that line) before the next edit of the same file. Never reuse anchors from an older read \
of a file that has changed.

Anchor selection: a line marked LINE#HASH~| (tilde) has a low-quality anchor (blank, \
punctuation-only such as `}`, or repeated boilerplate); do not use it for single-line edits. \
Prefer unique, high-quality anchors; to change text around repetitive lines, use a range whose \
ends are distinctive lines. A hash like `a1b2c3.2` (with .N) is the N-th line sharing that \
hash; copy it as it is.

Line numbers are advisory; the hash is the identity. Results: lines [{line, text, hash, \
quality}] and a rendered text. Page big files with offset (1-based) and limit."""

EDIT = """Edit one file by line anchors from waymark_read(hashes=true). Pass the HASH part of \
LINE#HASH (e.g. "a1b2c3" or "a1b2c3.2"); optionally pass the line number as `line`.

Operations (all resolve against the file as it was when you read it; the batch is atomic):
- replace_line {hash, content}: replace one line with content (one or more lines).
- replace_range {start_hash, end_hash, content}: replace lines start..end inclusive.
- insert_after {hash, content} / insert_before {hash, content}: add lines next to a line.
- delete_line {hash}: delete one line.
- delete_range {start_hash, end_hash}: delete lines start..end inclusive.
Single-line ops also take occurrence (1-based, among lines sharing the hash) and line \
(advisory tie-breaker: used only when the hash names several lines and one is exactly there).

Rules: content is split on newlines after dropping one trailing newline; new lines take the \
file's line ending; write content without line numbers or hashes. Single-line ops refuse \
low-quality lines (anchor_low_entropy lists nearby good anchors; use a range from one to the \
other). Operations in one batch must not touch the same line or insert at the same point \
(operations_overlap): merge them. A range whose start equals its end is invalid_range_order; \
a reversed range is swapped and reported in auto_corrections. Edits that unbalance brackets or \
create an identical adjacent duplicate line are refused (safety_check_failed).

Freshness: after success, re-read from details.must_refresh_from_line before editing the same \
file again; anchor_stale means the line changed: re-read the file. Several files: finish \
read -> edit for one file before reading the next. Line numbers are advisory; the hash is the \
identity. preview=true returns the diff without writing."""

_READ_SCHEMA = _object(
    {
        "path": _PATH,
        "hashes": {
            "type": "boolean",
            "default": False,
            "description": "true: add a LINE#HASH anchor and quality to every line (needed "
            "before waymark_edit).",
        },
        "offset": {
            "type": "integer",
            "minimum": 1,
            "default": 1,
            "description": "First line to return (1-based).",
        },
        "limit": {"type": "integer", "minimum": 1, "description": "How many lines to return."},
    },
    ["path"],
)

_ANCHOR = {"type": "string", "description": "HASH from LINE#HASH, e.g. 'a1b2c3' or 'a1b2c3.2'."}
_CONTENT = {
    "type": "string",
    "description": "New text; several lines separated by \\n; one trailing \\n is dropped.",
}
_OPERATION = {
    "type": "object",
    "properties": {
        "op": {
            "type": "string",
            "enum": [
                "replace_line",
                "replace_range",
                "insert_after",
                "insert_before",
                "delete_line",
                "delete_range",
            ],
        },
        "hash": _ANCHOR,
        "start_hash": _ANCHOR,
        "end_hash": _ANCHOR,
        "content": _CONTENT,
        "occurrence": {
            "type": "integer",
            "minimum": 1,
            "description": "Single-line ops: which of several lines sharing the hash.",
        },
        "line": {
            "type": "integer",
            "minimum": 1,
            "description": "Single-line ops: advisory line number (the hash wins).",
        },
    },
    "required": ["op"],
    "additionalProperties": False,
}
_EDIT_SCHEMA = _object(
    {
        "path": _PATH,
        "operations": {"type": "array", "minItems": 1, "items": _OPERATION},
        "preview": _PREVIEW,
    },
    ["path", "operations"],
)

REPLACE = """Replace exact text in a file: old_string must occur exactly expected_replacements \
times (default 1), matched literally, whitespace included. Read the file first (waymark_read) \
in this session; if it changed since that read the call fails with file_changed_since_read: \
read it again. Make old_string long enough to be unique. When not found, the error suggests \
close matches. preview=true returns the diff without writing."""

MULTI_REPLACE = """Apply several exact-text replacements to one file atomically, in order, each \
on the result of the previous one; each old_string must occur exactly its \
expected_replacements times (default 1). All succeed or nothing is written. Read the file \
first; a file changed since that read fails with file_changed_since_read."""

WRITE = """Create a file or replace its whole content. An existing file must have been read \
in this session and be unchanged since (otherwise read_required / file_changed_since_read); \
prefer waymark_edit or waymark_replace for changes to existing files. Returns action \
created|updated and a diff."""

SED = """Run an in-place sed substitution as a tracked edit: pass the whole shell line, e.g. \
sed -i 's/old/new/g' path. Only forms provably identical to GNU sed are simulated (s command \
with flags g/N, -E/-r, -e, other delimiters, & and \\1-\\9, one file); the answer then has \
simulated:true and a diff like waymark_edit. Anything else (pipes, globs, addresses, several \
files, -n, backups, ...) answers simulated:false with a reason and changes nothing: run the \
command in your shell instead."""

SNAPSHOT = """Mark the start of a conversation turn: record the state of every file Waymark \
has tracked under promptId, so the code can later be rewound to this point."""

TURNS = """List the recorded turns: promptId, label, timestamp, files, and whether each can \
be restored."""

REWIND = """Restore tracked files to their state at the start of the turn promptId. \
option: code (files), conversation (only notify the host to truncate the chat) or both. \
Files changed by someone else since the agent's last write are reported as conflicts and \
left alone unless force=true. The current state is snapshotted first and returned as \
undoPromptId, so a rewind can be undone. preview=true lists what would change."""

TOOLS: list[ToolSpec] = [
    ToolSpec("waymark_read", "waymark.read", READ, _READ_SCHEMA),
    ToolSpec("waymark_edit", "waymark.edit", EDIT, _EDIT_SCHEMA),
    ToolSpec(
        "waymark_replace",
        "waymark.replace",
        REPLACE,
        _object(
            {
                "path": _PATH,
                "old_string": {"type": "string", "description": "Exact text to find."},
                "new_string": {"type": "string", "description": "Text to put instead."},
                "expected_replacements": {"type": "integer", "minimum": 1, "default": 1},
                "preview": _PREVIEW,
            },
            ["path", "old_string", "new_string"],
        ),
    ),
    ToolSpec(
        "waymark_multi_replace",
        "waymark.multiReplace",
        MULTI_REPLACE,
        _object(
            {
                "path": _PATH,
                "edits": {
                    "type": "array",
                    "minItems": 1,
                    "items": _object(
                        {
                            "old_string": {"type": "string"},
                            "new_string": {"type": "string"},
                            "expected_replacements": {
                                "type": "integer",
                                "minimum": 1,
                                "default": 1,
                            },
                        },
                        ["old_string", "new_string"],
                    ),
                },
                "preview": _PREVIEW,
            },
            ["path", "edits"],
        ),
    ),
    ToolSpec(
        "waymark_write",
        "waymark.write",
        WRITE,
        _object(
            {
                "path": _PATH,
                "content": {"type": "string", "description": "The whole new file content."},
                "preview": _PREVIEW,
            },
            ["path", "content"],
        ),
    ),
    ToolSpec(
        "waymark_sed",
        "waymark.sed",
        SED,
        _object(
            {
                "command": {"type": "string", "description": "The whole sed shell line."},
                "cwd": {"type": "string", "description": "Directory the command runs in."},
                "preview": _PREVIEW,
            },
            ["command"],
        ),
    ),
    ToolSpec(
        "waymark_snapshot",
        "waymark.snapshot",
        SNAPSHOT,
        _object(
            {
                "promptId": {"type": "string", "description": "Id of the turn that starts."},
                "label": {"type": "string", "description": "Short human-readable label."},
            },
            ["promptId"],
        ),
    ),
    ToolSpec("waymark_turns", "waymark.turns", TURNS, _object({}, [])),
    ToolSpec(
        "waymark_rewind",
        "waymark.rewind",
        REWIND,
        _object(
            {
                "promptId": {"type": "string", "description": "The turn to go back to."},
                "option": {
                    "type": "string",
                    "enum": ["code", "conversation", "both"],
                    "default": "code",
                },
                "preview": _PREVIEW,
                "force": {
                    "type": "boolean",
                    "default": False,
                    "description": "Also restore files changed by someone else.",
                },
            },
            ["promptId"],
        ),
    ),
]


def describe_tools() -> list[dict[str, Any]]:
    """``[{name, command, description, inputSchema}]`` for every tool, in a stable order."""
    return [
        {
            "name": t.name,
            "command": t.command,
            "description": t.description,
            "inputSchema": t.input_schema,
        }
        for t in TOOLS
    ]

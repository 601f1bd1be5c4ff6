"""What the model reads: each tool's description and the wording of shared parameters.

Only prose lives here. Tool names, commands and JSON Schemas come from the command spec
(``commands/registry.py``) and the params classes, so every door (LSP ``describeTools``, the
CLI, MCP, the VS Code manifest) publishes the same guidance.
"""

from __future__ import annotations

PATH = "File path, absolute or relative to the first workspace folder."
PREVIEW = "true: write nothing; return the diff and a token for approval."
ANCHOR = "HASH from LINE#HASH, e.g. 'a1b2c3' or 'a1b2c3.2'."
ENCODING = (
    "The file's encoding (e.g. windows-1252, gbk, shift_jis) when a read's `encoding` is "
    "not the file's real one; give the same one to the edits."
)
CONTENT = "New text; several lines separated by \\n; one trailing \\n is dropped."

# What an agent reads when the user rejects its change in an editor: one sentence for every
# approval path (the server asking the editor, the editor bridge, the VS Code diff editor), so
# agents learn one reaction.
DECLINED = (
    "The user declined the change in the editor; nothing was written. Ask before trying a "
    "different change."
)

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
quality}] and a rendered text. Page big files with offset (1-based) and limit.

A Jupyter notebook (.ipynb) reads as its cells: index, id, type, source lines numbered within \
the cell, outputs in brief; change them with waymark_notebook_edit. raw=true gives the JSON."""

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

SED = """Run an in-place sed edit as a tracked edit: pass the whole shell line, e.g. \
sed -i 's/old/new/g' path. Only forms provably identical to GNU sed are simulated (s with \
g/N/p/I, addresses N $ /re/ ranges ! first~step, d p a i c y q { } n N D P h H g G x b t, \
-n, -E, several -e, several files, * and ? globs in file names, -i.bak backups, r/R/w/W and \
the s///w flag on workspace files); the answer then has simulated:true and a diff per file \
like waymark_edit. Anything else (pipes, variables, [...] or ** globs, e, ...) answers \
simulated:false with a reason and changes nothing: run the command in your shell instead."""

NOTEBOOK_EDIT = """Edit a Jupyter notebook (.ipynb) cell by cell; read it with waymark_read \
first (it shows each cell's index and id). Operations, all against the notebook as read, \
atomic as a batch:
- replace_cell {cell, source, cell_type?}: the cell's whole new source (and type).
- insert_cell {cell?, source, cell_type?}: a new cell (default code) after `cell`, or first \
when `cell` is omitted; several after one cell keep their order.
- delete_cell {cell}.
`cell` is the cell's id (nbformat 4.5+) or its 0-based index. A code cell whose source \
changes loses its outputs and execution count (it has not run). Two operations on one cell \
are refused (operations_overlap); a missing cell is cell_not_found; nothing is written on \
any refusal. Every other cell, the metadata and the file's formatting stay byte for byte. \
preview=true returns the diff without writing."""

SNAPSHOT = """Mark the start of a conversation turn: record the state of every file Waymark \
has tracked under promptId, so the code can later be rewound to this point."""

TURNS = """List the recorded turns: promptId, label, timestamp, files, and whether each can \
be restored."""

REWIND = """Restore tracked files to their state at the start of the turn promptId. \
option: code (files), conversation (only notify the host to truncate the chat) or both. \
Files changed by someone else since the agent's last write are reported as conflicts and \
left alone unless force=true. The current state is snapshotted first and returned as \
undoPromptId, so a rewind can be undone. preview=true lists what would change."""

DIFF_STATS = """What rewinding to the start of the turn promptId would undo: files changed, \
lines inserted and deleted, and per file its status (modified, created, deleted) and counts. \
Writes nothing."""

PATCH = """Apply a unified diff (diff -u or git diff output) to one or more files as one \
atomic, reviewable change: every hunk of every file applies or nothing is written. Prefer it \
over anchored edits when you already have a diff (a review, a patch file, your own diff of \
several files) or change many files at once; prefer waymark_edit for a few lines of one file \
you just read. Each hunk must match the file's current lines exactly (context and removed \
lines), at its stated line or the nearest unambiguous offset (reported in patched[].offsets); \
there is no fuzzy matching. Created (--- /dev/null), deleted (+++ /dev/null), renamed and \
copied files (git headers) are supported; binary diffs are refused. A hunk that does not \
match answers patch_failed naming the file, the hunk and the first mismatching line with the \
file's actual text: read the file and redo the diff against it. Line endings, encoding and \
BOM of each file are kept. Paths are relative to cwd (default: the workspace); git's a/ b/ \
prefixes are stripped automatically. preview=true returns the diff without writing."""

"""Typed errors shared by the engine and the command layer.

Every error carries one of the contract's codes (docs/protocol.md), a one-sentence message
and JSON-safe details. Where what to do next is another command, the error names the step
as data (``next_step``) and the command layer words it (``commands/wording.py``): the engine
and the store never name a command. The command layer turns errors into
``{"ok": false, "error": code, ...}`` without guessing.
"""

from __future__ import annotations

from typing import Any, ClassVar


class WaymarkError(Exception):
    """Base of every error a command can answer with."""

    code: ClassVar[str] = "internal_error"

    def __init__(
        self,
        message: str,
        details: dict[str, Any] | None = None,
        *,
        next_step: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.details: dict[str, Any] = dict(details or {})
        # "read": the file must be read first; "create": it can be created with a write.
        self.next_step = next_step

    def to_result(self) -> dict[str, Any]:
        return {"ok": False, "error": self.code, "message": self.message, "details": self.details}


class InvalidParams(WaymarkError):
    """A parameter is missing, mistyped or out of range."""

    code: ClassVar[str] = "invalid_params"


class PathOutsideWorkspace(WaymarkError):
    """The path resolves outside every folder."""

    code: ClassVar[str] = "path_outside_workspace"


class ProtectedPath(WaymarkError):
    """The path matches a protected glob."""

    code: ClassVar[str] = "protected_path"


class FileNotFound(WaymarkError):
    """The file does not exist."""

    code: ClassVar[str] = "file_not_found"


class IsDirectory(WaymarkError):
    """The path is a directory."""

    code: ClassVar[str] = "is_directory"


class NotRegularFile(WaymarkError):
    """The path is a FIFO, socket, device or other non-regular file."""

    code: ClassVar[str] = "not_regular_file"


class BinaryFile(WaymarkError):
    """The file looks binary and is not edited as text."""

    code: ClassVar[str] = "binary_file"


class UnrepresentableCharacter(WaymarkError):
    """An edit brings a character the file's encoding cannot hold; nothing is written."""

    code: ClassVar[str] = "unrepresentable_character"


class FileTooLarge(WaymarkError):
    """The file is larger than the configured limit."""

    code: ClassVar[str] = "file_too_large"


class ReadRequired(WaymarkError):
    """The session must read the file before changing it."""

    code: ClassVar[str] = "read_required"


class FileChangedSinceRead(WaymarkError):
    """The content changed since the session read it."""

    code: ClassVar[str] = "file_changed_since_read"


class AnchorStale(WaymarkError):
    """An anchor no longer names any line."""

    code: ClassVar[str] = "anchor_stale"


class AnchorAmbiguous(WaymarkError):
    """An anchor names several lines."""

    code: ClassVar[str] = "anchor_ambiguous"


class AnchorContextAmbiguous(WaymarkError):
    """A range endpoint names several lines."""

    code: ClassVar[str] = "anchor_context_ambiguous"


class AnchorLowEntropy(WaymarkError):
    """A single-line op targets a low-quality line."""

    code: ClassVar[str] = "anchor_low_entropy"


class InvalidRangeOrder(WaymarkError):
    """A range starts and ends on the same line."""

    code: ClassVar[str] = "invalid_range_order"


class OperationsOverlap(WaymarkError):
    """Two operations of a batch touch the same lines."""

    code: ClassVar[str] = "operations_overlap"


class SafetyCheckFailed(WaymarkError):
    """The edit looks like a mistake and was refused."""

    code: ClassVar[str] = "safety_check_failed"


class LineEndingsWouldMerge(WaymarkError):
    """A line ending in a lone CR would take the empty LF line after it along on re-read."""

    code: ClassVar[str] = "line_endings_would_merge"


class OldStringNotFound(WaymarkError):
    """old_string does not occur in the file."""

    code: ClassVar[str] = "old_string_not_found"


class ReplacementCountMismatch(WaymarkError):
    """old_string occurs a different number of times than expected."""

    code: ClassVar[str] = "replacement_count_mismatch"


class NoOp(WaymarkError):
    """The change would leave the file as it is."""

    code: ClassVar[str] = "no_op"


class EditConflict(WaymarkError):
    """Edits of one batch depend on or contradict each other."""

    code: ClassVar[str] = "edit_conflict"


class PatchFailed(WaymarkError):
    """A hunk of a patch does not match the file; nothing was written."""

    code: ClassVar[str] = "patch_failed"


class UnknownPrompt(WaymarkError):
    """No snapshot has that promptId."""

    code: ClassVar[str] = "unknown_prompt"


class UnknownToken(WaymarkError):
    """No pending preview has that token."""

    code: ClassVar[str] = "unknown_token"


class RewindInProgress(WaymarkError):
    """A rewind is running in this session."""

    code: ClassVar[str] = "rewind_in_progress"


class Declined(WaymarkError):
    """The user declined the change in the editor."""

    code: ClassVar[str] = "declined"


class WorkspaceGone(WaymarkError):
    """A workspace folder is no longer the directory the door opened (moved, deleted, replaced)."""

    code: ClassVar[str] = "workspace_gone"


class InternalError(WaymarkError):
    """A bug: the server caught an unexpected exception."""

    code: ClassVar[str] = "internal_error"


class IoError(WaymarkError):
    """An operating-system error; details carry the errno name (ENOSPC, EACCES, ...)."""

    code: ClassVar[str] = "io_error"

    @classmethod
    def from_os_error(cls, exc: OSError, action: str, path: str) -> IoError:
        import errno as errno_mod

        name = errno_mod.errorcode.get(exc.errno or 0, "EIO")
        reason = exc.strerror or str(exc)
        return cls(
            f"Could not {action} {path}: {reason} ({name}); nothing was changed, "
            "fix the cause and retry.",
            {"errno": name, "path": path},
        )

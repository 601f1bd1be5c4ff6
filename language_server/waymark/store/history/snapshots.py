"""The history model: per-turn snapshots of file states, and their journal (JSON) form.

A :class:`Snapshot` is the state of every tracked file at the start of one turn (one
``promptId``), plus the pre-image of every file first written during that turn. Each file's
state is a :class:`FileEntry`: ``present`` (its bytes are the blob named ``digest``),
``absent`` (the file did not exist), or ``failed`` (the backup could not be taken; ``error``
says why, and ``digest`` is kept when the bytes were read but could not be stored).

Files are keyed by absolute path so two workspace folders with the same relative names never
collide; ``display`` is the workspace-relative path results show.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal, cast

State = Literal["present", "absent", "failed"]
_STATES = ("present", "absent", "failed")


class ShapeError(ValueError):
    """A journal value is valid JSON of the wrong shape."""


@dataclass(frozen=True)
class FileEntry:
    """One file's state in one snapshot."""

    display: str
    state: State
    digest: str | None
    time: float
    error: str | None = None
    # Bytes of the blob (``present`` only), for the disk budget; None in older journals.
    size: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "display": self.display,
            "state": self.state,
            "digest": self.digest,
            "time": self.time,
        }
        if self.error is not None:
            out["error"] = self.error
        if self.size is not None:
            out["size"] = self.size
        return out

    @classmethod
    def from_json(cls, value: object) -> FileEntry:
        if not isinstance(value, dict):
            raise ShapeError("a file entry is not an object")
        display = value.get("display")
        state = value.get("state")
        digest = value.get("digest")
        time = value.get("time")
        error = value.get("error")
        size = value.get("size")
        if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 0):
            raise ShapeError("file entry with a malformed `size`")
        if not isinstance(display, str):
            raise ShapeError("file entry without a string `display`")
        if state not in _STATES:
            raise ShapeError(f"file entry with unknown state {state!r}")
        if digest is not None and not _is_digest(digest):
            raise ShapeError("file entry with a malformed `digest`")
        if state == "present" and digest is None:
            raise ShapeError("present file entry without a digest")
        if state == "absent" and digest is not None:
            raise ShapeError("absent file entry with a digest")
        if isinstance(time, bool) or not isinstance(time, int | float) or not math.isfinite(time):
            raise ShapeError("file entry without a numeric `time`")
        if error is not None and not isinstance(error, str):
            raise ShapeError("file entry with a non-string `error`")
        return cls(display, cast(State, state), digest, float(time), error, size)


def _is_digest(value: object) -> bool:
    return (
        isinstance(value, str) and len(value) == 32 and all(c in "0123456789abcdef" for c in value)
    )


# Turns of other programs' changes (the language server's watch) are named so.
WATCHED = "watch-"


def watched(prompt_id: str) -> bool:
    """Whether turn ``prompt_id`` records other programs' changes: closed as it is made."""
    return prompt_id.startswith(WATCHED)


@dataclass
class Snapshot:
    """A turn: file states at its start, and the files the agent wrote during it."""

    prompt_id: str
    label: str | None
    timestamp: str
    seq: int
    files: dict[str, FileEntry] = field(default_factory=dict)
    edited: set[str] = field(default_factory=set)
    # Files a shell command may have changed that the turn could not back up, and why.
    unreached: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class SnapshotRecord:
    """One entry of a journal record's ``snapshots`` list.

    A full record (``is_update`` false) replaces the snapshot with that ``promptId``. An
    update merges: ``files`` adds or heals entries, ``writes`` records what the agent last
    wrote (digest, or ``None`` for a delete) on behalf of ``session`` (``None``: a door with
    no session, such as the CLI), ``dropped`` removes the turn. A ``base`` record (written
    only by compaction) carries first backups of files whose turn is gone and last writes;
    ``edited`` lists files written during the turn when ``writes`` no longer says so.
    ``forget`` (a ``base`` record) lets go of the first backups of those files, evicted to fit
    the disk budget. A full record with ``inherit`` holds only the entries that differ from
    that (previous) turn's: a turn over thousands of unchanged files costs a few bytes.
    """

    prompt_id: str
    label: str | None
    timestamp: str
    seq: int
    is_update: bool
    files: dict[str, FileEntry]
    writes: dict[str, str | None]
    dropped: bool = False
    session: str | None = None
    base: bool = False
    edited: tuple[str, ...] = ()
    inherit: str | None = None
    forget: tuple[str, ...] = ()
    unreached: dict[str, str] = field(default_factory=dict)
    # For a file of ``writes`` recorded before it was written: what it held just before. A
    # process killed between the two leaves either, and a rewind must accept both.
    was: dict[str, str | None] = field(default_factory=dict)
    # Files of a failed change put back to what they held (that digest): their write ahead
    # never happened, and the turn lists them as edited no more when they hold its start.
    putback: dict[str, str | None] = field(default_factory=dict)

    @classmethod
    def update_of(
        cls,
        snap: Snapshot,
        files: dict[str, FileEntry] | None = None,
        writes: dict[str, str | None] | None = None,
        *,
        session: str | None = None,
        unreached: dict[str, str] | None = None,
        dropped: bool = False,
        was: dict[str, str | None] | None = None,
        putback: dict[str, str | None] | None = None,
    ) -> SnapshotRecord:
        """An update of ``snap``'s turn: entries added, writes noted, paths out of reach, or
        the turn dropped."""
        # One per edit: every field set at once, where a frozen dataclass's ``__init__`` sets
        # each through ``object.__setattr__`` (most of its cost). The same record as
        # ``cls(...)`` makes, field for field (tests/unit/history/test_history_records.py).
        record = object.__new__(cls)
        record.__dict__.update(
            prompt_id=snap.prompt_id,
            label=snap.label,
            timestamp=snap.timestamp,
            seq=snap.seq,
            is_update=True,
            files=files or {},
            writes=writes or {},
            dropped=dropped,
            session=session,
            base=False,
            edited=(),
            inherit=None,
            forget=(),
            unreached=unreached or {},
            was=was or {},
            putback=putback or {},
        )
        return record

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "promptId": self.prompt_id,
            "label": self.label,
            "timestamp": self.timestamp,
            "seq": self.seq,
            "isUpdate": self.is_update,
            "files": {key: entry.to_json() for key, entry in self.files.items()},
        }
        if self.writes:
            out["writes"] = self.writes
        if self.dropped:
            out["dropped"] = True
        if self.session is not None:
            out["session"] = self.session
        if self.base:
            out["base"] = True
        if self.edited:
            out["edited"] = list(self.edited)
        if self.inherit is not None:
            out["inherit"] = self.inherit
        if self.forget:
            out["forget"] = list(self.forget)
        if self.unreached:
            out["unreached"] = self.unreached
        if self.was:
            out["was"] = self.was
        if self.putback:
            out["putback"] = self.putback
        return out

    @classmethod
    def from_json(cls, value: object) -> SnapshotRecord:
        if not isinstance(value, dict):
            raise ShapeError("a snapshot is not an object")
        prompt_id = value.get("promptId")
        label = value.get("label")
        timestamp = value.get("timestamp")
        seq = value.get("seq")
        is_update = value.get("isUpdate", False)
        files = value.get("files", {})
        writes = value.get("writes", {})
        was = value.get("was", {})
        putback = value.get("putback", {})
        dropped = value.get("dropped", False)
        session = value.get("session")
        base = value.get("base", False)
        edited = value.get("edited", [])
        inherit = value.get("inherit")
        forget = value.get("forget", [])
        if not isinstance(forget, list) or not all(isinstance(k, str) for k in forget):
            raise ShapeError("snapshot whose `forget` is not a list of strings")
        unreached = value.get("unreached", {})
        if not isinstance(unreached, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in unreached.items()
        ):
            raise ShapeError("snapshot whose `unreached` is not an object of strings")
        if inherit is not None and not isinstance(inherit, str):
            raise ShapeError("snapshot with a non-string `inherit`")
        if session is not None and not isinstance(session, str):
            raise ShapeError("snapshot with a non-string `session`")
        if not isinstance(base, bool):
            raise ShapeError("snapshot with a non-boolean `base`")
        if not isinstance(edited, list) or not all(isinstance(k, str) for k in edited):
            raise ShapeError("snapshot whose `edited` is not a list of strings")
        if not isinstance(prompt_id, str) or not prompt_id:
            raise ShapeError("snapshot without a string `promptId`")
        if label is not None and not isinstance(label, str):
            raise ShapeError("snapshot with a non-string `label`")
        if not isinstance(timestamp, str):
            raise ShapeError("snapshot without a string `timestamp`")
        if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
            raise ShapeError("snapshot without a non-negative integer `seq`")
        if not isinstance(is_update, bool) or not isinstance(dropped, bool):
            raise ShapeError("snapshot with non-boolean `isUpdate`/`dropped`")
        if not isinstance(files, dict) or not isinstance(writes, dict):
            raise ShapeError("snapshot whose `files`/`writes` is not an object")
        entries = {str(key): FileEntry.from_json(entry) for key, entry in files.items()}
        if not isinstance(was, dict) or not isinstance(putback, dict):
            raise ShapeError("snapshot whose `was`/`putback` is not an object")
        for digest in [*writes.values(), *was.values(), *putback.values()]:
            if digest is not None and not _is_digest(digest):
                raise ShapeError("snapshot with a malformed digest in `writes`/`was`")
        return cls(
            prompt_id,
            label,
            timestamp,
            seq,
            is_update,
            entries,
            {str(k): v for k, v in writes.items()},
            dropped,
            session,
            base,
            tuple(edited),
            inherit,
            tuple(forget),
            dict(unreached),
            {str(k): v for k, v in was.items()},
            {str(k): v for k, v in putback.items()},
        )


def record_json(snapshots: list[SnapshotRecord]) -> dict[str, Any]:
    """The journal record that carries ``snapshots``."""
    return {
        "type": "system",
        "subtype": "file_history_snapshot",
        "systemPayload": {"snapshots": [s.to_json() for s in snapshots]},
    }


def parse_record(value: object) -> list[SnapshotRecord]:
    """The snapshots of one journal record; :class:`ShapeError` if it is not one."""
    if not isinstance(value, dict):
        raise ShapeError("the record is not a JSON object")
    if value.get("type") != "system" or value.get("subtype") != "file_history_snapshot":
        raise ShapeError("the record is not a system/file_history_snapshot record")
    payload = value.get("systemPayload")
    if not isinstance(payload, dict) or not isinstance(payload.get("snapshots"), list):
        raise ShapeError("the record has no `systemPayload.snapshots` list")
    return [SnapshotRecord.from_json(s) for s in payload["snapshots"]]

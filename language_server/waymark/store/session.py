"""What one agent session knows about the files it touches.

Per file: the content digest the session last read (or wrote), and the last writer that
changed the file since the session first saw it. A writer is one of the command families
(``edit``, ``replace``, ``write``, ``sed``, ``rewind``) or ``external`` when the content on
disk was found to differ from what the session last knew — somebody else changed it.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from waymark.engine.errors import FileChangedSinceRead, ReadRequired

# A session id names files and directories: a safe charset, bounded, never "." or "..".
SESSION_ID = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}")
SESSION_ID_RULE = "1-128 characters of A-Z a-z 0-9 . _ -, not starting with a dot"


def valid_session_id(value: object) -> bool:
    return isinstance(value, str) and SESSION_ID.fullmatch(value) is not None


@dataclass
class FileRecord:
    read_digest: str | None = None  # None: seen, never read (or known absent)
    known_digest: str | None = None  # last content this session saw or wrote
    # The last writer only (a list, as the session file has always stored it): continuity
    # asks for no more, and a long session must not grow a record per write.
    writers: list[str] = field(default_factory=list)

    def wrote(self, writer: str) -> None:
        self.writers[:] = [writer]


@dataclass
class Session:
    id: str = field(default_factory=lambda: os.urandom(8).hex())
    files: dict[Path, FileRecord] = field(default_factory=dict)

    def _record(self, path: Path) -> FileRecord:
        # Not setdefault: a record made only to be dropped cost every edit's observe one.
        record = self.files.get(path)
        if record is None:
            record = self.files[path] = FileRecord()
        return record

    def observe(self, path: Path, digest: str | None) -> None:
        """Note the current content; a change we did not make is an ``external`` writer."""
        record = self._record(path)
        if record.known_digest is not None and digest != record.known_digest:
            record.wrote("external")
        record.known_digest = digest

    def note_read(self, path: Path, digest: str) -> None:
        self.observe(path, digest)
        self.files[path].read_digest = digest

    def note_write(self, path: Path, digest: str | None, writer: str) -> None:
        """After our own write the session knows the new content as if it had read it."""
        record = self._record(path)
        record.wrote(writer)
        record.known_digest = digest
        record.read_digest = digest

    def read_is_current(self, path: Path, digest: str | None) -> bool:
        """Whether the content is exactly what this session last read (or wrote)."""
        record = self.files.get(path)
        return record is not None and digest is not None and record.read_digest == digest

    def note_rewind(self, path: Path, digest: str | None) -> None:
        """A rewind changed the file: the session must read it again before string edits."""
        record = self._record(path)
        record.wrote("rewind")
        record.known_digest = digest
        record.read_digest = None

    def require_fresh_read(self, path: Path, digest: str, display: str) -> None:
        """Raise unless the session read this exact content (read-before-write guard)."""
        record = self.files.get(path)
        if record is None or record.read_digest is None:
            raise ReadRequired(
                f"{display} has not been read in this session", {"path": display}, next_step="read"
            )
        if record.read_digest != digest:
            self.observe(path, digest)
            raise FileChangedSinceRead(
                f"{display} changed since this session read it; read it again and redo the "
                "change against the current content.",
                {"path": display, "suggested_action": "re-read_file"},
            )

    def continuity(self, path: Path) -> str:
        """``mixed`` when the file's previous write was not an anchored edit, else ``clean``.

        Another writer type (write, replace, sed, rewind) or a change nobody announced
        (``external``) means anchors the agent holds may come from a different baseline.
        """
        record = self.files.get(path)
        return (
            "mixed" if record is not None and record.writers[-1:] not in ([], ["edit"]) else "clean"
        )

    def to_json(self) -> str:
        """Read records for a process that ends (the CLI) to hand to the next one."""
        return json.dumps({str(path): asdict(record) for path, record in self.files.items()})

    @classmethod
    def from_json(cls, session_id: str, raw: str) -> Session:
        try:
            data = json.loads(raw)
            files = {Path(p): FileRecord(**record) for p, record in data.items()}
            for loaded in files.values():
                del loaded.writers[:-1]  # earlier versions kept every writer in the file
        except (ValueError, TypeError, AttributeError):
            # A damaged record only costs a re-read: the guard then asks for one.
            files = {}
        return cls(id=session_id, files=files)

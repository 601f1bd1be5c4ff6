"""The append-only JSONL journal: one record a line, replayed on resume.

Appends are single ``O_APPEND`` writes of a whole line, so concurrent writers never
interleave inside a line. A crash or a full disk can still leave a damaged tail (a truncated
line, NUL padding from a filesystem that extended the file before the data landed); replay
skips what it cannot read, keeps everything valid after it, and the next append first ends
the damaged line so new records never glue onto it.

Write errors are logged, never raised: losing the journal costs resumability, never an edit.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .blobs import FILE_MODE
from .snapshots import ShapeError, SnapshotRecord, parse_record

log = logging.getLogger("waymark.history")

_DECODER = json.JSONDecoder()
_RECORD_START = b'{"type"'


@dataclass
class Replay:
    """What a journal holds: its valid records in order, and what was skipped."""

    records: list[SnapshotRecord] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class Journal:
    """One session's ``journal.jsonl``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        # Set when the file does not end with a newline: the next append must start a line.
        self._dangling = False
        self._fd: int | None = None

    def replay(self) -> Replay:
        """Read every record; skip damaged lines with a warning each."""
        out = Replay()
        last = b"\n"
        try:
            with open(self.path, "rb") as handle:
                for number, raw in enumerate(handle, start=1):
                    last = raw
                    self._replay_line(number, raw, out)
        except FileNotFoundError:
            return out
        except OSError as exc:
            out.warnings.append(f"history journal {self.path} could not be read: {exc}")
        self._dangling = not last.endswith(b"\n")
        return out

    def _replay_line(self, number: int, raw: bytes, out: Replay) -> None:
        line = raw.rstrip(b"\r\n")
        stripped = line.strip(b"\x00 \t")
        if not stripped:
            if line:
                out.warnings.append(f"journal line {number}: NUL padding skipped")
            return
        if len(stripped) != len(line.strip(b" \t")):
            out.warnings.append(f"journal line {number}: NUL padding around a record dropped")
        try:
            text = stripped.decode("utf-8")
        except UnicodeDecodeError:
            out.warnings.append(f"journal line {number}: invalid UTF-8, line skipped")
            return
        values = list(_json_values(text))
        if sum(ok for ok, _ in values) > 1:
            out.warnings.append(f"journal line {number}: records glued on one line, split apart")
        for ok, value in values:
            if not ok:
                out.warnings.append(
                    f"journal line {number}: truncated or invalid JSON skipped ({value})"
                )
                continue
            try:
                out.records.extend(parse_record(value))
            except ShapeError as exc:
                out.warnings.append(f"journal line {number}: not a history record ({exc})")

    def append(self, record: dict[str, Any]) -> bool:
        """Append one record as a line; log and return False when it cannot be written."""
        line = json.dumps(record, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        data = (b"\n" if self._dangling else b"") + line + b"\n"
        try:
            fd = self._descriptor()
        except OSError as exc:
            log.warning("history journal %s could not be opened: %s", self.path, exc)
            return False
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        except OSError as exc:
            # Part of the line may have landed; the next record must not glue onto it.
            self._dangling = True
            log.warning("history journal %s could not be written: %s", self.path, exc)
            return False
        self._dangling = False
        return True

    def _descriptor(self) -> int:
        """The open journal, reopened if someone deleted the file."""
        if self._fd is not None:
            try:
                if os.fstat(self._fd).st_nlink > 0:
                    return self._fd
            except OSError:
                pass
            self.close()
        self._fd = os.open(
            self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, FILE_MODE
        )
        return self._fd

    def close(self) -> None:
        """Release the descriptor; a later append reopens the file."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            with contextlib.suppress(OSError):
                os.close(fd)

    def __del__(self) -> None:
        # A History is long-lived and rarely closed explicitly; don't leak its descriptor.
        self.close()


def _json_values(text: str) -> Iterator[tuple[bool, Any]]:
    """The JSON values on one line: normally one; records glued ``}{`` come apart.

    Yields ``(True, value)`` per value and ``(False, reason)`` per unreadable stretch, after
    which scanning resumes at the next record start.
    """
    try:
        yield True, json.loads(text)
        return
    except json.JSONDecodeError:
        pass
    start = _RECORD_START.decode()
    pos = 0
    while pos < len(text):
        try:
            value, end = _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            nxt = text.find(start, pos + 1)
            yield False, exc.msg
            if nxt < 0:
                return
            pos = nxt
            continue
        yield True, value
        pos = end
        while pos < len(text) and text[pos] in " \t":
            pos += 1

"""The append-only JSONL journal: one record a line, replayed on resume.

Appends are single ``O_APPEND`` writes of a whole line, so concurrent writers never
interleave inside a line. A crash or a full disk can still leave a damaged tail (a truncated
line, NUL padding from a filesystem that extended the file before the data landed); replay
skips what it cannot read, keeps everything valid after it, and the next append first ends
the damaged line so new records never glue onto it.

Replay streams: records are handed to the caller one by one, so resume holds only what the
model keeps. Compaction (:meth:`Journal.rewrite`) replaces the file atomically: a temp file
is written and renamed over the journal (both fsynced by :mod:`waymark.store.flush`, like
any atomic write), so a kill at any point leaves either the old journal or the new one, both
resuming to the same state. Other processes notice the new inode and replay it from the
start.

Paths that are not valid UTF-8 (file names in another encoding) travel as surrogate escapes:
the line is written with ``surrogateescape`` and read back the same way, byte for byte.

Write errors are logged, never raised: losing the journal costs resumability, never an edit.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from pathlib import Path
from typing import Any

from waymark.store import flush
from waymark.store.files import fsync_directory
from waymark.store.history.errors import log_warning
from waymark.store.history.snapshots import ShapeError, SnapshotRecord, parse_record
from waymark.store.private import open_private

_DECODER = json.JSONDecoder()
_RECORD_START = b'{"type"'
TMP_PREFIX = ".journal.tmp-"


@dataclass
class Replay:
    """What a replay skipped, and where it stopped (the next replay starts there)."""

    warnings: list[str] = field(default_factory=list)
    offset: int = 0
    records: int = 0


# One encoder for every line: ``json.dumps`` with options builds a new one per call, and
# ``JSONEncoder.encode`` its C encoder per call, a good part of a small record's cost (every
# edit appends one). Records are trees made by ``to_json``: no cycle to look for.
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
_C_ENCODE = (
    None
    if c_make_encoder is None
    else c_make_encoder(
        None, _ENCODER.default, encode_basestring, None, ":", ",", False, False, True
    )
)


def encode(record: dict[str, Any]) -> bytes:
    """One journal line (without the newline)."""
    text = _ENCODER.encode(record) if _C_ENCODE is None else "".join(_C_ENCODE(record, 0))
    return text.encode("utf-8", "surrogateescape")


class Journal:
    """One session's ``journal.jsonl``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        # Set when the file does not end with a newline: the next append must start a line.
        self._dangling = False
        self._fd: int | None = None

    def replay(
        self, sink: Callable[[SnapshotRecord], None], *, offset: int = 0, number: int = 0
    ) -> Replay:
        """Hand every record from ``offset`` on to ``sink``; skip damaged lines with a warning."""
        out = Replay(offset=offset)
        last = b"\n"
        try:
            with open(self.path, "rb") as handle:
                st = os.fstat(handle.fileno())
                if st.st_size < offset:
                    offset = out.offset = 0
                handle.seek(offset)
                for raw in handle:
                    number += 1
                    last = raw
                    out.offset += len(raw)
                    self._replay_line(number, raw, out, sink)
        except FileNotFoundError:
            return out
        except OSError as exc:
            out.warnings.append(f"history journal {self.path} could not be read: {exc}")
        self._dangling = not last.endswith(b"\n")
        return out

    def _replay_line(
        self, number: int, raw: bytes, out: Replay, sink: Callable[[SnapshotRecord], None]
    ) -> None:
        line = raw.rstrip(b"\r\n")
        stripped = line.strip(b"\x00 \t")
        if not stripped:
            if line:
                out.warnings.append(f"journal line {number}: NUL padding skipped")
            return
        if len(stripped) != len(line.strip(b" \t")):
            out.warnings.append(f"journal line {number}: NUL padding around a record dropped")
        text = stripped.decode("utf-8", "surrogateescape")
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
                records = parse_record(value)
            except ShapeError as exc:
                out.warnings.append(f"journal line {number}: not a history record ({exc})")
                continue
            for record in records:
                out.records += 1
                sink(record)

    def append(self, record: dict[str, Any]) -> int:
        """Append one record as a line; return the bytes written, 0 (logged) on failure."""
        data = (b"\n" if self._dangling else b"") + encode(record) + b"\n"
        try:
            fd = self._descriptor()
        except OSError as exc:
            log_warning("history journal %s could not be opened: %s", self.path, exc)
            return 0
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        except OSError as exc:
            # Part of the line may have landed; the next record must not glue onto it.
            self._dangling = True
            log_warning("history journal %s could not be written: %s", self.path, exc)
            return 0
        self._dangling = False
        return len(data)

    def rewrite(self, records: Iterable[dict[str, Any]]) -> int:
        """Replace the journal by ``records`` atomically; return its new size.

        Raises ``OSError`` when it cannot: the old journal is then left as it was.
        """
        tmp = self.path.parent / f"{TMP_PREFIX}{os.urandom(4).hex()}"
        size = 0
        fd = open_private(tmp, os.O_WRONLY | os.O_EXCL)
        try:
            try:
                chunk: list[bytes] = []
                for record in records:
                    chunk.append(encode(record) + b"\n")
                    if len(chunk) >= 256:
                        size += _write(fd, b"".join(chunk))
                        chunk.clear()
                size += _write(fd, b"".join(chunk))
            except BaseException:
                os.close(fd)
                raise
            flush.hand(fd)
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        with contextlib.suppress(OSError):
            fsync_directory(self.path.parent)
        self.close()
        self._dangling = False
        return size

    def _descriptor(self) -> int:
        """The open journal, reopened if someone deleted the file."""
        if self._fd is not None:
            try:
                if os.fstat(self._fd).st_nlink > 0:
                    return self._fd
            except OSError:
                pass
            self.close()
        self._fd = open_private(self.path, os.O_WRONLY | os.O_APPEND)
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


def _write(fd: int, data: bytes) -> int:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    return len(data)


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

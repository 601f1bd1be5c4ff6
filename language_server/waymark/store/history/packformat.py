"""The pack segments' format: a record's header, reading a record back, checked.

A segment is ``packs/pack-<n>`` (``n``: 10 digits, growing); a record is

    magic b"WMB\x01" | length (8 bytes, big-endian) | digest (16 bytes) | check (4) | bytes

where ``digest`` is the bytes' xxh3-128 (the blob's name) and ``check`` the low 32 bits of
the xxh3-64 of the 28 header bytes before it. Every read checks the header and hashes the
bytes again, so a torn or corrupt record is reported, never returned. See docs/history.md.
"""

from __future__ import annotations

import os
import re
import struct
from dataclasses import dataclass, field
from typing import Final

import xxhash

MAGIC: Final = b"WMB\x01"
_HEAD: Final = struct.Struct(">4sQ16sI")
HEADER: Final = _HEAD.size
NAME: Final = re.compile(r"pack-(\d{10})")
# A segment past this many bytes takes no more appends; smaller with a small budget, so a
# compaction under budget pressure never has much to copy.
MAX_SEGMENT: Final = 64 << 20
MIN_SEGMENT: Final = 64 << 10
SCAN_CHUNK: Final = 1 << 20


class RecordCorrupt(Exception):
    """The record at the index's offset is not the blob asked for, intact."""


def header(digest: str, length: int) -> bytes:
    raw = bytes.fromhex(digest)
    head = _HEAD.pack(MAGIC, length, raw, 0)[: HEADER - 4]
    return head + struct.pack(">I", xxhash.xxh3_64_intdigest(head) & 0xFFFFFFFF)


def parse_header(data: bytes) -> tuple[str, int] | None:
    """``(digest, length)`` of a valid header, else None."""
    if len(data) < HEADER:
        return None
    magic, length, raw, check = _HEAD.unpack_from(data)
    if magic != MAGIC or check != xxhash.xxh3_64_intdigest(data[: HEADER - 4]) & 0xFFFFFFFF:
        return None
    return raw.hex(), length


@dataclass
class Segment:
    """What this process knows of one segment: its valid records up to ``end``."""

    number: int
    ino: int
    end: int = 0
    size: int = 0
    # A torn tail or damage: no more appends here.
    sealed: bool = False
    records: dict[str, tuple[int, int]] = field(default_factory=dict)
    # Bytes of the records this process released here: which segments compaction looks at.
    dead: int = 0


def segment_name(number: int) -> str:
    return f"pack-{number:010d}"


def read_record(path: str, offset: int, digest: str, length: int) -> bytes:
    """The record's bytes, checked: header, digest and length as expected, bytes hashing to it."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        raw = os.pread(fd, HEADER + length, offset)
    finally:
        os.close(fd)
    if parse_header(raw[:HEADER]) != (digest, length) or len(raw) != HEADER + length:
        raise RecordCorrupt(digest)
    data = raw[HEADER:]
    if xxhash.xxh3_128_hexdigest(data) != digest:
        raise RecordCorrupt(digest)
    return data


def next_header(fd: int, pos: int, size: int) -> int | None:
    """The offset of the next valid header at or after ``pos``, if any (skipping damage)."""
    while pos < size:
        chunk = os.pread(fd, SCAN_CHUNK + HEADER, pos)
        at = chunk.find(MAGIC)
        while at != -1 and at < SCAN_CHUNK:
            if parse_header(os.pread(fd, HEADER, pos + at)) is not None:
                return pos + at
            at = chunk.find(MAGIC, at + 1)
        pos += SCAN_CHUNK
    return None


def write_all(fd: int, parts: list[bytes | memoryview]) -> None:
    views = [memoryview(p) for p in parts]
    while views:
        written = os.writev(fd, views)
        while views and written >= len(views[0]):
            written -= len(views[0])
            views.pop(0)
        if views and written:
            views[0] = views[0][written:]

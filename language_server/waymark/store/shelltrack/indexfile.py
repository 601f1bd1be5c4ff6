"""Mode and blob id of a few paths, read from a git index file without running git.

A command's Post asks which blob a file it touched had in the index copy taken before the
command (``git ls-files -s -- PATHS``); on a clean file that is one git process out of its
two (the other reads the blob). Reading the index here answers the same for the plain
index git writes by default and nothing else: versions 2 and 3, SHA-1, its checksum intact,
no entry with extended flags (skip-worktree of a sparse checkout, intent-to-add) and no
extension git requires a reader to understand (a split index's ``link``, a sparse index's
``sdir``). For anything else, a path inside a submodule (left to git) or a path not
written as git writes one, :func:`read_blobs` answers None and the caller asks git.
"""

from __future__ import annotations

import hashlib
import struct
from array import array
from bisect import bisect_left
from pathlib import Path

_HEADER = 12
_CHECKSUM = 20
# ctime, mtime (8 bytes each), dev, ino, mode, uid, gid, size (4 each), the object id, flags.
_FIXED = 40 + 20 + 2
_ENTRY = struct.Struct(">24xI12x20sH")
_FLAGS = struct.Struct(">H")
_EXTENDED = 0x4000
_NAME_MASK = 0xFFF
_GITLINK = 0o160000
# The last index read and where its entries start: a resident hook server reads the same
# index again and again (the copy each command's Pre takes of an index nothing changed),
# and comparing the bytes is a fraction of walking its entries again.
_last: tuple[bytes, array[int]] | None = None


def read_blobs(index: Path, paths: list[str]) -> dict[str, tuple[str, str]] | None:
    """What :func:`waymark.store.shelltrack.scan.index_blobs` answers for ``paths`` (relative
    to the top level, each a file or a directory): mode and blob id per stage-0 entry at or
    under one of them, gitlinks left out; or None where git must answer."""
    wanted = [p.encode("utf-8", "surrogateescape") for p in paths]
    if not all(_plain(p) for p in wanted):
        return None
    try:
        data = index.read_bytes()
    except OSError:
        return None
    offsets = _offsets(data)
    if offsets is None:
        return None

    def name(offset: int) -> bytes:
        start = offset + _FIXED
        length = _FLAGS.unpack_from(data, offset + 60)[0] & _NAME_MASK
        return data[start : data.index(b"\0", start) if length == _NAME_MASK else start + length]

    out: dict[str, tuple[str, str]] = {}
    for path in wanted:
        parts = path.split(b"/")
        for depth in range(1, len(parts)):
            above = b"/".join(parts[:depth])
            at = bisect_left(offsets, above, key=name)
            if (
                at < len(offsets)
                and name(offsets[at]) == above
                and _ENTRY.unpack_from(data, offsets[at])[0] == _GITLINK
            ):
                return None  # inside a submodule: left to git
        # Literal pathspecs: the path itself, or everything under it as a directory; the
        # index is sorted by name bytes, and "0" follows "/".
        first = bisect_left(offsets, path, key=name)
        last = bisect_left(offsets, path + b"0", first, key=name)
        for offset in offsets[first:last]:
            found = name(offset)
            if found != path and not found.startswith(path + b"/"):
                continue
            mode, oid, flags = _ENTRY.unpack_from(data, offset)
            if (flags >> 12) & 3 == 0 and mode != _GITLINK:
                out[found.decode("utf-8", "surrogateescape")] = (f"{mode:06o}", oid.hex())
    return out


def _plain(path: bytes) -> bool:
    """A path as git names an index entry: no empty, ``.`` or ``..`` part."""
    return all(part not in (b"", b".", b"..") for part in path.split(b"/"))


def _offsets(data: bytes) -> array[int] | None:
    """Where each entry of the index ``data`` starts, or None: a file not read here."""
    global _last
    last = _last
    if last is not None and last[0] == data:
        return last[1]
    if len(data) < _HEADER + _CHECKSUM or data[:4] != b"DIRC":
        return None
    if int.from_bytes(data[4:8], "big") not in (2, 3):
        return None
    end = len(data) - _CHECKSUM
    if hashlib.sha1(memoryview(data)[:end]).digest() != data[end:]:
        return None  # torn, another hash, or index.skipHash: git knows
    offsets = array("Q")
    offset = _HEADER
    flags_at = _FLAGS.unpack_from
    for _ in range(int.from_bytes(data[8:12], "big")):
        if offset + _FIXED > end:
            return None
        flags = flags_at(data, offset + 60)[0]
        if flags & _EXTENDED:
            return None
        start = offset + _FIXED
        stop = start + (flags & _NAME_MASK)
        if flags & _NAME_MASK == _NAME_MASK:
            stop = data.find(b"\0", start, end)
            if stop < 0:
                return None
        if stop >= end or data[stop] != 0:
            return None
        offsets.append(offset)
        # 1 to 8 NULs pad each entry to a multiple of 8 bytes.
        offset += (_FIXED + stop - start + 8) & ~7
    while offset < end:
        if offset + 8 > end:
            return None
        signature = data[offset : offset + 4]
        if not b"A" <= signature[:1] <= b"Z":
            return None  # an extension git requires a reader to understand
        offset += 8 + int.from_bytes(data[offset + 4 : offset + 8], "big")
    if offset != end:
        return None
    _last = (data, offsets)
    return offsets

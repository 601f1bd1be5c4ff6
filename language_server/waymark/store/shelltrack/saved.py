"""A command's scans as saved between its two hook calls (separate processes, in turn)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from waymark.store.shelltrack.scan import FolderScan


def scan_state(scan: FolderScan) -> dict[str, Any]:
    """``scan`` as JSON."""
    return {
        "root": os.fspath(scan.root),
        "scope": os.fspath(scan.scope),
        "git": scan.git,
        "dirty": scan.dirty,
        "index": os.fspath(scan.index) if scan.index else None,
        "indexSig": scan.index_sig,
        "indexCopy": os.fspath(scan.index_copy) if scan.index_copy else None,
        "cutShort": scan.cut_short,
        "nested": scan.nested,
        "unscanned": scan.unscanned,
        "watch": scan.watch,
        "ignored": scan.ignored,
        "bulky": scan.bulky,
    }


def scan_from_state(raw: dict[str, Any]) -> FolderScan:
    """The scan :func:`scan_state` saved."""
    scan = FolderScan(Path(raw["root"]), bool(raw["git"]), Path(raw["scope"]))
    scan.dirty = dict(raw["dirty"])
    scan.index = Path(raw["index"]) if raw["index"] else None
    scan.index_sig = tuple(raw["indexSig"]) if raw["indexSig"] else None
    scan.index_copy = Path(raw["indexCopy"]) if raw["indexCopy"] else None
    scan.cut_short = bool(raw["cutShort"])
    # A command begun by an older Waymark has neither.
    scan.nested = list(raw.get("nested", []))
    scan.unscanned = dict(raw.get("unscanned", {}))
    scan.watch = raw.get("watch")
    scan.ignored = list(raw.get("ignored", []))
    scan.bulky = dict(raw.get("bulky", {}))
    return scan

"""Class 6 (edits) and class 1 under contention: bench/concurrency_soak.py, small.

Three processes edit three shared files while a fourth swaps a directory for a symlink to
outside the workspace: every edit that answered ok is in the final files, nothing outside.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_no_acknowledged_edit_is_lost_and_nothing_is_written_outside() -> None:
    spec = importlib.util.spec_from_file_location(
        "concurrency_soak", ROOT / "bench" / "concurrency_soak.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = module.soak(ROOT, workers=3, edits=150, seed=7)
    assert result["acknowledged"] > 0, result
    assert result["lost"] == 0, result
    assert result["writes_outside"] == 0, result

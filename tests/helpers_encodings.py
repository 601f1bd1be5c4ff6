"""The legacy-encoding corpus generator (fixtures/make_encodings.py), loaded once for the tests
of every door that reads and writes those files."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def _generator() -> ModuleType:
    # fixtures/ is not a package, so the generator is loaded from its path.
    spec = importlib.util.spec_from_file_location(
        "make_encodings", ROOT / "fixtures" / "make_encodings.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MAKE = _generator()

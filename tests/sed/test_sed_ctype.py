"""The glibc tables the simulation uses are what this machine's GNU sed does, code point by
code point (every Unicode scalar value through the real ``sed``)."""

from __future__ import annotations

import importlib.util
import os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def test_ctype_tables_match_gnu_sed_on_every_code_point() -> None:
    spec = importlib.util.spec_from_file_location(
        "gen_sed_ctype", os.path.join(ROOT, "scripts", "gen_sed_ctype.py")
    )
    assert spec is not None and spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    measured = generator.render(*generator.measure())
    with open(generator.DEFAULT, encoding="utf-8") as handle:
        stored = handle.read()
    # The docstring names the sed and glibc builds; the tables below it must be equal.
    marker = "# fmt: off"
    assert measured.split(marker)[1] == stored.split(marker)[1], (
        "this machine's GNU sed classifies or maps code points differently; regenerate with "
        "python scripts/gen_sed_ctype.py and review the diff"
    )

"""Pathname expansion of a sed line's file operands, as bash does it before sed runs.

The engine keeps only ``*`` and ``?`` (it declines ``[`` and ``**``). A name starting with
``.`` matches only a literal leading ``.``; an operand that matches nothing is passed on
unchanged by bash, so GNU sed fails on it and the caller declines the line.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from waymark.engine.sed.decline import SedDecline

if TYPE_CHECKING:
    from waymark.engine.sed.invocation import GlobPart, PathGlob

MAX_MATCHES = 1000


def expand_glob(base: Path, glob: PathGlob) -> list[str]:
    """The operand's matches, spelled as the shell would pass them, in name order."""
    found: list[tuple[str, Path]] = [("", base)]
    last = len(glob) - 1
    for index, part in enumerate(glob):
        if index == 0 and part.text == "" and last > 0:
            found = [("/", Path("/"))]
            continue
        step: list[tuple[str, Path]] = []
        for spelled, folder in found:
            prefix = spelled if spelled in ("", "/") else spelled + "/"
            if part.pattern is None:
                step.append((prefix + part.text, folder / part.text))
                continue
            names = _matching(folder, part, folders=index < last)
            step.extend((prefix + name, folder / name) for name in names)
        found = step
        if len(found) > MAX_MATCHES:
            raise SedDecline(f"a glob matches over {MAX_MATCHES} paths; name fewer files")
    return [spelled for spelled, path in found if os.path.lexists(path)]


def _matching(folder: Path, part: GlobPart, folders: bool) -> list[str]:
    assert part.pattern is not None
    try:
        with os.scandir(folder) as entries:
            listed = sorted(entries, key=lambda entry: entry.name)
    except OSError:
        return []
    compiled = re.compile(part.pattern)
    names = []
    for entry in listed:
        name = entry.name
        if name.startswith(".") and not part.text.startswith("."):
            continue
        # Whether it matches at all depends on the locale: '?' is a character or a byte.
        if part.one_char and not name.isascii():
            raise SedDecline(
                f"'?' in a glob meets {name!r}, whose non-ASCII characters are one "
                "character or several bytes depending on the shell's locale; name the files"
            )
        if not compiled.fullmatch(name):
            continue
        if folders and not entry.is_dir():
            continue
        names.append(name)
    return names

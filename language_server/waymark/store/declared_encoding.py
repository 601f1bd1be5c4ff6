"""The encoding a project declares for a file: ``.editorconfig`` ``charset``, then
``.gitattributes`` ``working-tree-encoding``.

Both are looked up from the file's directory up to its workspace folder (a closer file wins,
as in each tool; an ``.editorconfig`` with ``root = true`` ends the search). Only the
declaration is found here; what it means for the bytes is the engine's
(``engine/encodings.py``). EditorConfig's ``charset`` knows ``latin1``, ``utf-8``,
``utf-8-bom``, ``utf-16be`` and ``utf-16le``; git takes any iconv name.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path


def declared_encoding(real: Path, folder: Path, dir_fd: int | None = None) -> str | None:
    """The encoding declared for ``real`` (a path below ``folder``), or None. ``dir_fd``:
    ``real``'s directory, open already (:class:`~waymark.store.walk.Reached`): its two probes
    start there instead of walking its path again."""
    dirs = _directories(str(real), str(folder))
    return _editorconfig(dirs, dir_fd) or _gitattributes(dirs, dir_fd)


# Strings, not Path objects, and kept: this runs on every load of every file (UTF-8 ones
# included), for the same few files call after call.
@lru_cache(maxsize=1024)
def _directories(name: str, top: str) -> tuple[tuple[str, str], ...]:
    """``(directory, the file's path relative to it)`` for each directory from ``name``'s up
    to ``top``, closest first; none when ``name`` is not below ``top``."""
    if not name.startswith(top.rstrip("/") + "/"):
        return ()
    parts = name[len(top.rstrip("/")) + 1 :].split("/")
    return tuple(
        (top if i == 0 else top.rstrip("/") + "/" + "/".join(parts[:i]), "/".join(parts[i:]))
        for i in range(len(parts) - 1, -1, -1)
    )


def _key(directory: str, name: str, dir_fd: int | None) -> tuple[int, int, str] | None:
    # os.access answers "absent" without raising: most directories have neither file.
    path = directory + "/" + name
    if not (
        os.access(path, os.F_OK) if dir_fd is None else os.access(name, os.F_OK, dir_fd=dir_fd)
    ):
        return None
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size, path


@lru_cache(maxsize=256)
def _parsed_editorconfig(key: tuple[int, int, str]) -> tuple[bool, list[tuple[str, str]]]:
    """``(root, [(section glob, charset), …])`` of one .editorconfig (cached by stat)."""
    root = False
    sections: list[tuple[str, str]] = []
    section: str | None = None
    try:
        text = Path(key[2]).read_text("utf-8", "replace")
    except OSError:
        return False, []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
            continue
        name, sep, value = line.partition("=")
        if not sep:
            continue
        name, value = name.strip().lower(), value.strip().lower()
        if section is None and name == "root":
            root = value == "true"
        elif section is not None and name == "charset":
            sections.append((section, value))
    return root, sections


def _editorconfig(dirs: tuple[tuple[str, str], ...], dir_fd: int | None) -> str | None:
    for directory, relative in dirs:
        key = _key(directory, ".editorconfig", dir_fd)
        dir_fd = None  # the file's own directory only
        if key is None:
            continue
        root, sections = _parsed_editorconfig(key)
        found = None
        for glob, charset in sections:
            if _editorconfig_regex(glob).fullmatch(relative):
                found = charset
        if found is not None:
            return None if found == "unset" else found
        if root:
            break
    return None


@lru_cache(maxsize=256)
def _editorconfig_regex(glob: str) -> re.Pattern[str]:
    # A section without a slash matches the name at any depth (the EditorConfig spec).
    return _glob_regex(glob.lstrip("/") if "/" in glob else "**/" + glob)


def _glob_regex(glob: str) -> re.Pattern[str]:
    out, i = [], 0
    while i < len(glob):
        c = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "{" and "}" in glob[i:]:
            end = glob.index("}", i)
            out.append("(?:" + "|".join(map(re.escape, glob[i + 1 : end].split(","))) + ")")
            i = end
        elif c == "[" and "]" in glob[i:]:
            end = glob.index("]", i)
            body = glob[i + 1 : end]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            i = end
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out))


@lru_cache(maxsize=256)
def _parsed_gitattributes(key: tuple[int, int, str]) -> list[tuple[str, str | None]]:
    """``[(pattern, encoding or None for unset), …]`` of one .gitattributes (cached by stat)."""
    rules: list[tuple[str, str | None]] = []
    try:
        text = Path(key[2]).read_text("utf-8", "replace")
    except OSError:
        return []
    for raw in text.splitlines():
        words = raw.split()
        if not words or words[0].startswith("#"):
            continue
        for attr in words[1:]:
            if attr.startswith("working-tree-encoding="):
                rules.append((words[0], attr.partition("=")[2]))
            elif attr in ("-working-tree-encoding", "!working-tree-encoding"):
                rules.append((words[0], None))
    return rules


def _gitattributes(dirs: tuple[tuple[str, str], ...], dir_fd: int | None) -> str | None:
    for directory, relative in dirs:
        key = _key(directory, ".gitattributes", dir_fd)
        dir_fd = None  # the file's own directory only
        if key is None:
            continue
        found: tuple[bool, str | None] = (False, None)
        for pattern, encoding in _parsed_gitattributes(key):
            if _gitattributes_regex(pattern).fullmatch(relative):
                found = (True, encoding)
        if found[0]:
            return found[1]
    return None


@lru_cache(maxsize=256)
def _gitattributes_regex(pattern: str) -> re.Pattern[str]:
    # As in .gitignore: a pattern without a slash matches the name at any depth.
    anchored = "/" in pattern.rstrip("/")
    return _glob_regex(pattern.lstrip("/") if anchored else "**/" + pattern)

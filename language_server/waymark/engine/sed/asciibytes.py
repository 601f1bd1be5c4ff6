"""ASCII text kept as its bytes: the patterns for it, and unaddressed ``s`` commands on it.

An ASCII file is its own UTF-8 text, and on ASCII text a pattern cut to ASCII, compiled for
bytes, matches exactly where it matches the decoded ``str``. Running on the bytes spares a
decoded and an encoded copy of the file, each of which costs page faults on these machines
(``pieces.py``). A command whose replacement writes non-ASCII text, converts case or needs
GNU's per-line loop is left to the ``str`` path (``simulate.py``), which stays the reference.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import AnyStr

from waymark.engine.sed.script import SubstCommand


@lru_cache(maxsize=64)
def bytes_pattern(pattern: re.Pattern[str]) -> re.Pattern[bytes] | None:
    """The ASCII-cut ``pattern`` for bytes; None when its source escapes a code point above
    U+00FF (``\\u0101``), which a bytes pattern cannot spell: such text then runs as ``str``."""
    try:
        return re.compile(pattern.pattern.encode("ascii"), pattern.flags & ~re.UNICODE)
    except (UnicodeEncodeError, re.error):
        return None


@lru_cache(maxsize=64)
def two_per_line(pattern: re.Pattern[AnyStr]) -> re.Pattern[AnyStr]:
    """Finds a line with two non-overlapping matches (or a superset of such lines).

    Greedy, not lazy, between the two: the same lines match, and ``re`` runs a greedy class
    repeat in one tight loop instead of retrying the second pattern after every character.
    """
    source = pattern.pattern
    if isinstance(source, str):
        return re.compile(f"(?:{source})[^\\n]*(?:{source})", pattern.flags)
    return re.compile(b"(?:" + source + b")[^\\n]*(?:" + source + b")", pattern.flags)


def subst_ascii(command: SubstCommand, text: bytes) -> bytes | None:
    """One unaddressed ``s`` over whole ASCII lines (``text``: lines joined by newlines), as
    ``simulate._apply_buffer`` runs it on the decoded text; None when the command must run
    there instead. The result is ASCII too."""
    replacement = command.replacement
    if replacement.has_case or command.nth != 1:
        return None
    pattern = bytes_pattern(command.regex.ascii_buffer_pattern)
    template = replacement.template()
    if pattern is None or not template.isascii():
        return None
    regex = command.regex
    literal = replacement.literal
    if literal is not None:
        written = literal.encode("ascii")
        if regex.lone_anchor == "bol":
            return written + text.replace(b"\n", b"\n" + written)
        if regex.lone_anchor == "eol":
            return text.replace(b"\n", written + b"\n") + written
        if regex.trailing_run is not None:
            chars, minimum = regex.trailing_run
            # A non-ASCII character of the run never occurs in ASCII text.
            return _replace_trailing_runs(text, chars.encode("ascii", "ignore"), minimum, written)
    if regex.line_anchored:
        every = True
    elif command.glob:
        every = not regex.nullable or replacement.is_empty
    else:
        every = not regex.nullable and two_per_line(pattern).search(text) is None
    if not every:
        # GNU's first match of each line, or its way around empty matches: the str path's.
        return None
    # As on str: no empty match for GNU and Python to treat differently, or at most one match
    # per line, so replacing every match is GNU's result.
    found = plain_literal(command)
    if found is not None and literal is not None:
        # Leftmost non-overlapping occurrences, as re.sub finds them, in one C pass that
        # writes the result once (re.sub copies each gap first).
        return text.replace(found, literal.encode("ascii"))
    return pattern.sub(template.encode("ascii"), text)


def _replace_trailing_runs(text: bytes, chars: bytes, minimum: int, literal: bytes) -> bytes:
    lines = text.split(b"\n")
    if minimum == 0:
        return b"\n".join([line.rstrip(chars) + literal for line in lines])
    out = []
    for line in lines:
        stripped = line.rstrip(chars)
        out.append(stripped + literal if len(line) - len(stripped) >= minimum else line)
    return b"\n".join(out)


def plain_literal(command: SubstCommand) -> bytes | None:
    """The ASCII text a command's regex matches exactly and only (no ``I``, no anchor)."""
    regex = command.regex
    pattern = regex.ascii_buffer_pattern
    text = regex.required_literal
    if not text or not text.isascii() or pattern.flags & re.IGNORECASE:
        return None
    return text.encode("ascii") if pattern.pattern == re.escape(text) else None


def replaces_literal(command: SubstCommand) -> bool:
    """Whether the command is ``s/literal/text/g`` on ASCII text: one ``bytes.replace``."""
    text = command.replacement.literal
    return (
        command.glob
        and command.nth == 1
        and text is not None
        and text.isascii()
        and plain_literal(command) is not None
    )

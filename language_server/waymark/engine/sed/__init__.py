"""Simulated ``sed -i``: prove a shell line equal to GNU sed 4.9 (C.UTF-8), then apply it to bytes.

Pure: no file I/O, no subprocess, stdlib only. ``parse_command_line`` recognises the line and
compiles its script; ``apply_files`` turns each file's bytes into the bytes GNU ``sed -i``
would leave. Both raise ``SedDecline`` with a one-sentence reason for anything they cannot
prove, and the caller then lets its shell run the command as before.

The names load on first use (PEP 562): every door imports the command that runs sed, and the
parser, regex translation and glibc tables cost tens of milliseconds at a start-up that
seldom needs them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from waymark.engine.lazy import lazy_names

if TYPE_CHECKING:
    from waymark.engine.sed.apply import apply_files, apply_script
    from waymark.engine.sed.decline import SedDecline
    from waymark.engine.sed.invocation import SedInvocation, parse_command_line
    from waymark.engine.sed.script import SedScript
    from waymark.engine.sed.sidefiles import SedRun, apply_with_files

__all__ = [
    "SedDecline",
    "SedInvocation",
    "SedRun",
    "SedScript",
    "apply_files",
    "apply_script",
    "apply_with_files",
    "parse_command_line",
]

_HOMES = {
    "SedDecline": "decline",
    "SedInvocation": "invocation",
    "SedRun": "sidefiles",
    "SedScript": "script",
    "apply_files": "apply",
    "apply_script": "apply",
    "apply_with_files": "sidefiles",
    "parse_command_line": "invocation",
}


__getattr__ = lazy_names(__name__, _HOMES, globals())

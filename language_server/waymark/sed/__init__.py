"""Simulated ``sed -i``: prove a shell line equal to GNU sed 4.9 (C.UTF-8), then apply it to bytes.

Pure: no file I/O, no subprocess, stdlib only. ``parse_command_line`` recognises the line and
compiles its script; ``apply_script`` turns the file's bytes into the bytes GNU ``sed -i``
would leave. Both raise ``SedDecline`` with a one-sentence reason for anything they cannot
prove, and the caller then lets its shell run the command as before.
"""

from __future__ import annotations

from .decline import SedDecline
from .invocation import SedInvocation, parse_command_line
from .script import SedScript
from .simulate import apply_script

__all__ = ["SedDecline", "SedInvocation", "SedScript", "apply_script", "parse_command_line"]

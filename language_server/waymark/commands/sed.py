"""``waymark.sed``: a ``sed -i`` shell line performed as a tracked edit, or declined.

The server never runs a shell. A line whose effect cannot be proven equal to GNU sed — or a
file that cannot be edited here (missing, binary, outside the workspace, protected) —
answers ``simulated: false`` with the reason, and the agent runs its shell as before.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from waymark.commands import wording
from waymark.commands.changes import FileChange, Loaded, Proposal, load_path
from waymark.commands.context import CommandContext
from waymark.commands.descriptions import PREVIEW
from waymark.commands.schema import param
from waymark.commands.sed_files import check_overlaps, literal, load_reads, load_writes
from waymark.commands.sed_glob import expand_glob
from waymark.engine import sed as sed_engine
from waymark.engine.errors import WaymarkError
from waymark.engine.sed.decline import SedDecline
from waymark.engine.text import sniff_encoding

if TYPE_CHECKING:
    from waymark.engine.sed.invocation import SedInvocation


@attrs.define(kw_only=True)
class SedParams:
    command: str = param("The whole sed shell line.")
    cwd: str | None = param("Directory the command runs in.", default=None)
    preview: bool = param(PREVIEW, default=False)


# Python's backtracking regex can go quadratic on one huge line (e.g. `[^,]*,` with no comma);
# GNU's DFA does not, so such lines are left to the real sed.
MAX_LINE_BYTES = 256 * 1024


def _has_long_line(data: bytes) -> bool:
    """Whether a line (its newline not counted) is over MAX_LINE_BYTES: one window of that
    size per step, never a Python object per line (8 MB of short lines: 32 steps)."""
    start = 0
    while len(data) - start > MAX_LINE_BYTES:
        last = data.rfind(b"\n", start, start + MAX_LINE_BYTES + 1)
        if last < 0:
            return True
        start = last + 1
    return False


def _declined(reason: str, **details: Any) -> dict[str, Any]:
    return {"ok": True, "simulated": False, "reason": reason, **details}


def _load_backup(ctx: CommandContext, name: str, path: str, base: Path | None) -> Loaded:
    """The backup GNU renames operand ``path`` to, as a change target; SedDecline where GNU
    fails, or replaces something Waymark does not write (only a regular file or nothing)."""
    spelled = os.path.join(base or ctx.workspace.resolve(".").real, name)
    if not os.path.isdir(os.path.dirname(spelled)):
        raise SedDecline(
            f"the backup {name}: its directory does not exist, so GNU sed fails to rename "
            f"{path}; create the directory or choose another suffix."
        )
    try:
        mode: int | None = os.lstat(spelled).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise SedDecline(f"the backup {name} cannot be checked ({exc.strerror}).") from exc
    link = (
        f"the backup name {name} is a symbolic link, which GNU sed replaces with the backup "
        "(its target stays as it is); that is not simulated: remove the link or choose "
        "another suffix."
    )
    if mode is not None and stat.S_ISLNK(mode):
        # History cannot restore a link, and writing through it would clobber its target.
        raise SedDecline(link)
    if mode is not None and stat.S_ISDIR(mode):
        raise SedDecline(
            f"the backup name {name} is a directory, so GNU sed fails to rename {path} onto "
            "it; choose another suffix."
        )
    if mode is not None and not stat.S_ISREG(mode):
        raise SedDecline(f"the backup name {name} is not a regular file, which is not simulated.")
    backup = load_path(ctx, literal(name), must_exist=False, base=base)
    # A link put there since the check would be followed by resolving: never write through it.
    unfollowed = Path(os.path.realpath(os.path.dirname(spelled)), os.path.basename(spelled))
    if backup.resolved.real != unfollowed:
        raise SedDecline(
            f"the backup name {name} leads to {backup.resolved.display}, not to the file GNU "
            "sed renames onto (a symbolic link on the way); that is not simulated."
        )
    return backup


def _operands(ctx: CommandContext, invocation: SedInvocation, base: Path | None) -> list[str]:
    """The file operands after the shell's pathname expansion (relative to ``base``, or to
    the workspace's first folder)."""
    paths: list[str] = []
    for path, glob in zip(invocation.paths, invocation.globs, strict=True):
        if glob is None:
            paths.append(path)
            continue
        matches = expand_glob(base or ctx.workspace.resolve(".").real, glob)
        if not matches:
            raise SedDecline(
                f"the glob {path} matches no file: the shell would pass it unchanged and "
                "sed would fail on it."
            )
        paths.extend(matches)
    return paths


def _home_of(user: str) -> str | None:
    """The directory bash puts for ``~user`` (``~``: $HOME, else the passwd entry)."""
    home = os.path.expanduser("~" + user)
    return None if home.startswith("~") else home


def sed(ctx: CommandContext, params: SedParams) -> Proposal | dict[str, Any]:
    try:
        invocation = sed_engine.parse_command_line(params.command, _home_of)
    except SedDecline as decline:
        return _declined(decline.reason)
    base = None
    loaded: list[Loaded] = []
    try:
        base = ctx.workspace.resolve(params.cwd).real if params.cwd else None
        paths = _operands(ctx, invocation, base)
    except SedDecline as decline:
        return _declined(decline.reason)
    except WaymarkError as exc:
        return _declined(wording.message(exc, ctx.names), error=exc.code)
    backups: list[Loaded | None] = []
    try:
        for path in paths:
            # GNU reports a missing file and goes on with the others, exiting 2: the agent
            # would see a failure, so the whole line is left to the real sed.
            loaded.append(load_path(ctx, literal(path), base=base))
        for path in paths:
            name = invocation.backup_name(path)
            backups.append(None if name is None else _load_backup(ctx, name, path, base))
    except SedDecline as decline:
        return _declined(decline.reason)
    except WaymarkError as exc:
        return _declined(wording.message(exc, ctx.names), error=exc.code)
    operand_files = {item.resolved.real for item in loaded}
    if len(operand_files) < len(loaded):
        return _declined(
            "the line names the same file twice; GNU sed would edit it twice in a row, "
            "which is not simulated."
        )
    backup_files = [backup.resolved.real for backup in backups if backup is not None]
    if len(set(backup_files)) < len(backup_files) or operand_files & set(backup_files):
        return _declined(
            "a backup name is also a file operand or another operand's backup, which is "
            "not simulated."
        )
    try:
        for path, item in zip(paths, loaded, strict=True):
            assert item.data is not None
            encoding, _ = sniff_encoding(item.data)
            if encoding != "utf-8":
                return _declined(
                    f"{path} is {encoding}; GNU sed edits its raw bytes, "
                    "which Waymark does not simulate.",
                    error="unsupported_encoding",
                )
            if _has_long_line(item.data):
                return _declined(
                    f"{path} has a line over {MAX_LINE_BYTES} bytes; a regex can take "
                    "quadratic time on such a line, so Waymark does not simulate it.",
                    error="line_too_long",
                )
    except WaymarkError as exc:
        return _declined(wording.message(exc, ctx.names), error=exc.code)
    script = invocation.script
    try:
        reads = load_reads(ctx, script, base)
        writes = load_writes(ctx, script, base)
        check_overlaps(reads, writes, operand_files | set(backup_files))
    except SedDecline as decline:
        return _declined(decline.reason)
    except WaymarkError as exc:
        return _declined(wording.message(exc, ctx.names), error=exc.code)
    inputs = [item.data or b"" for item in loaded]
    try:
        if reads or writes:
            run = sed_engine.apply_with_files(
                script, inputs, {name: item.data for name, item in reads.items()}
            )
            results, written = run.files, run.writes
        else:
            results, written = sed_engine.apply_files(script, inputs), {}
    except SedDecline as decline:
        return _declined(decline.reason)
    except UnicodeEncodeError:
        # A byte of the line that is not UTF-8 arrives as a surrogate escape (a shell in
        # another locale); the text it would write has no UTF-8 spelling to check it by.
        return _declined(
            "the script holds bytes that are not UTF-8, which Waymark does not simulate."
        )
    changes: list[FileChange] = []
    for item, backup, after in zip(loaded, backups, results, strict=True):
        if after is None:
            continue
        ctx.session.observe(item.resolved.real, item.digest)
        changes.append(FileChange(item, after))
        if backup is not None:
            # GNU renames the original to the backup name: it holds the old bytes.
            changes.append(FileChange(backup, item.data))
    # GNU creates or truncates every w file when it compiles the script, written to or not.
    changes.extend(FileChange(target, written[name]) for name, target in writes.items())
    names = ", ".join(Path(path).name for path in paths)
    result = {"simulated": True, "details": {"writer_type": "sed"}}
    return Proposal("sed", f"Waymark: {names} (sed)", changes, result)

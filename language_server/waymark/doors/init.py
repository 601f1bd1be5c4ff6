"""``waymark init <host>``: register the MCP server and the hooks in a project's host config.

Existing configs are merged into, never replaced: the user's servers, hooks and settings
stay, and running init again changes nothing. ``--print`` shows the files it would write.

All or nothing: every file's new content is planned and its shape checked before the first
write, and when a write still fails the files already written are put back. A config that
is not a regular file, is not UTF-8, does not parse, has a member of the wrong type, or
leads out of the project through a symlink is refused with one sentence naming it.

The jobs: reading and checking configs (``init_configs.py``), Waymark's server and hook
entries (``init_entries.py``), each host's plan (``init_plans.py``, named with what init
says after it on the host's record in ``hosts.py``), and writing them all here.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

from waymark.doors.git_exclude import keep_out_of_git
from waymark.doors.hosts import HOSTS
from waymark.doors.init_configs import Config, InitError
from waymark.doors.init_plans import PLANS, cline_mcp_settings
from waymark.engine.errors import FileChangedSinceRead, WaymarkError
from waymark.store.files import atomic_write, create_parents, delete_file, digest


def _missing_dirs(path: Path) -> list[Path]:
    """The directories above ``path`` that writing it creates, outermost first."""
    return [p for p in reversed(path.parents) if not p.exists()]


def _write_all(configs: list[Config]) -> None:
    """Write every changed config; if one fails, put back those already written and raise."""
    written: list[Config] = []
    made: list[Path] = []
    try:
        for config in configs:
            assert config.new is not None
            made += _missing_dirs(config.real)
            create_parents(config.real)
            expected = None if config.old is None else digest(config.old)
            atomic_write(config.real, config.new, expected=expected)
            written.append(config)
            if config.mode is not None:
                os.chmod(config.real, config.mode)
    except (WaymarkError, OSError) as exc:
        if isinstance(exc, FileChangedSinceRead):
            what = f"{exc.details.get('path', 'a config')} changed while init ran"
        else:
            what = _one_line(exc).rstrip(".")
        raise InitError(f"{what}; {_restore(written, made)}") from exc


def _restore(written: list[Config], made: list[Path]) -> str:
    """Undo :func:`_write_all`'s writes so far; say whether everything is as it was."""
    lost: list[str] = []
    for config in reversed(written):
        try:
            if config.old is None:
                delete_file(config.real)
            else:
                atomic_write(config.real, config.old)
        except (WaymarkError, OSError):
            lost.append(str(config.shown))
    for directory in reversed(made):
        # Not empty: something else was put there meanwhile, and it stays.
        with contextlib.suppress(OSError):
            directory.rmdir()
    if lost:
        return f"{', '.join(lost)} could not be put back, check them and run init again."
    return "nothing was changed, run init again."


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def main(host: str, workspace: str | None, show: bool, user: bool = False) -> int:
    root = Path(os.path.realpath(workspace or "."))
    if not root.is_dir():
        print(f"waymark init: {root} is not a directory; pass a project folder.", file=sys.stderr)
        return 2
    record = HOSTS[host]
    setup = record.setup
    if user and setup.user_plan is None:
        print(
            f"waymark init: {host} reads Waymark's server from the project; run init without "
            "--user.",
            file=sys.stderr,
        )
        return 2
    try:
        plan = PLANS[setup.plan](root, record)
        if user and setup.user_plan is not None:
            plan += PLANS[setup.user_plan](root, record)
    except InitError as exc:
        print(f"waymark init: {_one_line(exc)}", file=sys.stderr)
        return 1
    changed = [c for c in plan if c.changes()]
    if show:
        for config in plan:
            unchanged = "" if config in changed else " (unchanged)"
            assert config.new is not None
            print(f"--- {config.shown}{unchanged}\n{config.new.decode('utf-8')}", end="")
    else:
        try:
            _write_all(changed)
        except InitError as exc:
            print(f"waymark init: {_one_line(exc)}", file=sys.stderr)
            return 1
        for config in plan:
            print(f"{'wrote' if config in changed else 'unchanged'} {config.shown}")
        for relative in setup.personal:
            if any(config.shown == root / relative for config in plan):
                problem = keep_out_of_git(root, root / relative)
                if problem:
                    print(f"waymark init: {problem}", file=sys.stderr)
    if setup.note and not (user and setup.user_plan is not None):
        print(setup.note.format(root=root, settings=cline_mcp_settings()))
    return 0

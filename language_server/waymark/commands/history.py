"""``waymark.snapshot``, ``waymark.turns``, ``waymark.diffStats``, ``waymark.rewind``.

The wire shape of history: parameter checks, display paths and camelCase keys. History
itself answers in typed values keyed by absolute path (``waymark.history``).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs

from waymark.commands.changes import FileChange, Loaded, Proposal, load
from waymark.commands.context import CommandContext
from waymark.commands.descriptions import PREVIEW
from waymark.commands.params import require
from waymark.commands.schema import param
from waymark.commands.tracking import history_of, open_turn
from waymark.engine.errors import (
    FileTooLarge,
    InvalidParams,
    RewindInProgress,
    UnknownPrompt,
    WaymarkError,
)
from waymark.store.history import (
    OPTIONS,
    History,
    PlanMismatch,
    RewindPlan,
    RewindResult,
    RewindRunning,
    UnknownOption,
    UnknownTurn,
)
from waymark.store.history.backups import read_tracked
from waymark.store.history.snapshots import Snapshot


@attrs.define(kw_only=True)
class SnapshotParams:
    promptId: str = param("Id of the turn that starts.")
    label: str | None = param("Short human-readable label.", default=None)


@attrs.define(kw_only=True)
class TurnsParams:
    limit: int | None = param(
        "List only the newest N turns.", default=None, minimum=1, maximum=100_000
    )
    before: str | None = param(
        "List only turns older than this promptId (the next page).", default=None
    )
    all: bool = param(
        "Also list turns that ended without changing a file (left out by default; they stay "
        "valid rewind targets).",
        default=False,
    )


@attrs.define(kw_only=True)
class DiffStatsParams:
    promptId: str = param("The turn whose changes to count.")


@attrs.define(kw_only=True)
class RewindParams:
    promptId: str = param("The turn to go back to.")
    option: str = param(
        "code: restore the files; conversation: drop the later turns and restore nothing; "
        "both: do both.",
        default="code",
        enum=list(OPTIONS),
    )
    preview: bool = param(PREVIEW, default=False)
    force: bool = param("Also restore files changed by someone else.", default=False)
    paths: list[str] | None = param(
        "Rewind only these files (paths as in waymark.turns); the others stay as they are.",
        default=None,
        items={"type": "string"},
        minItems=1,
    )


def _history(ctx: CommandContext) -> History:
    return history_of(ctx)


_Refusal = UnknownTurn | RewindRunning | UnknownOption | PlanMismatch


def worded(exc: _Refusal) -> WaymarkError:
    """History's refusal in the contract's words (codes, wire field and command names)."""
    if isinstance(exc, UnknownTurn):
        if exc.deleted:
            return UnknownPrompt(
                f"Turn {exc.prompt_id!r} is gone: this workspace's history was deleted since "
                "(waymark history delete), with its backups, so it cannot be rewound",
                {"promptId": exc.prompt_id, "known": exc.known[-10:], "historyDeleted": True},
                next_step="turns",
            )
        return UnknownPrompt(
            f"No snapshot has promptId {exc.prompt_id!r}",
            {"promptId": exc.prompt_id, "known": exc.known[-10:]},
            next_step="turns",
        )
    if isinstance(exc, RewindRunning):
        return RewindInProgress(
            "A rewind is already running in this session; wait for it to finish.",
            {"promptId": exc.prompt_id},
        )
    if isinstance(exc, UnknownOption):
        return InvalidParams(
            f"`option` must be one of {', '.join(exc.options)}.", {"field": "option"}
        )
    return InvalidParams(
        "The pending rewind was planned for another promptId.", {"field": "promptId"}
    )


@contextlib.contextmanager
def history_errors() -> Iterator[None]:
    """Answer history's refusals in the contract's words."""
    try:
        yield
    except (UnknownTurn, RewindRunning, UnknownOption, PlanMismatch) as exc:
        raise worded(exc) from exc


def _paths(history: History, keys: list[str] | tuple[str, ...]) -> list[str]:
    return sorted(history.display(key) for key in keys)


def snapshot(ctx: CommandContext, params: SnapshotParams) -> dict[str, Any]:
    snap, warnings = open_turn(ctx, params.promptId, params.label)
    return {"ok": True, **snapshot_json(_history(ctx), snap, warnings)}


def snapshot_json(history: History, snap: Snapshot, warnings: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "promptId": snap.prompt_id,
        "label": snap.label,
        "timestamp": snap.timestamp,
        "files": _paths(history, list(snap.files)),
    }
    if warnings:
        out["warnings"] = warnings
    return out


def turns(ctx: CommandContext, params: TurnsParams) -> dict[str, Any]:
    require(params.limit is None or 1 <= params.limit <= 100_000, "limit", "must be 1 to 100000")
    every = turns_json(_history(ctx))
    position = {t["promptId"]: i for i, t in enumerate(every)}
    listed = every
    if not params.all:
        # The newest turn is still open: no change yet is not "ended without a change".
        listed = [t for i, t in enumerate(every) if t["changed"] or i == len(every) - 1]
    if params.before is not None:
        if params.before not in position:
            raise worded(UnknownTurn(params.before, list(position)))
        cut = position[params.before]
        listed = [t for t in listed if position[t["promptId"]] < cut]
    older = 0
    if params.limit is not None and len(listed) > params.limit:
        older = len(listed) - params.limit
        listed = listed[older:]
    return {"ok": True, "turns": listed, **({"older": older} if older else {})}


def turns_json(history: History) -> list[dict[str, Any]]:
    return [
        {
            "promptId": turn.prompt_id,
            "label": turn.label,
            "timestamp": turn.timestamp,
            "files": _paths(history, turn.files),
            "edited": _paths(history, turn.edited),
            "canRestore": turn.can_restore,
            "changed": bool(turn.edited or turn.unreached),
            **_unreached(history, turn.unreached),
        }
        for turn in history.turns()
    ]


def _unreached(history: History, items: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    """What shell commands of the turn may have changed but could not back up (if any)."""
    if not items:
        return {}
    return {"unreached": [{"path": history.display(p), "reason": r} for p, r in items]}


def diff_stats(ctx: CommandContext, params: DiffStatsParams) -> dict[str, Any]:
    return {"ok": True, **stats_json(_history(ctx), params.promptId)}


def stats_json(history: History, prompt_id: str) -> dict[str, Any]:
    files: list[dict[str, Any]] = []
    unavailable: list[dict[str, Any]] = []
    with history_errors():
        counted = history.diff_stats(prompt_id)
    for stat in counted:
        path = history.display(stat.key)
        if stat.reason is not None or stat.counts is None:
            item: dict[str, Any] = {"path": path, "reason": stat.reason}
            if stat.errno is not None:
                item["errno"] = stat.errno
            unavailable.append(item)
            continue
        entry: dict[str, Any] = {
            "path": path,
            "status": stat.status,
            "insertions": stat.counts.insertions,
            "deletions": stat.counts.deletions,
        }
        if stat.counts.binary:
            entry["binary"] = True
        if stat.conflict:
            entry["conflict"] = True
        files.append(entry)
    out: dict[str, Any] = {
        "promptId": prompt_id,
        "filesChanged": len(files),
        "insertions": sum(f["insertions"] for f in files),
        "deletions": sum(f["deletions"] for f in files),
        "files": files,
    }
    if unavailable:
        out["unavailable"] = unavailable
    return out


def _unsaved(ctx: CommandContext, history: History) -> dict[str, str]:
    """Tracked files with unsaved editor changes: a rewind must not write disk under them."""
    blocked = {}
    for key in history.tracked():
        if ctx.documents.get(Path(key)) is None:
            continue
        try:
            dirty = load(ctx, ctx.workspace.resolve(key), must_exist=False).dirty
        except WaymarkError:
            continue  # history refuses it on its own, with the reason
        if dirty:
            blocked[key] = "unsaved_editor_changes"
    return blocked


def rewind_json(history: History, result: RewindResult) -> dict[str, Any]:
    """A rewind's outcome in the wire shape (display paths)."""
    conflicts: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    for done in result.outcomes:
        if done.kind == "conflict":
            conflicts.append({"path": history.display(done.key), "reason": done.reason})
        elif done.kind == "failed":
            item: dict[str, Any] = {"path": history.display(done.key), "reason": done.reason}
            if done.errno is not None:
                item["errno"] = done.errno
            failed.append(item)
    out: dict[str, Any] = {
        "promptId": result.prompt_id,
        "option": result.option,
        "restored": _paths(history, result.keys("restored")),
        "deleted": _paths(history, result.keys("deleted")),
        "unchanged": _paths(history, result.keys("unchanged")),
        "conflicts": conflicts,
        "failed": failed,
        "undoPromptId": result.undo_prompt_id,
        "droppedTurns": result.dropped_turns,
    }
    if result.warnings:
        out["warnings"] = result.warnings
    return out


def _chosen(
    ctx: CommandContext, history: History, paths: list[str] | None
) -> frozenset[str] | None:
    """The tracked files ``paths`` names (absolute keys), or None for every tracked file."""
    if paths is None:
        return None
    require(bool(paths), "paths", "must list at least one file (or be left out)")
    tracked = set(history.tracked())
    keys = set()
    for path in paths:
        key = os.fspath(ctx.workspace.resolve(path).real)
        if key not in tracked:
            raise InvalidParams(
                f"{path} has no backup in the history, so there is nothing to rewind it to",
                {"field": "paths", "path": path},
                next_step="turns",
            )
        keys.add(key)
    return frozenset(keys)


def rewind(ctx: CommandContext, params: RewindParams) -> Proposal:
    require(params.option in OPTIONS, "option", f"must be one of {', '.join(OPTIONS)}")
    require(
        params.paths is None or params.option == "code",
        "paths",
        "it rewinds files, so it goes with option code (the default) only",
    )
    history = _history(ctx)
    only = _chosen(ctx, history, params.paths)
    # Only a preview needs the whole plan (and its bytes) up front; a direct rewind lets
    # history plan and restore file by file.
    plan = None
    if params.preview:
        with history_errors():
            plan = history.plan_rewind(
                params.promptId, force=params.force, blocked=_unsaved(ctx, history), only=only
            )

    def apply(ctx: CommandContext) -> dict[str, Any]:
        with history_errors():
            result = history.rewind(
                params.promptId,
                option=params.option,
                force=params.force,
                plan=plan,
                blocked=_unsaved(ctx, history),
                only=only,
            )
        for key in result.keys("restored", "deleted"):
            real = Path(key)
            try:
                now = read_tracked(
                    real, any_directory=True, limit=ctx.workspace.max_file_size
                ).digest
            except FileTooLarge:
                # Rewritten since: the session knows no content of it.
                now = None
            ctx.session.note_rewind(real, now)
        outcome = rewind_json(history, result)
        if ctx.editor is not None:
            ctx.editor.notify(
                "waymark/didRewind",
                {
                    "promptId": params.promptId,
                    "option": params.option,
                    "restored": outcome["restored"],
                    "deleted": outcome["deleted"],
                },
            )
        return {"ok": True, **outcome}

    if plan is None:
        return Proposal("rewind", "Waymark: rewind", [], {}, apply=apply)
    changes = [] if params.option == "conversation" else _plan_changes(ctx, plan)
    planned = [
        {"path": f.path, "outcome": f.outcome, **({"reason": f.reason} if f.reason else {})}
        for f in plan.files
    ]
    result = {"promptId": params.promptId, "plan": planned}
    return Proposal("rewind", "Waymark: rewind", changes, result, apply=apply)


def _plan_changes(ctx: CommandContext, plan: RewindPlan) -> list[FileChange]:
    """The files a rewind would write, as a previewable change set."""
    changes = []
    for item in plan.files:
        if item.outcome not in ("restore", "delete"):
            continue
        resolved = ctx.workspace.resolve(item.key)
        loaded = Loaded(resolved, item.current, item.current, None, resolved.lexical.as_uri())
        changes.append(FileChange(loaded, item.target if item.outcome == "restore" else None))
    return changes

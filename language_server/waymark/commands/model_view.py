"""What a model reads from a tool's result (docs/protocol.md, "What a model reads").

An editor needs a result whole (the ``WorkspaceEdit``, ``newContent`` to review); a model pays
for every character it reads. :func:`model_text` is the one text the model-facing doors return
for a result (the MCP tools, VS Code's language-model tools through ``waymark.modelText``):
never the content the model just sent, a unified diff within the tool's budget (each file
past it as ``path +N −M``), the anchors of the changed lines where they spare a re-read, and
``more``: the call that shows what was left out.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import attrs

from waymark.commands.params import require
from waymark.commands.schema import param

BUDGETS: dict[str, int | None] = {
    "waymark_read": None,  # pages by offset/limit: the model asks for the lines it reads
    "waymark_edit": 2000,
    "waymark_replace": 2000,
    "waymark_multi_replace": 2000,
    "waymark_write": 2000,
    "waymark_sed": 2000,
    "waymark_patch": 2000,
    "waymark_notebook_edit": 2000,
    "waymark_snapshot": 2000,
    "waymark_turns": 4000,
    "waymark_diff_stats": None,  # the per-file counts other results point to for more
    "waymark_rewind": 4000,
}
"""Characters at most in the text of one successful result (None: not bounded here)."""

TURNS_PAGE = 20
"""The ``limit`` the turns hint suggests for the next page."""

_EDITED_SHOWN = 20
_ANCHOR_LINES = 40
# Results whose bulk is replaced by the shaped fields below.
_BULK = ("ok", "diff", "files", "anchoredDiff", "snippet", "workspaceEdit", "anchors", "plan")


def model_text(tool: str, result: dict[str, Any]) -> str:
    """The text a model reads for ``tool``'s ``result`` (a failure as ``code: message``)."""
    if not result.get("ok"):
        text = f"{result.get('error')}: {result.get('message')}"
        if result.get("details"):
            text += "\n" + compact(result["details"])
        return text
    if tool == "waymark_read":
        return _read_text(result)
    budget = BUDGETS.get(tool)
    if tool == "waymark_turns":
        return compact(_turns_view(result, budget or 0))
    if "diff" in result or "plan" in result:
        return compact(_change_view(tool, result, budget or 0))
    view = {k: v for k, v in result.items() if k != "ok"}
    if budget is not None and len(compact(view)) > budget:
        if isinstance(view.get("files"), list):
            # A snapshot lists every tracked file: a count says what a model needs of that.
            view["files"] = len(view["files"])
        # A rewind's conflicts and failures are never cut; what it restored may be.
        view = _shrink(view, budget, ("unchanged", "restored", "deleted"))
    return compact(view)


def compact(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _read_text(result: dict[str, Any]) -> str:
    text: str = result["text"]
    shown = result["lines"]
    if shown and shown[-1]["line"] < result["totalLines"]:
        text += (
            f"(lines {shown[0]['line']}-{shown[-1]['line']} of {result['totalLines']}; "
            f"continue with offset={shown[-1]['line'] + 1})\n"
        )
    elif not shown:
        text = f"({result['path']} has {result['totalLines']} lines; none in this range)\n"
    if "encodingNote" in result:
        text = f"(encoding: {result['encodingNote']})\n" + text
    return text


# ---------------------------------------------------------------- changes


@dataclass(frozen=True)
class FilePart:
    """One file's part of a unified diff."""

    path: str
    text: str
    insertions: int
    deletions: int
    first_line: int  # first line of the first hunk on the new side (1 for a new file)

    @property
    def counts(self) -> str:
        return f"{self.path} +{self.insertions} −{self.deletions}"


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def split_diff(diff: str) -> list[FilePart]:
    """``diff`` (as engine/diff.py writes it) cut per file, with each file's counts."""
    parts: list[FilePart] = []
    lines = diff.splitlines(keepends=True)
    i = 0
    while i + 1 < len(lines):
        start = i
        old, new = lines[i][4:].rstrip("\r\n"), lines[i + 1][4:].rstrip("\r\n")
        path = (new if new != "/dev/null" else old).removeprefix("b/").removeprefix("a/")
        i += 2
        insertions = deletions = 0
        first = 0
        # Hunk headers give the line counts, so a removed "-- x" line is never a file header.
        while i < len(lines) and (m := _HUNK.match(lines[i])):
            first = first or max(int(m[3]), 1)
            left = int(m[2] if m[2] is not None else 1)
            right = int(m[4] if m[4] is not None else 1)
            i += 1
            while i < len(lines) and (left or right or lines[i].startswith("\\")):
                kind = lines[i][:1]
                if kind == "-":
                    left, deletions = left - 1, deletions + 1
                elif kind == "+":
                    right, insertions = right - 1, insertions + 1
                elif kind == " ":
                    left, right = left - 1, right - 1
                i += 1
        parts.append(FilePart(path, "".join(lines[start:i]), insertions, deletions, first or 1))
    return parts


def _anchors(result: dict[str, Any]) -> list[str] | None:
    """The ``LINE#HASH|text`` anchors of the lines a result changed, when it has them."""
    if "anchors" in result:
        found: list[str] = result["anchors"]
        return found
    hunks = result.get("anchoredDiff")
    if not hunks:
        return None
    lines = [
        f"{line['line']}#{line['hash']}{'~|' if line['quality'] == 'low' else '|'}{line['text']}"
        for hunk in hunks
        for line in hunk["lines"]
        if line["kind"] != "removed"
    ]
    return lines if len(lines) <= _ANCHOR_LINES else None


def _more(tool: str, result: dict[str, Any], parts: list[FilePart]) -> str:
    if tool == "waymark_rewind":
        ask = compact(
            {"promptId": result.get("promptId"), "preview": True, "paths": [parts[0].path]}
        )
        return f"one file's diff: waymark_rewind {ask} (paths: any of notShown)"
    if len(parts) == 1:
        ask = compact({"path": parts[0].path, "hashes": True, "offset": parts[0].first_line})
        return f"the changed lines with their anchors: waymark_read {ask}"
    return 'the changed lines of a file: waymark_read {"path":…,"hashes":true,"offset":…}'


def _plan_line(item: dict[str, Any]) -> str:
    reason = f" ({item['reason']})" if item.get("reason") else ""
    return f"{item['path']}: {item['outcome']}{reason}"


def _change_view(tool: str, result: dict[str, Any], budget: int) -> dict[str, Any]:
    view = {k: v for k, v in result.items() if k not in _BULK}
    if "plan" in result:
        view["plan"] = [_plan_line(item) for item in result["plan"]]
    elif isinstance(result.get("files"), list):
        view["files"] = [f"{f['path']}: {f['action']}" for f in result["files"]]
    parts = split_diff(result.get("diff") or "")
    shown = list(parts)
    anchors = _anchors(result)

    def build() -> dict[str, Any]:
        out = dict(view)
        if shown:
            out["diff"] = "".join(p.text for p in shown)
        left = [p for p in parts if p not in shown]
        if left:
            out["notShown"] = [p.counts for p in left]
        if anchors:
            out["anchors"] = anchors
        if left:
            out["more"] = _more(tool, result, left or parts)
        return out

    out = build()
    # The largest files go first: what is left shows as many files whole as fit.
    while len(compact(out)) > budget and shown:
        shown.remove(max(shown, key=lambda p: len(p.text)))
        out = build()
    if len(compact(out)) > budget and anchors:
        anchors = None
        out = build()
    return _shrink(out, budget, ("notShown", "plan", "unchanged", "restored", "deleted"))


def _shrink(view: dict[str, Any], budget: int, keys: tuple[str, ...]) -> dict[str, Any]:
    """Cut long lists (in ``keys`` order) to what fits, saying how many were left out.

    A rewind plan keeps every line that is not a plain restore or delete: files it cannot
    reach are always listed, whatever their number.
    """
    for key in keys:
        items = view.get(key)
        if len(compact(view)) <= budget or not isinstance(items, list):
            continue
        kept = [x for x in items if key == "plan" and not x.endswith((": restore", ": delete"))]
        rest = [x for x in items if x not in kept]
        while rest:
            rest.pop()
            view[key] = [*kept, *rest, f"… {len(items) - len(kept) - len(rest)} more"]
            if len(compact(view)) <= budget:
                break
    return view


# ---------------------------------------------------------------- turns


def _turn(turn: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in turn.items() if k != "files"}
    edited = turn.get("edited") or []
    if len(edited) > _EDITED_SHOWN:
        out["edited"] = edited[:_EDITED_SHOWN]
        out["editedMore"] = len(edited) - _EDITED_SHOWN
    return out


def _turns_view(result: dict[str, Any], budget: int) -> dict[str, Any]:
    """The newest turns that fit, without each turn's list of tracked files (a model asks
    about what a turn changed), and the call for the page before them."""
    view = {k: v for k, v in result.items() if k not in ("ok", "turns")}
    turns = [_turn(t) for t in result["turns"]]
    older = int(result.get("older", 0))
    while True:
        out = {**view, "turns": turns}
        if older:
            page = {"before": turns[0]["promptId"] if turns else "", "limit": TURNS_PAGE}
            out.update(older=older, more="older turns: waymark_turns " + compact(page))
        if len(compact(out)) <= budget or len(turns) <= 1:
            return out
        # Most cuts drop many turns: step by the share that is over, not one by one.
        over = len(compact(out)) - budget
        step = max(1, min(len(turns) - 1, over * len(turns) // len(compact(out)) + 1))
        turns, older = turns[step:], older + step


# ---------------------------------------------------------------- the LSP door's request


@attrs.define(kw_only=True)
class ModelTextParams:
    tool: str = param("The tool whose result it is, e.g. waymark_write.")
    result: dict[str, Any] = param("The result object the tool's command answered.")


def model_text_command(ctx: object, params: ModelTextParams) -> dict[str, Any]:
    """``waymark.modelText``: an IDE's language-model tool asks what its model should read."""
    require(params.tool in BUDGETS, "tool", f"must be one of {', '.join(BUDGETS)}")
    return {"ok": True, "text": model_text(params.tool, params.result)}

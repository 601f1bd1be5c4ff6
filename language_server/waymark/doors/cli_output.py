"""What ``waymark`` prints for a result, and the status it exits with.

A person reads the part that matters (the text read, the diff, a table, an error on
stderr); ``--json`` prints the whole result for programs (docs/cli.md).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from waymark.engine.text import one_line


def exit_status(verb: str, result: dict[str, Any]) -> int:
    """0 done, 1 refused, 3 a rewind that left files as they are (see EXIT_STATUS)."""
    if not result.get("ok"):
        return 1
    if verb == "rewind" and (result.get("conflicts") or result.get("failed")):
        return 3
    return 0


def _counts(insertions: int, deletions: int) -> str:
    return f"+{insertions} −{deletions}"


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return [
        "  ".join([*(c.ljust(w) for c, w in zip(row[:-1], widths, strict=True)), row[-1]])
        for row in rows
    ]


def _turns(result: dict[str, Any]) -> list[str]:
    if not result["turns"]:
        return ["No turns yet: `waymark snapshot ID` opens one (agent hosts open them per prompt)."]
    rows = [["ID", "WHEN", "LABEL", "FILES", "SINCE"]]
    for turn in result["turns"]:
        since = turn.get("since")
        rows.append(
            [
                turn["promptId"],
                turn["timestamp"][:16].replace("T", " "),
                one_line(turn.get("label") or "", 40),
                str(len(turn["files"])),
                _counts(since["insertions"], since["deletions"]) if since else "?",
            ]
        )
    return [
        *_table(rows),
        "SINCE counts the lines `waymark rewind ID` would undo (try --preview first).",
    ]


def _rewind(result: dict[str, Any]) -> list[str]:
    lines = [f"restored  {p}" for p in result["restored"]]
    lines += [f"deleted   {p}" for p in result["deleted"]]
    lines += [f"conflict  {c['path']}  ({c['reason']})" for c in result["conflicts"]]
    lines += [f"failed    {f['path']}  ({f['reason']})" for f in result["failed"]]
    if not lines:
        lines.append(f"No file differs from the start of turn {result['promptId']}.")
    if result.get("droppedTurns"):
        lines.append(f"dropped turns: {', '.join(result['droppedTurns'])}")
    if result["conflicts"]:
        lines.append(
            f"{len(result['conflicts'])} changed by someone else since Waymark saw them, left "
            f"as they are; rewind again with --force to overwrite them too."
        )
    if result["failed"]:
        lines.append(f"{len(result['failed'])} could not be restored (the reason is listed).")
    if result.get("undoPromptId"):
        lines.append(f"Undo this rewind with: waymark rewind {result['undoPromptId']}")
    return lines


def _diff_stats(result: dict[str, Any]) -> list[str]:
    rows = [
        [f["path"], f["status"], _counts(f["insertions"], f["deletions"])] for f in result["files"]
    ]
    lines = _table(rows) if rows else []
    lines += [f"{u['path']}  not counted: {u['reason']}" for u in result.get("unavailable", [])]
    count = result["filesChanged"]
    total = _counts(result["insertions"], result["deletions"])
    lines.append(
        f"{count} file{'' if count == 1 else 's'} changed, {total} since turn {result['promptId']}"
    )
    return lines


def print_result(verb: str, result: dict[str, Any], *, as_json: bool) -> None:
    """What the terminal shows for one result: the whole object with ``--json``, else the
    part a person reads (the text read, the diff, a table, an error on stderr)."""
    # describe-tools exists for programs (the VS Code manifest sync): always the whole object.
    if as_json or verb == "describe-tools":
        text = json.dumps(result, indent=2, ensure_ascii=False)
        if not _utf8(text):
            # A file name that is not UTF-8 holds surrogate escapes (os.fsdecode): \u escapes
            # keep the JSON valid UTF-8, and fsencode of what a reader decodes gives the name back.
            text = json.dumps(result, indent=2)
        print(text)
        return
    if not result.get("ok"):
        print(f"error: {result['error']}: {result['message']}", file=sys.stderr)
        return
    lines: list[str] | None = None
    if verb == "read":
        if "encodingNote" in result:
            print(f"(encoding: {result['encodingNote']})", file=sys.stderr)
        sys.stdout.write(result["text"])
    elif verb == "sed" and not result.get("simulated"):
        print(f"not simulated: {result['reason']}")
    elif "diff" in result:
        sys.stdout.write(result["diff"] or "(no change)\n")
    elif verb == "turns":
        lines = _turns(result)
    elif verb == "rewind":
        lines = _rewind(result)
    elif verb == "snapshot":
        label = f" ({one_line(result['label'])})" if result.get("label") else ""
        lines = [f"opened turn {result['promptId']}{label}"]
    elif verb == "diff-stats":
        lines = _diff_stats(result)
    else:
        print(json.dumps({k: v for k, v in result.items() if k != "ok"}, indent=2))
    for line in lines or ():
        print(line)
    for warning in result.get("warnings", []):
        print(f"warning: {warning}", file=sys.stderr)


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True

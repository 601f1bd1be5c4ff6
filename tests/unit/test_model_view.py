"""The model view's pieces: the budget table, diff splitting, and what is never cut."""

from __future__ import annotations

import json

from waymark.commands.model_view import BUDGETS, model_text, split_diff
from waymark.commands.registry import TOOLS
from waymark.engine.diff import diff_file
from waymark.engine.text import TextFile


def _tf(text: str) -> TextFile:
    return TextFile.decode(text.encode())


def test_every_tool_has_a_budget_entry() -> None:
    assert list(BUDGETS) == list(TOOLS)


def test_a_removed_line_that_looks_like_a_file_header_stays_in_its_file() -> None:
    one = diff_file("a.txt", _tf("-- x\nkeep\n"), _tf("++ y\nkeep\n")).text
    two = diff_file("b.txt", None, _tf("new\n")).text
    assert "\n--- x\n+++ y\n" in one
    parts = split_diff(one + two)
    assert [(p.path, p.insertions, p.deletions) for p in parts] == [
        ("a.txt", 1, 1),
        ("b.txt", 1, 0),
    ]
    assert "".join(p.text for p in parts) == one + two


def test_a_rewind_plan_past_the_budget_still_lists_every_file_out_of_reach() -> None:
    plan = [{"path": f"f{i:04d}.txt", "outcome": "restore"} for i in range(500)]
    plan += [
        {"path": f"c{i}.txt", "outcome": "conflict", "reason": "changed_since"} for i in range(3)
    ]
    result = {"ok": True, "preview": True, "promptId": "t1", "plan": plan, "diff": ""}
    text = model_text("waymark_rewind", result)
    assert len(text) <= BUDGETS["waymark_rewind"]
    shown = json.loads(text)["plan"]
    assert [p for p in shown if "conflict" in p] == [
        f"c{i}.txt: conflict (changed_since)" for i in range(3)
    ]
    assert shown[-1].startswith("… ") and shown[-1].endswith(" more")
    assert int(shown[-1].split()[1]) + len(shown) - 1 == len(plan)


def test_a_rewind_of_many_files_keeps_every_conflict_and_failure() -> None:
    result = {
        "ok": True,
        "promptId": "t1",
        "restored": [f"r{i:04d}.txt" for i in range(400)],
        "unchanged": [f"u{i:04d}.txt" for i in range(400)],
        "conflicts": [
            {"path": f"c{i}.txt", "reason": "changed_since_agent_write"} for i in range(5)
        ],
        "failed": [{"path": "f.txt", "reason": "backup_failed"}],
    }
    text = model_text("waymark_rewind", result)
    assert len(text) <= BUDGETS["waymark_rewind"]
    shown = json.loads(text)
    assert shown["conflicts"] == result["conflicts"] and shown["failed"] == result["failed"]
    assert shown["unchanged"] == ["… 400 more"]
    assert shown["restored"][-1] == f"… {400 - len(shown['restored']) + 1} more"

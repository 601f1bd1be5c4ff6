"""The docs name what the code does: the tool list agents read, and no references to files the
repository does not hold."""

from __future__ import annotations

import re
from pathlib import Path

from waymark.commands.registry import TOOLS

ROOT = Path(__file__).resolve().parents[2]
DOCS = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md", ROOT / "CONTRIBUTING.md"]


def test_agents_doc_lists_every_mcp_tool() -> None:
    text = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    intro = text.split("## ", 1)[0]
    assert set(re.findall(r"`(waymark_[a-z_]+)`", intro)) == set(TOOLS)


def test_no_doc_points_at_the_founding_design_outside_the_repo() -> None:
    offenders = [p.name for p in DOCS if "DESIGN.md" in p.read_text(encoding="utf-8")]
    assert offenders == []


def test_relative_links_in_docs_resolve() -> None:
    missing = []
    for doc in DOCS:
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", doc.read_text(encoding="utf-8")):
            if not (doc.parent / target).exists():
                missing.append(f"{doc.name}: {target}")
    assert missing == []

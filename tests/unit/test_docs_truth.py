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


# A path the docs name in the repository: from the top, or from language_server/ for the package
# (``waymark/…``); ``{a,b}`` and ``*`` are read as the shell reads them.
REPO_PATH = re.compile(
    r"(?<![\w/.<-])((?:language_server|waymark|tests|scripts|bench|docs|vscode-extension)"
    r"/[\w./*{},-]*[\w*}])"
)
# A module named by its folder in the package (``commands/wording.py``, ``edits/snippet.py``).
PACKAGE_PATH = re.compile(r"`((?:[a-z_]+/)+[a-z_]+\.py)`")
BARE_MODULE = re.compile(r"`([A-Za-z_][\w-]*\.py)`")


def _expand(path: str) -> list[str]:
    braces = re.search(r"\{([^{}]*)\}", path)
    if braces is None:
        return [path]
    return [
        p
        for choice in braces[1].split(",")
        for p in _expand(path[: braces.start()] + choice + path[braces.end() :])
    ]


def _tracked_files() -> list[str]:
    found = []
    for path in ROOT.rglob("*"):
        parts = path.relative_to(ROOT).parts
        if any(p.startswith(".") or p in {"node_modules", "__pycache__", "out"} for p in parts):
            continue
        if path.is_file():
            found.append("/".join(parts))
    return found


def _generated_dirs() -> set[str]:
    """Folders .gitignore names: built or downloaded, so a fresh checkout lacks them."""
    lines = (ROOT / ".gitignore").read_text(encoding="utf-8").split()
    return {line.rstrip("/").rsplit("/", 1)[-1] for line in lines if line.endswith("/")}


def test_repository_paths_named_in_docs_exist() -> None:
    files = _tracked_files()
    names = {f.rsplit("/", 1)[-1] for f in files}
    generated = _generated_dirs()
    missing = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for named in REPO_PATH.findall(text):
            if re.fullmatch(r"waymark/\w+", named) or generated & set(named.split("/")):
                continue  # an LSP method (waymark/review), or a folder a build makes
            # A trailing "." ends a sentence, a trailing "**" closes bold text.
            for path in _expand(named.rstrip(".").removesuffix("**")):
                bases = [ROOT, ROOT / "language_server"]
                if not any(list(base.glob(path)) for base in bases):
                    missing.append(f"{doc.name}: {path}")
        for named in PACKAGE_PATH.findall(text):
            if not any(f"/{f}".endswith(f"/{named}") for f in files):
                missing.append(f"{doc.name}: {named}")
        for named in BARE_MODULE.findall(text):
            if named not in names:
                missing.append(f"{doc.name}: {named}")
    assert missing == []


def test_the_readme_lists_every_doc() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    listed = readme.split("## Documentation", 1)[1]
    unlisted = [
        p.name for p in sorted((ROOT / "docs").glob("*.md")) if f"](docs/{p.name})" not in listed
    ]
    assert unlisted == []

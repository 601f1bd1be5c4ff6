"""File operands with unquoted * and ?: the files are the ones real bash passes to sed, and
every file ends byte-identical to what bash + GNU sed leave; what bash would not expand the
same way everywhere is declined and writes nothing."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from helpers_commands import Agent, put

TREE = {
    "src/a.py": b"foo = 1\n",
    "src/b.py": b"no match\n",
    "src/.hidden.py": b"foo hidden\n",
    "src/notes.txt": b"foo notes\n",
    "src/sub/c.py": b"foo deep\n",
    "lib/d.py": b"foo lib\n",
    "x1.txt": b"foo x1\n",
    "x22.txt": b"foo x22\n",
}


@pytest.fixture
def agent(workspace: Path, tmp_path: Path) -> Agent:
    for name, data in TREE.items():
        put(workspace, name, data)
    return Agent(workspace, tmp_path / "history")


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def _bash(root: Path, line: str, cwd: str, scratch: Path) -> dict[str, bytes]:
    copy = scratch / "bash-copy"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".waymark*"))
    subprocess.run(
        ["bash", "-c", line],
        cwd=copy / cwd,
        env={"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"},
        check=True,
        timeout=30,
    )
    return _tree(copy)


@pytest.mark.parametrize(
    ("line", "cwd"),
    [
        ("sed -i 's/foo/bar/' src/*.py", "."),
        ("sed -i 's/foo/bar/' */*.py", "."),
        ("sed -i 's/foo/bar/' src/.*.py", "."),
        ("sed -i 's/foo/bar/' 'src'/*.p?", "."),
        ("sed -i 's/foo/bar/' x?.txt", "."),
        ("sed -i 's/foo/bar/' x??.txt", "."),
        ("sed -i 's/foo/bar/' x*?.txt", "."),
        ("sed -i -e '/no/d' -e 's/foo/&&/' *.py ../lib/*.py", "src"),
        ("sed -i.orig 's/foo/bar/' x*.txt", "."),
    ],
)
async def test_glob_operands_match_bash_and_gnu_sed(
    agent: Agent, line: str, cwd: str, tmp_path: Path
) -> None:
    expected = _bash(agent.root, line, cwd, tmp_path)
    result = await agent("sed", command=line, cwd=None if cwd == "." else cwd)
    assert result["simulated"] is True, result
    assert _tree(agent.root) == expected


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("sed -i 's/foo/bar/' src/*.rs", "matches no file"),
        ("sed -i 's/foo/bar/' src/**/*.py", "'**'"),
        ("sed -i '1h;$G' src/*.py", "sort order"),
        ("sed -i 's/foo/bar/' src/[ab].py", "'['"),
        ("sed -i s/fo*/bar/ src/a.py", "quote it"),
        ("sed -i 's/foo/bar/' src/*", "is a directory"),
    ],
)
async def test_globs_bash_could_read_otherwise_are_declined(
    agent: Agent, line: str, reason: str
) -> None:
    before = _tree(agent.root)
    result = await agent("sed", command=line)
    assert result["simulated"] is False, result
    assert reason in result["reason"], result["reason"]
    assert _tree(agent.root) == before


@pytest.mark.parametrize("pattern", ["?.py", "??.py"])
async def test_question_mark_over_a_non_ascii_name_is_declined(agent: Agent, pattern: str) -> None:
    # In a C-locale shell \u00e9 is two bytes, so ??.py would match it; in UTF-8, ?.py would.
    put(agent.root, "\u00e9.py", b"foo\n")
    result = await agent("sed", command=f"sed -i 's/foo/bar/' {pattern}")
    assert result["simulated"] is False and "locale" in result["reason"], result
    assert (agent.root / "\u00e9.py").read_bytes() == b"foo\n"


async def test_a_glob_over_a_thousand_paths_is_declined(agent: Agent) -> None:
    for number in range(1001):
        put(agent.root, f"many/f{number}.txt", b"foo\n")
    before = _tree(agent.root)
    result = await agent("sed", command="sed -i 's/foo/bar/' many/*.txt")
    assert result["simulated"] is False and "over 1000" in result["reason"], result
    assert _tree(agent.root) == before

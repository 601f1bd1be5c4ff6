"""Real agent hosts, the destructive scenario of issue 39: the scripted model runs
``rm .env.local && git clean -fdx`` through the host's shell in a git project holding
git-ignored files (a secret, build outputs, logs); ``waymark rewind`` of the prompt's turn in
a terminal then restores every byte, the hosts' own configs included."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from test_real_hosts import PROMPT, _scripted_run

from helpers_commands import cli
from helpers_shell import put, repo, tree

pytestmark = pytest.mark.timeout(600)

IGNORED = {
    ".env.local": b"API_KEY=only-copy\r\n",
    "build/app.o": b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)),
    "build/cache/step.json": b'{"step": 3}\n',
    "run.log": b"first run\nsecond run\n",
}


@pytest.mark.parametrize("host", ["claude-code", "gemini-cli"])
def test_rm_and_git_clean_rewind_byte_for_byte(
    workspace: Path,
    tmp_path: Path,
    host: str,
    hook_server: list[Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ws = Path(os.path.realpath(workspace))
    repo(ws, {".gitignore": b".env.local\nbuild/\n*.log\n", "src.py": b"print(1)\n"})
    put(ws, {**IGNORED, "notes.txt": b"untracked notes\n"})
    monkeypatch.setenv("SCRIPTED_STEPS", "destructive")
    # The host's own files (written by init) are in the turn as well: taken after the run.
    results, context = _scripted_run(ws, tmp_path, host)
    assert len(results) == 1, context
    assert not (ws / ".env.local").exists() and not (ws / "build").exists(), context
    assert not (ws / "notes.txt").exists(), context

    turns = cli(ws, "turns")["turns"]
    (opened,) = [t for t in turns if t["label"] == PROMPT.splitlines()[0]]
    assert {".env.local", "build/app.o", "build/cache/step.json", "run.log", "notes.txt"} <= set(
        opened["edited"]
    ), opened
    rewound = cli(ws, "rewind", opened["promptId"])
    assert rewound["ok"] is True and rewound["conflicts"] == [], rewound
    restored = tree(ws)
    for name, data in {**IGNORED, "notes.txt": b"untracked notes\n"}.items():
        assert restored[name] == data, name
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=ws, capture_output=True, text=True, check=True
    )
    assert "src.py" not in status.stdout

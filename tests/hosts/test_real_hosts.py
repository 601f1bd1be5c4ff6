"""Real agent hosts (pinned, installed by scripts/install-hosts.sh) driven by a scripted model.

Codex CLI has no hooks, so its model opens the turn (waymark_snapshot) and runs the sed
through waymark_sed instead of its shell.

Per host: ``waymark init <host>``; one prompt in which the model reads a file with hashes
through the MCP tool, edits a line by its anchor, runs ``sed -i`` through the host's own
shell tool (the hook applies it as a tracked edit), reads both files back and rewinds the
turn with ``waymark_rewind``; then ``waymark turns`` lists the prompt's turn and ``waymark
rewind`` in the workspace restores both files again. Host and model run inside a network
namespace with only loopback (scripted_host.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers_commands import cli

HERE = Path(__file__).resolve().parent
BIN = HERE.parents[1] / ".hosts" / "node_modules" / ".bin"
PROMPT = "Return 2 from f and rename beta\nthen rewind"
A = b"def f():\n    return 1\n"
B = b"alpha\nbeta\n"

# Hosts with hooks (Codex has none).
HOSTS = [("claude-code", "claude"), ("qwen-code", "qwen")]

pytestmark = pytest.mark.timeout(600)


def _require(host_bin: str) -> None:
    if not (BIN / host_bin).exists():
        pytest.fail(f"{BIN / host_bin} is missing: run scripts/install-hosts.sh first")
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        pytest.fail("unshare and ip (util-linux, iproute2) are needed to keep the hosts offline")
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.fail(f"cannot create a network namespace: {probe.stderr.strip()}")


def _offline_qwen_settings(workspace: Path) -> None:
    path = workspace / ".qwen" / "settings.json"
    settings = json.loads(path.read_text())
    settings["privacy"] = {"usageStatisticsEnabled": False}
    settings["telemetry"] = {"enabled": False}
    settings["general"] = {"disableAutoUpdate": True, "disableUpdateNag": True}
    path.write_text(json.dumps(settings, indent=2))


def _scripted_run(
    workspace: Path, tmp_path: Path, host: str, host_bin: str, prompt: str
) -> tuple[list[str], str]:
    """Init the host in ``workspace``, run ``prompt`` once; the tool results and a context."""
    _require(host_bin)
    init = subprocess.run(
        [sys.executable, "-m", "waymark", "init", host],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert init.returncode == 0, init.stderr
    if host == "qwen-code":
        _offline_qwen_settings(workspace)
    home = tmp_path / "home"
    home.mkdir()
    run = subprocess.run(
        [
            "timeout",
            "400",
            "unshare",
            "-n",
            sys.executable,
            str(HERE / "scripted_host.py"),
            host,
            str(workspace),
            prompt,
            str(home),
        ],
        capture_output=True,
        text=True,
        timeout=450,
    )
    assert run.returncode == 0, f"the scripted run failed: {run.stderr[-3000:]}"
    summary = json.loads(run.stdout)
    context = f"host rc {summary['rc']}\nstderr: {summary['stderr'][-2000:]}\n"
    context += f"model: {json.dumps(summary['requests'])[-3000:]}"
    assert summary["rc"] == 0, context
    return summary["results"], context


@pytest.mark.parametrize(("host", "host_bin"), [*HOSTS, ("codex", "codex")])
def test_host_edits_through_waymark_and_both_rewinds_restore_bytes(
    workspace: Path, tmp_path: Path, host: str, host_bin: str
) -> None:
    (workspace / "a.py").write_bytes(A)
    (workspace / "b.txt").write_bytes(B)
    results, context = _scripted_run(workspace, tmp_path, host, host_bin, PROMPT)
    home = tmp_path / "home"
    assert len(results) == 7, context  # the model finished its script
    if host == "codex":
        # No hooks: the model opens the turn and runs sed through waymark_sed.
        _snapshot, read_a, edit_a, sed, reread_a, read_b, rewind_text = results
        assert json.loads(sed)["simulated"] is True
    else:
        read_a, edit_a, shell, reread_a, read_b, _turns, rewind_text = results
        assert "already applied this sed -i" in shell and "+gamma" in shell
    assert "2#" in read_a and "|    return 1" in read_a
    assert json.loads(edit_a)["path"] == "a.py"
    assert reread_a == "     1\tdef f():\n     2\t    return 2\n"
    assert read_b == "     1\talpha\n     2\tgamma\n"
    rewound = json.loads(rewind_text)
    assert sorted(rewound["restored"]) == ["a.py", "b.txt"]
    assert (workspace / "a.py").read_bytes() == A
    assert (workspace / "b.txt").read_bytes() == B

    # The turn the prompt opened, as a terminal in the workspace sees it.
    env = None
    if host == "codex":
        # Codex starts MCP servers with a clean environment (HOME kept, XDG_STATE_HOME not):
        # the terminal finds the same history through the same HOME.
        env = {k: v for k, v in os.environ.items() if k != "XDG_STATE_HOME"}
        env["HOME"] = str(home)
    turns = cli(workspace, "turns", env=env)["turns"]
    opened = [t for t in turns if t["label"] == PROMPT.splitlines()[0]]
    assert len(opened) == 1, turns
    assert sorted(opened[0]["edited"]) == ["a.py", "b.txt"]
    # Undo the model's rewind from the terminal, then rewind the turn from the terminal.
    assert cli(workspace, "rewind", rewound["undoPromptId"], env=env)["ok"] is True
    assert (workspace / "a.py").read_bytes() == b"def f():\n    return 2\n"
    assert (workspace / "b.txt").read_bytes() == b"alpha\ngamma\n"
    again = cli(workspace, "rewind", opened[0]["promptId"], env=env)
    assert again["ok"] is True, again
    assert (workspace / "a.py").read_bytes() == A
    assert (workspace / "b.txt").read_bytes() == B


@pytest.mark.parametrize(("host", "host_bin"), HOSTS)
def test_host_shell_command_changes_are_rewound_byte_exact(
    workspace: Path, tmp_path: Path, host: str, host_bin: str
) -> None:
    """The host's own shell rewrites a.py (python3 -c), deletes b.txt, creates c.txt."""
    sys.path.insert(0, str(HERE))
    from scripted_host import SHELL_PROMPT

    a, b = b"def f():\r\n    return 1\r\n", bytes(range(256))
    (workspace / "a.py").write_bytes(a)
    (workspace / "b.txt").write_bytes(b)
    results, context = _scripted_run(workspace, tmp_path, host, host_bin, SHELL_PROMPT)
    assert len(results) == 3, context  # the model finished its script
    _shell, turns_text, rewind_text = results
    turn = [t for t in json.loads(turns_text)["turns"] if t["label"] == "Shell edits"]
    assert len(turn) == 1 and sorted(turn[0]["edited"]) == ["a.py", "b.txt", "c.txt"], context
    rewound = json.loads(rewind_text)
    assert (rewound["restored"], rewound["deleted"]) == (["a.py", "b.txt"], ["c.txt"]), context
    assert (workspace / "a.py").read_bytes() == a
    assert (workspace / "b.txt").read_bytes() == b
    assert not (workspace / "c.txt").exists()

"""Real agent hosts (pinned, installed by scripts/install-hosts.sh) driven by a scripted model.

Per host, default settings (deferred MCP tools looked up the way real models do):
``waymark init <host>``; one prompt in which the model reads a file with hashes and edits a
line by its anchor over MCP, runs ``sed -i`` through the host's shell (the hook applies it as
a tracked edit), runs a shell command that rewrites, deletes and creates files, creates a
file through the host's own write tool and reads the sed's file back; then ``waymark
rewind`` of the prompt's turn in a terminal restores every byte and deletes what was created.
Host and model run inside a network namespace with only loopback (scripted_host.py).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from scripted_host import HOST_RUNS, cannot_run

from helpers_commands import cli
from helpers_hook_server import call_records, pid_files, wait_server

HERE = Path(__file__).resolve().parent

PROMPT = "Scenario edits\nacross the workspace"
FILES = {
    "a.py": b"def f():\r\n    return 1\r\n",
    "b.txt": b"alpha\nbeta\n",
    "d.txt": bytes(range(256)),
    "e.txt": b"to be deleted\n",
}
HOSTS = ["claude-code", "qwen-code", "codex", "gemini-cli", "copilot-cli"]
# What the model reads after the simulated sed, per host: a command's output (Claude Code
# trims the last newline; Codex adds its exec header), or Qwen Code's refusal text.
SED_DIFF = "--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+gamma\n"
APPLIED = "Waymark applied this sed -i as a tracked edit (waymark_rewind undoes it). "
MODEL_VIEW = {
    "claude-code": APPLIED + "The file changed like this:\n" + SED_DIFF.rstrip("\n"),
    "qwen-code": APPLIED + "The shell did not run it again; do not run it again. "
    "The file changed like this:\n" + SED_DIFF,
    "codex": "Process exited with code 0\n"
    "Original token count: 41\nOutput:\n" + APPLIED + "The file changed like this:\n" + SED_DIFF,
    # Gemini CLI wraps the output, names the process group, and says a hook changed the input.
    "gemini-cli": "<untrusted_context>\nOutput: "
    + APPLIED
    + "The file changed like this:\n"
    + SED_DIFF
    + "Process Group PGID: N\n</untrusted_context>\n\n"
    "[System] Tool input parameters were modified by a hook before execution.",
    "copilot-cli": APPLIED
    + "The file changed like this:\n"
    + SED_DIFF
    + "<shellId: 0 completed with exit code 0>",
}
# Gemini CLI hands the model what an MCP tool returned inside these.
WRAPPED = {"gemini-cli": ("<untrusted_context>\n", "\n</untrusted_context>")}

pytestmark = pytest.mark.timeout(600)


def _require(host_bin: str) -> None:
    reason = cannot_run(host_bin)
    if reason is not None:
        pytest.fail(reason)


def _offline_qwen_settings(workspace: Path) -> None:
    path = workspace / ".qwen" / "settings.json"
    settings = json.loads(path.read_text())
    settings["privacy"] = {"usageStatisticsEnabled": False}
    settings["telemetry"] = {"enabled": False}
    settings["general"] = {"disableAutoUpdate": True, "disableUpdateNag": True}
    path.write_text(json.dumps(settings, indent=2))


def _unwrapped(host: str, text: str) -> str:
    before, after = WRAPPED.get(host, ("", ""))
    assert text.startswith(before) and text.endswith(after), text
    return text[len(before) : len(text) - len(after)]


def _scripted_run(
    workspace: Path, tmp_path: Path, host: str, also: tuple[str, ...] = ()
) -> tuple[list[str], str]:
    """Init the host (and the hosts ``also``) in ``workspace``, run the prompt once; the tool
    results and a context."""
    _require(HOST_RUNS[host].bin)
    for name in (*also, host):
        init = subprocess.run(
            [sys.executable, "-m", "waymark", "init", name],
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
        ["timeout", "400", "unshare", "-n", sys.executable, str(HERE / "scripted_host.py"),
         host, str(workspace), PROMPT, str(home)],
        capture_output=True,
        text=True,
        timeout=450,
    )  # fmt: skip
    assert run.returncode == 0, f"the scripted run failed: {run.stderr[-3000:]}"
    summary = json.loads(run.stdout)
    context = f"host rc {summary['rc']}\nstderr: {summary['stderr'][-2000:]}\n"
    context += f"model: {json.dumps(summary['requests'])[-3000:]}"
    assert summary["rc"] == 0, f"{host} could not run the prompt: {context}"
    return summary["results"], context


@pytest.mark.parametrize("host", HOSTS)
def test_host_scenario_is_tracked_and_rewound_byte_for_byte(
    workspace: Path, tmp_path: Path, host: str, hook_server: list[Path]
) -> None:
    _scenario(workspace, tmp_path, host)
    started = [state for state in hook_server if pid_files(state)]
    assert started, f"{host}: no hook server was started"
    server = wait_server(started[0])
    # The first hook call started it and acted itself; the server acted on later ones.
    records = call_records(started[0])
    if host == "claude-code":
        assert any(record["pid"] == server for record in records), records


def test_copilot_in_a_project_wired_for_claude_code_too_acts_once(
    workspace: Path, tmp_path: Path, hook_server: list[Path]
) -> None:
    """Copilot CLI also runs Claude Code's hooks: they step aside, so one turn, one sed."""
    _scenario(workspace, tmp_path, "copilot-cli", also=("claude-code",))


def _scenario(workspace: Path, tmp_path: Path, host: str, also: tuple[str, ...] = ()) -> None:
    (workspace / ".git").mkdir()
    for name, data in FILES.items():
        (workspace / name).write_bytes(data)
    results, context = _scripted_run(workspace, tmp_path, host, also)
    assert len(results) == 6, context  # the model finished its script
    read_a, edit_a, sed, _shell, _write, read_b = results
    assert "2#" in read_a and "|    return 1" in read_a, context
    assert json.loads(_unwrapped(host, edit_a))["path"] == "a.py"
    # The model-view check: exactly what the model read after the simulated sed.
    assert re.sub(r"PGID: \d+", "PGID: N", sed).endswith(MODEL_VIEW[host]), sed
    assert _unwrapped(host, read_b) == "     1\talpha\n     2\tgamma\n"
    assert (workspace / "b.txt").read_bytes() == b"alpha\ngamma\n"
    assert (workspace / "new.txt").read_bytes() == b"created\n"
    assert (workspace / "f.txt").read_bytes() == b"made\n"

    turns = cli(workspace, "turns")["turns"]
    opened = [t for t in turns if t["label"] == PROMPT.splitlines()[0]]
    assert len(opened) == 1, turns
    assert sorted(opened[0]["edited"]) == ["a.py", "b.txt", "d.txt", "e.txt", "f.txt", "new.txt"]
    rewound = cli(workspace, "rewind", opened[0]["promptId"])
    assert rewound["ok"] is True, rewound
    for name, data in FILES.items():
        assert (workspace / name).read_bytes() == data, name
    assert not (workspace / "f.txt").exists() and not (workspace / "new.txt").exists()

"""opencode and Cline CLI (pinned, scripts/install-hosts.sh) driven by a scripted model.

Per host: ``waymark init <host>``; one prompt in which the model reads a file with hashes
and edits a line by its anchor through Waymark's MCP tools, runs ``sed -i`` through the
host's shell (the hook applies it as a tracked edit; the model reads a success), runs a
shell command that rewrites, deletes and creates files, creates a file through the host's
own write tool, and reads b.txt back. Then ``waymark turns`` lists the prompt's turn and
``waymark rewind`` restores every file byte for byte and deletes the created ones. Host
and model run inside a network namespace with only loopback (chat_hosts.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from scripted_host import cannot_run

from helpers_commands import cli
from helpers_hook_server import pid_files

HERE = Path(__file__).resolve().parent

PROMPT = "Return 2 from f and rename beta"
FILES = {
    "a.py": b"def f():\n    return 1\n",
    "b.txt": b"alpha\nbeta\n",
    "d.txt": b"D1\r\n",
    "e.txt": bytes(range(256)),
}
CREATED = ["f.txt", "new.txt"]
SIMULATED = (
    "Waymark applied this sed -i as a tracked edit (waymark_rewind undoes it). The file "
    "changed like this:\n"
)

pytestmark = pytest.mark.timeout(600)


def _require(host_bin: str) -> None:
    reason = cannot_run(host_bin)
    if reason is not None:
        pytest.fail(reason)


def _run(workspace: Path, tmp_path: Path, host: str) -> dict[str, Any]:
    """Init the host in ``workspace`` (and Cline's per-user server), run the prompt once."""
    _require(host)
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home)}
    args = ["--user"] if host == "cline" else []
    init = subprocess.run(
        [sys.executable, "-m", "waymark", "init", host, *args],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert init.returncode == 0, init.stderr
    run = subprocess.run(
        [
            *("timeout", "400", "unshare", "-n", sys.executable, str(HERE / "chat_hosts.py")),
            *(host, str(workspace), PROMPT, str(home)),
        ],
        capture_output=True,
        text=True,
        timeout=450,
    )
    assert run.returncode == 0, f"the scripted run failed: {run.stderr[-3000:]}"
    summary: dict[str, Any] = json.loads(run.stdout)
    context = f"host rc {summary['rc']}\nsetup: {summary['setup']}\n"
    context += (
        f"stderr: {summary['stderr'][-2000:]}\nmodel: {json.dumps(summary['requests'])[-3000:]}"
    )
    summary["context"] = context
    assert summary["rc"] == 0, context
    assert len(summary["results"]) == 6, context  # the model finished its script
    return summary


@pytest.mark.parametrize("host", ["opencode", "cline"])
def test_host_scenario_is_one_turn_that_rewinds_byte_exact(
    workspace: Path, tmp_path: Path, host: str, hook_server: list[Path]
) -> None:
    for name, data in FILES.items():
        (workspace / name).write_bytes(data)
    summary = _run(workspace, tmp_path, host)
    context = summary["context"]
    read_a, edit_a, sed, _shell, _write, read_b = summary["results"]
    assert "2#" in read_a and "|    return 1" in read_a, context
    assert json.loads(edit_a)["path"] == "a.py", context
    assert read_b == "     1\talpha\n     2\tgamma\n", context

    # What the model read after the simulated sed: a successful command's output.
    diff = "--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+gamma\n"
    if host == "opencode":
        assert sed == SIMULATED + diff, context
    else:
        # Cline shows the model each command with what it printed.
        (ran,) = json.loads(sed)
        assert (ran["result"], ran["success"]) == (SIMULATED + diff, True), context

    assert (workspace / "a.py").read_bytes() == b"def f():\n    return 2\n"
    assert (workspace / "b.txt").read_bytes() == b"alpha\ngamma\n"
    turns = cli(workspace, "turns")["turns"]
    assert len(turns) == 1, turns
    turn = turns[0]
    if host == "opencode":
        # opencode run hands the prompt over in double quotes.
        assert turn["label"] == f'"{PROMPT}"', turn
    else:
        assert turn["label"] == f"cline task {turn['promptId']}", turn
    assert sorted(turn["edited"]) == sorted([*FILES, *CREATED]), (turn, context)
    rewound = cli(workspace, "rewind", turn["promptId"])
    assert rewound["ok"] is True, rewound
    for name, data in FILES.items():
        assert (workspace / name).read_bytes() == data, name
    for name in CREATED:
        assert not (workspace / name).exists(), name
    # Nothing the host started is left running.
    assert not [p for p in summary["stopped"] if Path(f"/proc/{p}").exists()]
    assert any(pid_files(state) for state in hook_server), f"{host}: no hook server was started"

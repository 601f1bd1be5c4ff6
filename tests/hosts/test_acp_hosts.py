"""A real ACP editor → ``waymark acp --`` → a real agent in ACP mode (pinned, installed by
scripts/install-hosts.sh), the model scripted, offline (acp_host.py).

One prompt: the model reads a file with hashes and edits it by anchor through Waymark's MCP
server (which the proxy added to the session), overwrites a file through the agent's own
write tool (which Gemini CLI sends to the editor as ``fs/write_text_file``; opencode writes
it to disk itself) and runs a shell
command that rewrites, deletes and creates files. Then ``/turns`` lists the prompt's turn with
every one of those files, ``/rewind`` restores every byte, neither reaches the agent, and the
editor saw every line the agent sent as the agent sent it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from acp_host import AGENTS
from scripted_host import RUN_TIMEOUT, cannot_run

HERE = Path(__file__).resolve().parent

FILES = {
    "a.py": b"def f():\r\n    return 1\r\n",
    "d.txt": bytes(range(256)),
    "e.txt": b"to be deleted\n",
    "w.txt": b"old\n",
}
OURS = ("available_commands_update", "agent_message_chunk")

pytestmark = pytest.mark.timeout(600)


@pytest.mark.parametrize("agent", list(AGENTS))
def test_acp_agent_through_waymark(agent: str, tmp_path: Path) -> None:
    reason = cannot_run(Path(AGENTS[agent].command[0]).name)
    if reason is not None:
        pytest.fail(reason)
    workspace, home = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir()
    home.mkdir()
    for name, data in FILES.items():
        (workspace / name).write_bytes(data)
    run = subprocess.run(
        ["unshare", "-n", sys.executable, str(HERE / "acp_host.py"), agent, workspace, home],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT * 2 + 120,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout)
    summary = {k: out.get(k) for k in ("error", "rc", "prompt", "stderr", "requests")}
    assert "error" not in out, summary
    assert out["prompt"]["stopReason"] == "end_turn", summary

    # The model read through Waymark's MCP tool (anchors), and the edit by anchor landed.
    assert out["results"][0].count("1#") == 1 and "|def f():" in out["results"][0], summary
    # The agent's write went to the editor, for an agent that writes through it.
    assert out["writes"] == ([str(workspace / "w.txt")] if AGENTS[agent].editor_writes else [])

    [turn] = json.loads(out["turns"]["shown"])["turns"]
    assert turn["label"] == "Change the workspace"
    assert turn["edited"] == ["a.py", "d.txt", "e.txt", "f.txt", "w.txt"]
    rewound = json.loads(out["rewind"]["shown"])
    assert rewound["conflicts"] == [] and rewound["failed"] == []
    for name, data in FILES.items():
        assert (workspace / name).read_bytes() == data, name
    assert not (workspace / "f.txt").exists()

    received = [line[1:] for line in out["agent"] if line.startswith("<")]
    sent = [line[1:] for line in out["agent"] if line.startswith(">")]
    assert not any('"/rewind' in line or '"/turns' in line for line in received)
    [opened] = [json.loads(line) for line in received if '"session/new"' in line]
    assert [s["name"] for s in opened["params"]["mcpServers"]] == ["waymark"]
    # What the agent sent reached the editor byte for byte and in order; what the editor saw
    # besides is Waymark's own: its command lists and its answers to /turns and /rewind.
    untouched = [line for line in sent if "available_commands_update" not in line]
    shown = out["seen"]
    assert [line for line in shown if line in set(untouched)] == untouched
    for line in shown:
        if line in set(sent):
            continue
        message = json.loads(line)
        if "method" in message:
            assert message["params"]["update"]["sessionUpdate"] in OURS, line
        else:
            assert message["result"] == {"stopReason": "end_turn"}, line
    assert out["rc"] == 0

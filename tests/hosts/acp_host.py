"""A real ACP editor (the ``agent-client-protocol`` SDK's client side) → ``waymark acp --`` →
a real agent in ACP mode, against the scripted model, inside a loopback-only namespace.

Run as ``unshare -n python acp_host.py AGENT WORKSPACE HOME``: brings ``lo`` up, serves the
scripted model, starts the agent through the proxy (with acp_tee.py in between, logging what
the agent receives and sends), sends one prompt, then ``/turns`` and ``/rewind``, and prints a
JSON summary: what the editor was shown and sent, what the agent got and sent, what the model
read.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chat_hosts
import scripted_host
from acp import RequestError, text_block
from acp.client.connection import ClientSideConnection
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    FileSystemCapabilities,
    ReadTextFileResponse,
    RequestPermissionResponse,
    WriteTextFileResponse,
)
from scripted_host import HOSTS_BIN, MODEL, RUN_TIMEOUT, SHELL_COMMAND, _anchor, host_env

TEE = Path(__file__).with_name("acp_tee.py")
PROMPT = "Change the workspace\nfor the ACP test"


@dataclass(frozen=True)
class AcpAgent:
    host: str  # the host whose model API and tool names it has (scripted_host, chat_hosts)
    command: list[str]  # its ACP command line
    # Whether its own write tool goes through the editor (fs/write_text_file) or straight to
    # disk (then only the proxy's scan of the folder sees it).
    editor_writes: bool


AGENTS = {
    "gemini": AcpAgent("gemini-cli", [str(HOSTS_BIN / "gemini"), "--acp", "-m", MODEL], True),
    "opencode": AcpAgent("opencode", [str(HOSTS_BIN / "opencode"), "acp"], False),
    # Codex offers apply_patch (which codex-acp sends to the editor) only to models it knows:
    # the scripted model writes through the shell.
    "codex": AcpAgent("codex", [str(HOSTS_BIN / "codex-acp")], False),
}


def acp_script() -> list[scripted_host.Step]:
    """A Waymark read and anchored edit over MCP, a write through the agent's own write tool
    (which reaches the editor as fs/write_text_file), a shell command changing three files."""
    return [
        ("waymark_read", lambda r: {"path": "a.py", "hashes": True}),
        (
            "waymark_edit",
            lambda r: {
                "path": "a.py",
                "operations": [
                    {"op": "replace_line", "hash": _anchor(r[0], 2), "content": "    return 2"}
                ],
            },
        ),
        # An existing file: Gemini CLI takes an editor's "not found" for a failed read.
        ("write", lambda r: {"path": "w.txt", "content": "written by the agent\n"}),
        ("shell", lambda r: {"command": SHELL_COMMAND}),
    ]


class Editor:
    """What an editor does with an agent's requests: shows updates, allows every tool,
    reads and writes the files it is asked to."""

    def __init__(self) -> None:
        self.updates: list[dict[str, Any]] = []
        self.writes: list[str] = []

    async def request_permission(self, options: Any, session_id: str, tool_call: Any, **_: Any):
        allow = next(o for o in options if str(o.kind).startswith("allow"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(option_id=allow.option_id, outcome="selected")
        )

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append(update.model_dump(by_alias=True, exclude_none=True, mode="json"))

    async def write_text_file(self, content: str, path: str, session_id: str, **_: Any):
        Path(path).write_text(content)
        self.writes.append(path)
        return WriteTextFileResponse()

    async def read_text_file(self, path: str, session_id: str, **_: Any):
        try:
            return ReadTextFileResponse(content=Path(path).read_text())
        except FileNotFoundError:
            raise RequestError.resource_not_found(path) from None

    def shown(self, start: int) -> str:
        """The message text shown since update number ``start``."""
        return "".join(
            u["content"].get("text", "")
            for u in self.updates[start:]
            if u.get("sessionUpdate") == "agent_message_chunk"
        )


async def drive(agent: str, workspace: Path, home: Path, env: dict[str, str]) -> dict[str, Any]:
    log = home / "agent-lines.jsonl"
    stderr = (home / "proxy-stderr.txt").open("wb")
    proc = await asyncio.create_subprocess_exec(
        "waymark", "acp", "--", sys.executable, str(TEE), str(log), "--", *AGENTS[agent].command,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=stderr,
        cwd=workspace, env=env, start_new_session=True, limit=64 * 1024 * 1024,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    seen: list[str] = []
    reader = asyncio.StreamReader(limit=64 * 1024 * 1024)

    async def record(source: asyncio.StreamReader) -> None:
        async for line in source:
            seen.append(line.decode("utf-8", "surrogateescape"))
            reader.feed_data(line)
        reader.feed_eof()

    recorder = asyncio.create_task(record(proc.stdout))
    editor = Editor()
    conn = ClientSideConnection(editor, proc.stdin, reader)
    out: dict[str, Any] = {}
    try:
        capabilities = ClientCapabilities(
            fs=FileSystemCapabilities(read_text_file=True, write_text_file=True), terminal=False
        )
        await asyncio.wait_for(
            conn.initialize(protocol_version=1, client_capabilities=capabilities), 60
        )
        session = (
            await asyncio.wait_for(conn.new_session(cwd=str(workspace), mcp_servers=[]), 60)
        ).session_id
        for key, text in (("prompt", PROMPT), ("turns", "/turns"), ("rewind", "/rewind")):
            start = len(editor.updates)
            answer = await asyncio.wait_for(
                conn.prompt(prompt=[text_block(text)], session_id=session), RUN_TIMEOUT
            )
            out[key] = {"stopReason": answer.stop_reason, "shown": editor.shown(start)}
    except Exception as exc:  # the summary says what failed; the test fails on it
        out["error"] = repr(exc)
    finally:
        proc.stdin.close()
        try:
            out["rc"] = await asyncio.wait_for(proc.wait(), 30)
        except TimeoutError:
            os.killpg(proc.pid, signal.SIGKILL)
            out["rc"] = "timeout"
        recorder.cancel()
        stderr.close()
    out["writes"] = editor.writes
    out["updates"] = [u.get("sessionUpdate") for u in editor.updates]
    out["seen"] = seen
    out["agent"] = (
        [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    )
    out["stderr"] = (home / "proxy-stderr.txt").read_text(errors="replace")[-5000:]
    return out


def offline(agent: str, env: dict[str, str], home: Path, workspace: Path, base: str) -> None:
    """The agent's own settings: the scripted model, no telemetry, updates or downloads."""
    if agent == "gemini":
        settings = home / ".gemini" / "settings.json"
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.write_text(
            json.dumps(
                {
                    "privacy": {"usageStatisticsEnabled": False},
                    "telemetry": {"enabled": False},
                    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
                    "security": {"auth": {"selectedType": "gemini-api-key"}},
                }
            )
        )
    elif agent == "codex":
        scripted_host.codex_config(home / ".codex", workspace, base)
    elif agent == "opencode":
        provider = {
            "npm": "@ai-sdk/openai-compatible",
            "options": {"baseURL": f"{base}/v1", "apiKey": "scripted"},
            "models": {MODEL: {"tool_call": True}},
        }
        config = {
            "provider": {"fake": provider},
            "model": f"fake/{MODEL}",
            "small_model": f"fake/{MODEL}",
            "autoupdate": False,
            "share": "disabled",
            "permission": {"edit": "allow", "bash": "allow"},
        }
        env.update(
            OPENCODE_CONFIG_CONTENT=json.dumps(config),
            OPENCODE_DISABLE_AUTOUPDATE="1",
            OPENCODE_DISABLE_MODELS_FETCH="1",
            OPENCODE_DISABLE_SHARE="1",
            OPENCODE_DISABLE_LSP_DOWNLOAD="1",
            OPENCODE_DISABLE_DEFAULT_PLUGINS="1",
            npm_config_offline="true",
            PWD=str(workspace),
        )


def main() -> int:
    agent, workspace, home = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    host = AGENTS[agent].host
    model: scripted_host.Model | chat_hosts.Model
    if host in chat_hosts.CHAT_HOSTS:
        model = chat_hosts.Model(host)
        model.steps = acp_script()
        server = chat_hosts.serve(model)
    else:
        model = scripted_host.Model(host, workspace)
        model.steps = acp_script()
        server = scripted_host.serve(model)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    env = host_env(base, str(home))
    offline(agent, env, home, workspace, base)
    out = asyncio.run(drive(agent, workspace, home, env))
    server.shutdown()
    out["requests"] = model.log
    out["results"] = model.results
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())

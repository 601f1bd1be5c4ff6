"""Run opencode or Cline CLI against a scripted OpenAI-chat model inside ``unshare -n``.

Run as ``unshare -n python chat_hosts.py HOST WORKSPACE PROMPT HOME``: brings ``lo`` up,
serves the model on 127.0.0.1, runs the host once (bounded), stops what the host left
behind, prints a JSON summary. The model, like scripted_host.py's, is stateless per
request: it counts the tool results in the conversation and issues the next call.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

# The scenario and the SSE framing are the other real-host tests' (scripted_host.py).
from scripted_host import HOSTS_BIN, MODEL, _sse, run_bounded, script, start_model_server


@dataclass(frozen=True)
class ChatHost:
    bin: str
    mcp_prefix: str  # how the host names an MCP tool of the server "waymark"
    shell: Callable[[str], tuple[str, dict[str, Any]]]
    write: Callable[[str, str], tuple[str, dict[str, Any]]]


CHAT_HOSTS = {
    "opencode": ChatHost(
        "opencode",
        "waymark_",
        lambda c: ("bash", {"command": c, "description": "run it"}),
        lambda p, c: ("write", {"filePath": p, "content": c}),
    ),
    "cline": ChatHost(
        "cline",
        "waymark__",
        lambda c: ("run_commands", {"commands": [c]}),
        lambda p, c: ("editor", {"path": p, "new_text": c}),
    ),
}


def _read(content: Any) -> str:
    """A tool result as a model reads it; Cline passes MCP results on as their raw JSON."""
    text = content if isinstance(content, str) else ""
    if isinstance(content, list):
        text = "".join(c.get("text", "") for c in content if isinstance(c, dict))
    try:
        raw = json.loads(text)
    except ValueError:
        return text
    if isinstance(raw, dict) and isinstance(raw.get("content"), list):
        return "".join(c.get("text", "") for c in raw["content"] if isinstance(c, dict))
    return text


class Model:
    def __init__(self, host: str) -> None:
        self.host = CHAT_HOSTS[host]
        self.steps = script()
        self.log: list[dict[str, Any]] = []
        self.results: list[str] = []
        self.messages: list[dict[str, Any]] = []  # the last conversation it was sent

    def reply(self, body: dict[str, Any]) -> tuple[bytes, str]:
        tools = {(t.get("function") or {}).get("name") for t in body.get("tools") or []}
        call = None
        if self.host.shell("")[0] in tools:
            self.messages = body.get("messages", [])
            results = [_read(m.get("content")) for m in self.messages if m.get("role") == "tool"]
            if len(results) >= len(self.steps):
                self.results = results
            else:
                name, args = self.steps[len(results)]
                call = self.call(name, args(results))
        if not body.get("stream"):
            message = {"role": "assistant", "content": "ok"}
            reply = {
                "id": "c-side",
                "object": "chat.completion",
                "created": 0,
                "model": MODEL,
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
            return json.dumps(reply).encode(), "application/json"
        if call is None:
            delta: dict[str, Any] = {"role": "assistant", "content": "done"}
            finish = "stop"
        else:
            function = {"name": call[0], "arguments": json.dumps(call[1])}
            tool_call = {"index": 0, "id": f"call_{os.urandom(6).hex()}", "type": "function"}
            delta = {"role": "assistant", "tool_calls": [{**tool_call, "function": function}]}
            finish = "tool_calls"

        def chunk(choices: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
            head = {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": MODEL}
            return {**head, "choices": choices, **extra}

        usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        events: list[tuple[str | None, dict[str, Any] | str]] = [
            (None, chunk([{"index": 0, "delta": delta, "finish_reason": None}])),
            (None, chunk([{"index": 0, "delta": {}, "finish_reason": finish}])),
            (None, chunk([], usage=usage)),
            (None, "[DONE]"),
        ]
        return _sse(events), "text/event-stream"

    def call(self, name: str, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        if name == "shell":
            return self.host.shell(args["command"])
        if name == "write":
            return self.host.write(args["path"], args["content"])
        return self.host.mcp_prefix + name, args


def serve(model: Model) -> ThreadingHTTPServer:
    def route(path: str, raw: bytes) -> tuple[bytes, str]:
        if not path.endswith("/chat/completions"):
            return b"{}", "application/json"
        return model.reply(json.loads(raw or b"{}"))

    return start_model_server(model.log, route)


def opencode_config(workspace: Path, base: str) -> None:
    """The scripted model as opencode's only provider, added to what init wrote."""
    path = workspace / "opencode.json"
    config = json.loads(path.read_text())
    provider = {
        "npm": "@ai-sdk/openai-compatible",
        "options": {"baseURL": f"{base}/v1", "apiKey": "scripted"},
        "models": {MODEL: {"tool_call": True}},
    }
    config.update(
        provider={"fake": provider},
        model=f"fake/{MODEL}",
        small_model=f"fake/{MODEL}",
        autoupdate=False,
        share="disabled",
        permission={"edit": "allow", "bash": "allow"},
    )
    path.write_text(json.dumps(config, indent=2))


def left_behind(workspace: Path) -> list[int]:
    """PIDs of Cline's hub daemons started for this workspace (they outlive the run)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        words = [a.decode(errors="replace") for a in args]
        if "--cline-hub-daemon" in words and str(workspace) in words:
            pids.append(int(entry.name))
    return pids


def stop(pids: list[int]) -> None:
    """SIGTERM, then SIGKILL what is still there after 5 s (the hub daemon ignores TERM)."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            continue
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and Path(f"/proc/{pid}").exists():
            time.sleep(0.1)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def main() -> int:
    host, workspace, prompt, home = sys.argv[1], Path(sys.argv[2]), sys.argv[3], sys.argv[4]
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    model = Model(host)
    server = serve(model)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    binary = str(HOSTS_BIN / CHAT_HOSTS[host].bin)
    env = {**os.environ, "HOME": home, "PWD": str(workspace)}
    setup = ""
    if host == "opencode":
        opencode_config(workspace, base)
        env.update(
            OPENCODE_DISABLE_AUTOUPDATE="1",
            OPENCODE_DISABLE_MODELS_FETCH="1",
            OPENCODE_DISABLE_SHARE="1",
            OPENCODE_DISABLE_LSP_DOWNLOAD="1",
            OPENCODE_DISABLE_DEFAULT_PLUGINS="1",
            # Without it opencode retries installing its plugin package for about a minute.
            npm_config_offline="true",
        )
        command = [binary, "run", prompt, "--model", f"fake/{MODEL}", "--format", "json"]
    else:
        auth = [binary, "auth", "-p", "openai-compatible", "-k", "x", "-m", MODEL, "-b"]
        done = subprocess.run(
            [*auth, f"{base}/v1"], env=env, capture_output=True, text=True, timeout=60
        )
        setup = done.stdout + done.stderr
        command = [binary, "--json", "-c", str(workspace), prompt]
    rc, out, err = run_bounded(command, workspace, env)
    daemons = left_behind(workspace)
    stop(daemons)
    server.shutdown()
    summary = {
        "rc": rc,
        "setup": setup[-2000:],
        "stdout": out[-20000:],
        "stderr": err[-5000:],
        "requests": model.log,
        "results": model.results,
        "messages": model.messages,
        "stopped": daemons,
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())

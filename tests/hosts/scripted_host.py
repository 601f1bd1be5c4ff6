"""Run one real agent host against a scripted model, inside a loopback-only network namespace.

Run as ``unshare -n python scripted_host.py HOST WORKSPACE PROMPT``: brings ``lo`` up, serves
the scripted model on 127.0.0.1, runs the host once (bounded), prints a JSON summary. The
model is stateless per request: it counts the tool results in the conversation it is sent and
issues the next scripted call, then finishes with text. Side requests get plain text.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HOSTS_BIN = Path(__file__).resolve().parents[2] / ".hosts" / "node_modules" / ".bin"
MODEL = "scripted-model"
RUN_TIMEOUT = 240

Step = tuple[str, Callable[[list[str]], dict[str, Any]]]


def _anchor(text: str, line: int) -> str:
    match = re.search(rf"^{line}#([0-9a-z.]+)~?\|", text, re.M)
    if not match:
        raise ValueError(f"no anchor for line {line} in {text!r}")
    return match.group(1)


# The scenario's shell command: rewrites d.txt with python3 -c, deletes e.txt, creates f.txt.
SHELL_COMMAND = (
    "python3 -c \"open('d.txt','w').write('D2\\n')\" && rm e.txt && printf 'made\\n' > f.txt"
)
SED_COMMAND = "sed -i 's/beta/gamma/' b.txt"


def script() -> list[Step]:
    """Read with hashes, edit by anchor, sed in the shell, a shell command changing three
    files, a create through the host's own write tool, then read b.txt back."""
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
        ("shell", lambda r: {"command": SED_COMMAND}),
        ("shell", lambda r: {"command": SHELL_COMMAND}),
        ("write", lambda r: {"path": "new.txt", "content": "created\n"}),
        ("waymark_read", lambda r: {"path": "b.txt"}),
    ]


# What the model runs in the destructive scenario (issue 39): a git-ignored secret and every
# file git does not hold, gone.
DESTRUCTIVE_COMMAND = "rm .env.local && git clean -fdx"


def destructive_script() -> list[Step]:
    return [("shell", lambda r: {"command": DESTRUCTIVE_COMMAND})]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(_text(c.get("text", c.get("content", ""))) for c in content)
    return ""


def _blocks(text: str) -> str:
    """An MCP result's text where codex-acp hands the model its content blocks as JSON."""
    if text.strip().startswith("[{"):
        try:
            return _text(json.loads(text))
        except ValueError:
            return text
    return text


def cannot_run(host_bin: str) -> str | None:
    """Why a host cannot run offline here (the test then fails with it), or None."""
    if not (HOSTS_BIN / host_bin).exists():
        return f"{HOSTS_BIN / host_bin} is missing: run scripts/install-hosts.sh first"
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return "unshare and ip (util-linux, iproute2) are needed to keep the hosts offline"
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"cannot create a network namespace: {probe.stderr.strip()}"
    return None


@dataclass(frozen=True)
class HostRun:
    """How one real host is driven: its binary, what its model sees, its offline set-up."""

    bin: str
    shell: str  # the shell tool as the model calls it
    write: tuple[str, str, str]  # the write tool, its path and content arguments
    # How the model looks deferred MCP tools up before calling them: "claude" (one
    # ToolSearch select of all), "qwen" (tool_search per tool, then calls through
    # tool_call), "" (tools offered up front).
    lookup: str = ""
    mcp_prefix: str = "mcp__waymark__"
    absolute_paths: bool = False  # the write tool takes only absolute paths
    shell_arg: str = "command"


HOST_RUNS = {
    "claude-code": HostRun("claude", "Bash", ("Write", "file_path", "content"), lookup="claude"),
    "qwen-code": HostRun(
        "qwen",
        "run_shell_command",
        ("write_file", "file_path", "content"),
        lookup="qwen",
        absolute_paths=True,
    ),
    # Codex offers apply_patch only to models it knows, and to those it defers MCP tools
    # behind its own tool_search: the scripted model (an unknown name) writes through the
    # shell, so the write step runs there.
    "codex": HostRun("codex", "exec_command", ("", "", ""), mcp_prefix="", shell_arg="cmd"),
    "gemini-cli": HostRun(
        "gemini",
        "run_shell_command",
        ("write_file", "file_path", "content"),
        mcp_prefix="mcp_waymark_",
    ),
    "copilot-cli": HostRun(
        "copilot",
        "bash",
        ("create", "path", "file_text"),
        mcp_prefix="waymark-",
        absolute_paths=True,
    ),
}


class Model:
    """The scripted model: from the conversation it is sent, the next call or the end."""

    def __init__(self, host: str, workspace: Path) -> None:
        self.run = HOST_RUNS[host]
        self.workspace = workspace
        # SCRIPTED_STEPS picks another scenario than the default one.
        chosen = os.environ.get("SCRIPTED_STEPS")
        self.steps = destructive_script() if chosen == "destructive" else script()
        self.log: list[dict[str, Any]] = []
        self.results: list[str] = []  # what the model had read when it finished
        wanted = sorted({name for name, _ in self.steps if name.startswith("waymark_")})
        lookups: list[Step] = []
        if self.run.lookup == "claude":
            names = ",".join(f"mcp__waymark__{n}" for n in wanted)
            lookups = [("ToolSearch", lambda r: {"query": f"select:{names}"})]
        elif self.run.lookup == "qwen":
            lookups = [
                ("tool_search", lambda r, n=n: {"query": f"select:mcp__waymark__{n}"})
                for n in wanted
            ]
        self.steps = lookups + self.steps
        self.skip = len(lookups)

    def next_call(self, results: list[str]) -> tuple[str, dict[str, Any]] | None:
        if len(results) >= len(self.steps):
            self.results = results[self.skip :]
            return None
        name, args = self.steps[len(results)]
        return self.call(name, args(results[self.skip :]))

    def call(self, name: str, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The tool name and arguments as this host's model sends them."""
        if name == "shell":
            return self.run.shell, {self.run.shell_arg: args["command"]}
        if name == "write":
            tool, path, content = self.run.write
            if not tool:
                quoted = args["content"].replace("\n", "\\n")
                return self.call("shell", {"command": f"printf '{quoted}' > {args['path']}"})
            if not path:  # a patch tool
                body = "".join("+" + line + "\n" for line in args["content"].splitlines())
                patch = f"*** Begin Patch\n*** Add File: {args['path']}\n{body}*** End Patch\n"
                return tool, {"input": patch}
            target = str(self.workspace / args["path"]) if self.run.absolute_paths else args["path"]
            return tool, {path: target, content: args["content"]}
        if not name.startswith("waymark_"):
            return name, args
        if self.run.lookup == "qwen":
            return "tool_call", {"name": f"mcp__waymark__{name}", "arguments": args}
        return self.run.mcp_prefix + name, args


def _sse(events: list[tuple[str | None, dict[str, Any] | str]]) -> bytes:
    out = []
    for event, data in events:
        body = data if isinstance(data, str) else json.dumps(data)
        out.append((f"event: {event}\n" if event else "") + f"data: {body}\n\n")
    return "".join(out).encode()


def anthropic_reply(model: Model, body: dict[str, Any]) -> tuple[bytes, str]:
    tools = {t.get("name") for t in body.get("tools") or []}
    call = None
    if "Bash" in tools:
        results = [
            _text(block.get("content"))
            for message in body.get("messages", [])
            if isinstance(message.get("content"), list)
            for block in message["content"]
            if block.get("type") == "tool_result"
        ]
        call = model.next_call(results)
    if not body.get("stream"):
        message = {
            "id": "msg_side",
            "type": "message",
            "role": "assistant",
            "model": MODEL,
            "content": [{"type": "text", "text": "ok"}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
        return json.dumps(message).encode(), "application/json"
    start = {
        "type": "message_start",
        "message": {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": MODEL,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        },
    }
    if call is None:
        block: dict[str, Any] = {"type": "text", "text": ""}
        delta: dict[str, Any] = {"type": "text_delta", "text": "done"}
        stop = "end_turn"
    else:
        name, args = call
        block = {
            "type": "tool_use",
            "id": f"toolu_{os.urandom(6).hex()}",
            "name": name,
            "input": {},
        }
        delta = {"type": "input_json_delta", "partial_json": json.dumps(args)}
        stop = "tool_use"
    return (
        _sse(
            [
                ("message_start", start),
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": 0, "content_block": block},
                ),
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": 0, "delta": delta},
                ),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                (
                    "message_delta",
                    {
                        "type": "message_delta",
                        "delta": {"stop_reason": stop, "stop_sequence": None},
                        "usage": {"output_tokens": 1},
                    },
                ),
                ("message_stop", {"type": "message_stop"}),
            ]
        ),
        "text/event-stream",
    )


def openai_reply(model: Model, body: dict[str, Any]) -> tuple[bytes, str]:
    tools = {(t.get("function") or {}).get("name") for t in body.get("tools") or []}
    call = None
    if model.run.shell in tools:
        results = [
            _text(m.get("content")) for m in body.get("messages", []) if m.get("role") == "tool"
        ]
        call = model.next_call(results)
    if not body.get("stream"):
        reply = {
            "id": "c-side",
            "object": "chat.completion",
            "created": 0,
            "model": MODEL,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "ok"},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
        return json.dumps(reply).encode(), "application/json"

    def chunk(choices: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        return {
            "id": "c1",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": MODEL,
            "choices": choices,
            **extra,
        }

    if call is None:
        delta: dict[str, Any] = {"role": "assistant", "content": "done"}
        finish = "stop"
    else:
        name, args = call
        delta = {
            "role": "assistant",
            "tool_calls": [
                {
                    "index": 0,
                    "id": f"call_{os.urandom(6).hex()}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(args)},
                }
            ],
        }
        finish = "tool_calls"
    return (
        _sse(
            [
                (None, chunk([{"index": 0, "delta": delta, "finish_reason": None}])),
                (None, chunk([{"index": 0, "delta": {}, "finish_reason": finish}])),
                (
                    None,
                    chunk(
                        [], usage={"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
                    ),
                ),
                (None, "[DONE]"),
            ]
        ),
        "text/event-stream",
    )


def responses_reply(model: Model, body: dict[str, Any]) -> tuple[bytes, str]:
    """OpenAI Responses (Codex): MCP tools arrive in one ``namespace`` tool."""
    names = {t.get("name") for t in body.get("tools") or []}
    call = None
    if "mcp__waymark" in names:
        # Codex prefixes what a tool returned with "Wall time: …\nOutput:".
        results = [
            _blocks(re.sub(r"\AWall time: [^\n]*\nOutput:", "", _text(item.get("output"))))
            for item in body.get("input", [])
            if item.get("type") == "function_call_output"
        ]
        call = model.next_call(results)
    if call is None:
        item: dict[str, Any] = {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "done", "annotations": []}],
        }
    else:
        name, args = call
        item = {
            "type": "function_call",
            "id": f"fc_{os.urandom(6).hex()}",
            "call_id": f"call_{os.urandom(6).hex()}",
            "name": name,
            "arguments": json.dumps(args),
            "status": "completed",
        }
        if name.startswith("waymark_"):
            item["namespace"] = "mcp__waymark"
    usage = {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}
    response = {"id": "resp_1", "object": "response", "status": "completed", "model": MODEL}
    return (
        _sse(
            [
                ("response.created", {"type": "response.created", "response": response}),
                (
                    "response.output_item.added",
                    {"type": "response.output_item.added", "output_index": 0, "item": item},
                ),
                (
                    "response.output_item.done",
                    {"type": "response.output_item.done", "output_index": 0, "item": item},
                ),
                (
                    "response.completed",
                    {
                        "type": "response.completed",
                        "response": {**response, "output": [item], "usage": usage},
                    },
                ),
            ]
        ),
        "text/event-stream",
    )


def gemini_reply(model: Model, body: dict[str, Any], stream: bool) -> tuple[bytes, str]:
    """Gemini ``streamGenerateContent?alt=sse`` (one event is a whole reply) and
    ``generateContent``: tool results come back as ``functionResponse`` parts."""
    names = {
        d.get("name") for t in body.get("tools") or [] for d in t.get("functionDeclarations") or []
    }
    call = None
    if model.run.shell in names:
        responses = [
            part["functionResponse"].get("response") or {}
            for content in body.get("contents", [])
            for part in content.get("parts") or []
            if "functionResponse" in part
        ]
        call = model.next_call([_text(r.get("output", r.get("error"))) for r in responses])
    if call is None:
        part: dict[str, Any] = {"text": "done"}
    else:
        name, args = call
        part = {"functionCall": {"name": name, "args": args}}
    reply = {
        "candidates": [
            {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
        "modelVersion": MODEL,
    }
    if not stream:
        return json.dumps(reply).encode(), "application/json"
    return _sse([(None, reply)]), "text/event-stream"


def gemini_config(workspace: Path) -> None:
    """Gemini's project settings made offline: no usage statistics, telemetry or updates, and
    the API-key auth (a base URL alone selects a "gateway" auth that -p refuses)."""
    path = workspace / ".gemini" / "settings.json"
    settings = json.loads(path.read_text())
    settings["privacy"] = {"usageStatisticsEnabled": False}
    settings["telemetry"] = {"enabled": False}
    settings["general"] = {"enableAutoUpdate": False, "enableAutoUpdateNotification": False}
    settings["security"] = {"auth": {"selectedType": "gemini-api-key"}}
    path.write_text(json.dumps(settings, indent=2))


def codex_config(codex_home: Path, workspace: Path, base: str) -> None:
    """Codex's own config (CODEX_HOME, outside the workspace): the scripted model, nothing
    else, and the workspace trusted so Codex reads its .codex/config.toml and hooks.json."""
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(f"""model = "{MODEL}"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[features]
plugins = false
remote_plugin = false

[analytics]
enabled = false

[feedback]
enabled = false

[model_providers.fake]
name = "fake"
base_url = "{base}/v1"
env_key = "FAKE_MODEL_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[projects.{json.dumps(str(workspace))}]
trust_level = "trusted"
""")


def run_bounded(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[int | str, str, str]:
    """Run a host to its end or RUN_TIMEOUT, its whole process group killed then: (exit code
    or "timeout", stdout, stderr)."""
    proc = subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=RUN_TIMEOUT)
        return proc.returncode, out, err
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return "timeout", out, err


def start_model_server(
    log: list[dict[str, Any]], route: Callable[[str, bytes], tuple[bytes, str]]
) -> ThreadingHTTPServer:
    """A scripted model on 127.0.0.1: ``route(path, body)`` answers each POST; every answer
    (or the script's own failure) is logged for the test's summary."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _answer(self, data: bytes, kind: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._answer(b"{}", "application/json")

        do_HEAD = do_GET

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                data, kind = route(self.path, raw)
                log.append({"path": self.path, "reply": data.decode()[:2000]})
            except Exception as exc:  # report the script's own failure in the summary
                log.append({"path": self.path, "error": repr(exc)})
                data, kind = b'{"error": "scripted model failed"}', "application/json"
            self._answer(data, kind)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def serve(model: Model) -> ThreadingHTTPServer:
    def route(path: str, raw: bytes) -> tuple[bytes, str]:
        body = json.loads(raw or b"{}")
        if path.startswith("/v1/messages"):
            return anthropic_reply(model, body)
        if path.startswith("/v1/chat/completions"):
            return openai_reply(model, body)
        if path.startswith("/v1/responses"):
            return responses_reply(model, body)
        if ":streamGenerateContent" in path:
            return gemini_reply(model, body, stream=True)
        if ":generateContent" in path:
            return gemini_reply(model, body, stream=False)
        return b"{}", "application/json"

    return start_model_server(model.log, route)


def host_command(host: str, prompt: str, workspace: Path, home: str) -> list[str]:
    binary = str(HOSTS_BIN / HOST_RUNS[host].bin)
    if host == "claude-code":
        return [
            binary, "-p", prompt, "--mcp-config", str(workspace / ".mcp.json"),
            "--strict-mcp-config", "--allowedTools", "mcp__waymark,Bash,Write,ToolSearch",
            "--output-format", "json", "--verbose",
        ]  # fmt: skip
    if host == "codex":
        return [
            binary, "exec", "--skip-git-repo-check", "--dangerously-bypass-hook-trust",
            "--json", prompt,
        ]  # fmt: skip
    if host == "gemini-cli":
        return [
            binary, "-p", prompt, "--output-format", "json", "--approval-mode", "yolo",
            "-m", MODEL,
        ]  # fmt: skip
    if host == "copilot-cli":
        return [
            binary, "-p", prompt, "--allow-all-tools", "--trust-folder", "--no-auto-update",
            "--disable-client-telemetry", "--no-color", "--output-format", "json",
            "--log-dir", os.path.join(home, "copilot-logs"),
        ]  # fmt: skip
    return [binary, "-p", prompt, "--auth-type", "openai", "--yolo", "--output-format", "json"]


def host_env(base: str, home: str) -> dict[str, str]:
    """The environment every host runs in: its model at ``base``, its home at ``home``."""
    env = {
        **os.environ,
        "HOME": home,
        "ANTHROPIC_BASE_URL": base,
        "ANTHROPIC_API_KEY": "scripted",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "MCP_CONNECTION_NONBLOCKING": "0",
        "OPENAI_BASE_URL": base + "/v1",
        "OPENAI_API_KEY": "scripted",
        "OPENAI_MODEL": MODEL,
        "CODEX_HOME": os.path.join(home, ".codex"),
        "FAKE_MODEL_KEY": "scripted",
        "GOOGLE_GEMINI_BASE_URL": base,
        "GEMINI_API_KEY": "scripted",
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
        "GEMINI_SANDBOX": "false",
        "COPILOT_OFFLINE": "true",
        "COPILOT_PROVIDER_BASE_URL": base + "/v1",
        "COPILOT_PROVIDER_TYPE": "openai",
        "COPILOT_PROVIDER_API_KEY": "scripted",
        "COPILOT_MODEL": MODEL,
        "COPILOT_AUTO_UPDATE": "false",
    }
    # Under GitHub Actions Gemini CLI passes its hooks and MCP servers only an allow-list of
    # variables (no XDG_STATE_HOME, PYTHONPATH): the run is the same locally and in CI.
    for variable in ("GITHUB_SHA", "SURFACE"):
        env.pop(variable, None)
    return env


def main() -> int:
    host, workspace, prompt, home = sys.argv[1], Path(sys.argv[2]), sys.argv[3], sys.argv[4]
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    model = Model(host, workspace)
    server = serve(model)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    env = host_env(base, home)
    if host == "codex":
        codex_config(Path(home) / ".codex", workspace, base)
    if host == "gemini-cli":
        gemini_config(workspace)
    rc, out, err = run_bounded(host_command(host, prompt, workspace, home), workspace, env)
    server.shutdown()
    print(
        json.dumps(
            {
                "rc": rc,
                "stdout": out[-20000:],
                "stderr": err[-5000:],
                "requests": model.log,
                "results": model.results,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

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
import subprocess
import sys
import threading
from collections.abc import Callable
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


def _turn_of(prompt: str, turns_text: str) -> str:
    label = prompt.splitlines()[0]
    turns = json.loads(turns_text)["turns"]
    return next(t["promptId"] for t in reversed(turns) if t["label"] == label)


# The shell scenario: one command rewrites a file with python3 -c, deletes one, creates one.
SHELL_PROMPT = "Shell edits\nthen rewind"
SHELL_COMMAND = (
    "python3 -c \"open('a.py','w').write('def f():\\n    return 3\\n')\" && rm b.txt && "
    "printf 'made\\n' > c.txt"
)


def script(host: str, prompt: str) -> list[Step]:
    """The scenario: read with hashes, edit by anchor, sed in the shell, read back, rewind.

    Codex has no hooks: its model opens the turn itself and runs sed through waymark_sed.
    With :data:`SHELL_PROMPT`: a plain shell command changes three files, then rewind.
    """
    if prompt == SHELL_PROMPT:
        return [
            ("shell", lambda r: {"command": SHELL_COMMAND}),
            ("waymark_turns", lambda r: {}),
            ("waymark_rewind", lambda r: {"promptId": _turn_of(prompt, r[1])}),
        ]
    if host == "codex":
        label = prompt.splitlines()[0]
        return [
            ("waymark_snapshot", lambda r: {"promptId": "codex-turn", "label": label}),
            ("waymark_read", lambda r: {"path": "a.py", "hashes": True}),
            (
                "waymark_edit",
                lambda r: {
                    "path": "a.py",
                    "operations": [
                        {"op": "replace_line", "hash": _anchor(r[1], 2), "content": "    return 2"}
                    ],
                },
            ),
            ("waymark_sed", lambda r: {"command": "sed -i 's/beta/gamma/' b.txt"}),
            ("waymark_read", lambda r: {"path": "a.py"}),
            ("waymark_read", lambda r: {"path": "b.txt"}),
            ("waymark_rewind", lambda r: {"promptId": "codex-turn"}),
        ]
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
        ("shell", lambda r: {"command": "sed -i 's/beta/gamma/' b.txt"}),
        ("waymark_read", lambda r: {"path": "a.py"}),
        ("waymark_read", lambda r: {"path": "b.txt"}),
        ("waymark_turns", lambda r: {}),
        ("waymark_rewind", lambda r: {"promptId": _turn_of(prompt, r[5])}),
    ]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(_text(c.get("text", c.get("content", ""))) for c in content)
    return ""


class Model:
    def __init__(self, host: str, prompt: str) -> None:
        self.host = host
        self.steps = script(host, prompt)
        self.log: list[dict[str, Any]] = []
        self.results: list[str] = []  # what the model had read when it finished
        if host == "qwen-code":
            # Qwen Code offers MCP tools only after the model looked them up.
            wanted = sorted({name for name, _ in self.steps if name != "shell"})
            lookups: list[Step] = [
                ("tool_search", lambda r, n=n: {"query": f"select:mcp__waymark__{n}"})
                for n in wanted
            ]
            self.steps = lookups + self.steps
            self.skip = len(lookups)
        else:
            self.skip = 0

    def next_call(self, results: list[str]) -> tuple[str, dict[str, Any]] | None:
        if len(results) >= len(self.steps):
            self.results = results[self.skip :]
            return None
        name, args = self.steps[len(results)]
        ours = results[self.skip :]
        return name, args(ours)

    def tool_name(self, name: str) -> str:
        if name == "shell":
            return {"claude-code": "Bash", "qwen-code": "run_shell_command"}[self.host]
        if name == "tool_search":
            return name
        return f"mcp__waymark__{name}"


def _sse(events: list[tuple[str | None, dict[str, Any] | str]]) -> bytes:
    out = []
    for event, data in events:
        body = data if isinstance(data, str) else json.dumps(data)
        out.append((f"event: {event}\n" if event else "") + f"data: {body}\n\n")
    return "".join(out).encode()


def anthropic_reply(model: Model, body: dict[str, Any]) -> tuple[bytes, str]:
    tools = {t.get("name") for t in body.get("tools") or []}
    call = None
    if "mcp__waymark__waymark_read" in tools:
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
            "name": model.tool_name(name),
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
    if tools & {"tool_search", "run_shell_command"}:
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
                    "function": {"name": model.tool_name(name), "arguments": json.dumps(args)},
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
            re.sub(r"\AWall time: [^\n]*\nOutput:", "", _text(item.get("output")))
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
            "namespace": "mcp__waymark",
            "arguments": json.dumps(args),
            "status": "completed",
        }
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


def codex_config(workspace: Path, base: str) -> None:
    """Point Codex (CODEX_HOME=workspace/.codex) at the scripted model, nothing else."""
    path = workspace / ".codex" / "config.toml"
    offline = f"""model = "{MODEL}"
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

"""
    path.write_text(offline + path.read_text())


def serve(model: Model) -> ThreadingHTTPServer:
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
                body = json.loads(raw or b"{}")
                if self.path.startswith("/v1/messages"):
                    data, kind = anthropic_reply(model, body)
                elif self.path.startswith("/v1/chat/completions"):
                    data, kind = openai_reply(model, body)
                elif self.path.startswith("/v1/responses"):
                    data, kind = responses_reply(model, body)
                else:
                    data, kind = b"{}", "application/json"
                model.log.append({"path": self.path, "reply": data.decode()[:2000]})
            except Exception as exc:  # report the script's own failure in the summary
                model.log.append({"path": self.path, "error": repr(exc)})
                data, kind = b'{"error": "scripted model failed"}', "application/json"
            self._answer(data, kind)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def host_command(host: str, prompt: str, workspace: Path) -> list[str]:
    if host == "claude-code":
        tools = ",".join(
            f"mcp__waymark__{n}"
            for n in ("waymark_read", "waymark_edit", "waymark_turns", "waymark_rewind")
        )
        return [
            str(HOSTS_BIN / "claude"),
            "-p",
            prompt,
            "--mcp-config",
            str(workspace / ".mcp.json"),
            "--strict-mcp-config",
            "--allowedTools",
            tools + ",Bash",
            "--output-format",
            "json",
            "--verbose",
        ]
    if host == "codex":
        return [str(HOSTS_BIN / "codex"), "exec", "--skip-git-repo-check", "--json", prompt]
    return [
        str(HOSTS_BIN / "qwen"),
        "-p",
        prompt,
        "--auth-type",
        "openai",
        "--yolo",
        "--output-format",
        "json",
    ]


def main() -> int:
    host, workspace, prompt, home = sys.argv[1], Path(sys.argv[2]), sys.argv[3], sys.argv[4]
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    model = Model(host, prompt)
    server = serve(model)
    base = f"http://127.0.0.1:{server.server_address[1]}"
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
        "CODEX_HOME": str(workspace / ".codex"),
        "FAKE_MODEL_KEY": "scripted",
    }
    if host == "codex":
        codex_config(workspace, base)
    proc = subprocess.Popen(
        host_command(host, prompt, workspace),
        cwd=workspace,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=RUN_TIMEOUT)
        rc: int | str = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        out, err = proc.communicate()
        rc = "timeout"
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

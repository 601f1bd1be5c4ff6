"""A tiny ACP agent for the proxy's protocol tests: what it does is named in each prompt.

Every line it receives is logged as it came (``FAKE_ACP_LOG``, one JSON string per line:
``"<" + line`` received, ``">" + line`` sent), so a test compares both ends byte for byte.
A prompt is one or more words-commands separated by ``;``:

- ``write PATH TEXT``: ``fs/write_text_file`` through the editor, waiting for its answer
- ``disk PATH TEXT`` / ``rm PATH``: change the disk itself, as a shell would
- ``big N``: one ``agent_message_chunk`` of N bytes
- ``garbage``: a line that is not JSON; ``broken``: a broken answer to the prompt
- ``wait``: until ``session/cancel``, then the prompt ends ``cancelled``
- ``die``: exit 3 at once; ``child``: start a long sleep in its process group
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

LOG = os.environ.get("FAKE_ACP_LOG")
lock = threading.Lock()
answers: dict[int, threading.Event] = {}
results: dict[int, Any] = {}
cancelled: dict[str, threading.Event] = {}
sessions: dict[str, str] = {}
next_id = [1000]


def log(line: bytes) -> None:
    if LOG:
        with lock, open(LOG, "a", encoding="utf-8") as out:
            out.write(json.dumps(line.decode("utf-8", "replace")) + "\n")


def send_raw(line: bytes) -> None:
    with lock:
        sys.stdout.buffer.write(line + b"\n")
        sys.stdout.buffer.flush()
    log(b">" + line)


def send(message: dict[str, Any]) -> None:
    send_raw(json.dumps(message).encode())


def request(method: str, params: dict[str, Any]) -> Any:
    with lock:
        next_id[0] += 1
        number = next_id[0]
        answers[number] = threading.Event()
    send({"jsonrpc": "2.0", "id": number, "method": method, "params": params})
    answers[number].wait(30)
    return results.get(number)


def chunk(session: str, text: str) -> None:
    update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
    send(
        {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": session, "update": update},
        }
    )


def prompt(message_id: Any, params: dict[str, Any]) -> None:
    session = params["sessionId"]
    cwd = Path(sessions[session])
    text = "".join(b.get("text", "") for b in params["prompt"] if b.get("type") == "text")
    stop = "end_turn"
    for step in text.split(";"):
        words = step.strip().split(" ", 2)
        verb = words[0]
        if verb == "write":
            request(
                "fs/write_text_file",
                {"sessionId": session, "path": str(cwd / words[1]), "content": words[2]},
            )
        elif verb == "disk":
            (cwd / words[1]).write_text(words[2])
        elif verb == "rm":
            (cwd / words[1]).unlink()
        elif verb == "big":
            chunk(session, "x" * int(words[1]))
        elif verb == "garbage":
            send_raw(b"this is not json {")
        elif verb == "broken":
            send_raw(b'{"jsonrpc":"2.0","id":' + json.dumps(message_id).encode() + b',"result":')
            return
        elif verb == "wait":
            cancelled[session].wait(30)
            stop = "cancelled"
        elif verb == "die":
            os._exit(3)
        elif verb == "child":
            subprocess.Popen(["sleep", "300"])
        else:
            chunk(session, f"echo: {step.strip()}")
    send({"jsonrpc": "2.0", "id": message_id, "result": {"stopReason": stop}})


def handle(message: dict[str, Any]) -> None:
    method = message.get("method")
    message_id = message.get("id")
    params = message.get("params") or {}
    if method is None:
        results[message_id] = message.get("result", message.get("error"))
        answers[message_id].set()
        return
    if method == "initialize":
        result = {"protocolVersion": 1, "agentCapabilities": {"loadSession": True}}
        send({"jsonrpc": "2.0", "id": message_id, "result": result})
    elif method == "session/new":
        session = f"sess-{len(sessions) + 1}"
        sessions[session] = params["cwd"]
        cancelled[session] = threading.Event()
        send({"jsonrpc": "2.0", "id": message_id, "result": {"sessionId": session}})
        update = {
            "sessionUpdate": "available_commands_update",
            "availableCommands": [{"name": "compact", "description": "agent's own"}],
        }
        send(
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {"sessionId": session, "update": update},
            }
        )
    elif method == "session/prompt":
        threading.Thread(target=prompt, args=(message_id, params), daemon=True).start()
    elif method == "session/cancel":
        cancelled[params["sessionId"]].set()
    elif message_id is not None:
        send({"jsonrpc": "2.0", "id": message_id, "result": {"echo": method}})


def main() -> None:
    for line in sys.stdin.buffer:
        line = line.rstrip(b"\n")
        log(b"<" + line)
        try:
            message = json.loads(line)
        except ValueError:
            continue
        handle(message)


if __name__ == "__main__":
    main()

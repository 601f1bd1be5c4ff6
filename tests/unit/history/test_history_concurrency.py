"""Two processes, one workspace: a rewind never overwrites another process's acknowledged edit."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from waymark.commands.context import CommandContext, load_options
from waymark.commands.registry import execute

EDITOR = """
import asyncio, json, sys
from pathlib import Path
from waymark.commands.context import CommandContext, load_options
from waymark.commands.registry import execute
opts, _ = load_options({"historyDir": sys.argv[2], "sessionId": "editor"})
ctx = CommandContext.create([Path(sys.argv[1])], opts)
async def run(n):
    await execute(ctx, "waymark.read", {"path": "f.txt"})
    return await execute(ctx, "waymark.write", {"path": "f.txt", "content": f"editor {n}\\n"})
print("ready", flush=True)
for line in sys.stdin:
    n = int(line)
    result = asyncio.run(run(n))
    print(json.dumps({"ok": result["ok"], "error": result.get("error")}), flush=True)
"""


def _answer(stream: Any, into: list[dict[str, Any]]) -> None:
    into.append(json.loads(stream.readline()))


def test_rewind_never_overwrites_another_process_s_acknowledged_edit(
    workspace: Path, tmp_path: Path
) -> None:
    (workspace / "f.txt").write_bytes(b"start\n")
    opts, _ = load_options({"historyDir": str(tmp_path / "h"), "sessionId": "agent"})
    agent = CommandContext.create([workspace], opts)

    async def call(command: str, **params: Any) -> dict[str, Any]:
        return await execute(agent, f"waymark.{command}", params)

    editor = subprocess.Popen(
        [sys.executable, "-c", EDITOR, str(workspace), str(tmp_path / "h")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert editor.stdin is not None and editor.stdout is not None
    lost = acknowledged = 0
    errors: list[str] = []
    try:
        assert editor.stdout.readline() == "ready\n"
        for n in range(150):
            asyncio.run(call("snapshot", promptId=f"t{n}"))
            asyncio.run(call("read", path="f.txt"))
            asyncio.run(call("write", path="f.txt", content=f"agent {n}\n"))
            answer: list[dict[str, Any]] = []
            # The editor's edit and the agent's rewind race.
            editor.stdin.write(f"{n}\n")
            editor.stdin.flush()
            reader = threading.Thread(target=_answer, args=(editor.stdout, answer))
            reader.start()
            if n % 5 == 0:
                # Every fifth round the editor's edit lands first for certain, so the rewind's
                # conflict path runs on any machine, however the race falls.
                reader.join(30)
            else:
                # Staggered starts so that the rewind meets the edit at each stage of it.
                time.sleep((n % 5 - 1) * 0.002)
            rewound = asyncio.run(call("rewind", promptId=f"t{n}"))
            reader.join(30)
            assert rewound["ok"], rewound
            if answer[0]["ok"]:
                acknowledged += 1
                if (workspace / "f.txt").read_bytes() != f"editor {n}\n".encode():
                    lost += 1
            else:
                errors.append(str(answer[0]["error"]))
    finally:
        editor.stdin.close()
        editor.wait(30)
    assert lost == 0 and acknowledged >= 30, (lost, acknowledged, errors)

"""A session's history survives the server: resume by ``sessionId`` in a new process."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient


async def _session(root: Path, history: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    client = LanguageClient("resume-test", "1")
    await client.start_io(sys.executable, "-m", "waymark", "serve")
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
            initialization_options={"sessionId": "resumed", "historyDir": str(history)},
        )
    )
    client.initialized(types.InitializedParams())
    results = []
    for command, params in calls:
        results.append(
            await client.workspace_execute_command_async(
                types.ExecuteCommandParams(command=command, arguments=[params])
            )
        )
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return results


async def test_rewind_after_resume_in_a_new_process(tmp_path: Path) -> None:
    root, history = tmp_path / "ws", tmp_path / "history"
    root.mkdir()
    path = root / "a.txt"
    path.write_bytes(b"original\n")
    await _session(
        root,
        history,
        [
            ("waymark.snapshot", {"promptId": "t1", "label": "before"}),
            ("waymark.read", {"path": "a.txt"}),
            ("waymark.replace", {"path": "a.txt", "old_string": "original", "new_string": "new"}),
        ],
    )
    assert path.read_bytes() == b"new\n"
    turns, rewound = await _session(
        root, history, [("waymark.turns", {}), ("waymark.rewind", {"promptId": "t1"})]
    )
    assert [t["promptId"] for t in turns["turns"]] == ["t1"]
    assert rewound["restored"] == ["a.txt"], rewound
    assert path.read_bytes() == b"original\n"

"""``waymark demo``: one realistic agent session against a throwaway workspace, over real LSP.

It starts ``waymark-ls`` as a child process, talks to it as an LSP client and prints every
request and what came back: read with anchors, an anchored edit, a stale edit refused, a
simulated ``sed -i``, a declined one, a turn boundary, a previewed edit the user changes
before approving, diff stats, a rewind, and the undo of that rewind. Every step checks the
claim its title makes; a claim that does not hold is printed and the demo exits 1, so the
demo cannot drift from what Waymark does.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

FILES = {
    "app/config.py": '''"""Settings for the example service."""

TIMEOUT = 30
RETRIES = 3
BASE_URL = "https://example.invalid/api"
''',
    "app/client.py": """from app import config


def fetch(session, path):
    url = config.BASE_URL + path
    return session.get(url, timeout=config.TIMEOUT)


def fetch_all(session, paths):
    return [fetch(session, p) for p in paths]
""",
    "README.md": "# Example service\n\nCalls the API with a 30 s timeout.\n",
}

BOLD, DIM, RED, GREEN, RESET = "\033[1m", "\033[2m", "\033[31m", "\033[32m", "\033[0m"


def _colour(enabled: bool) -> None:
    if not enabled:
        global BOLD, DIM, RED, GREEN, RESET
        BOLD = DIM = RED = GREEN = RESET = ""


def _show_diff(diff: str) -> None:
    for line in diff.splitlines():
        colour = GREEN if line.startswith("+") else RED if line.startswith("-") else DIM
        print(f"    {colour}{line}{RESET}")


class Demo:
    def __init__(self, client: LanguageClient, root: Path) -> None:
        self.client = client
        self.root = root
        self.failed: list[str] = []

    def check(self, holds: bool, claim: str) -> None:
        """Say whether the step did what its title claims; a false claim fails the demo."""
        if not holds:
            self.failed.append(claim)
            print(f"  {RED}✗ claim failed: {claim}{RESET}")

    async def call(self, title: str, command: str, params: dict[str, Any]) -> dict[str, Any]:
        print(f"\n{BOLD}▸ {title}{RESET}")
        print(f"  {DIM}→ {command} {json.dumps(params)[:160]}{RESET}")
        result = await self.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command, arguments=[params])
        )
        assert isinstance(result, dict), result
        if not result.get("ok"):
            print(f"  ← {RED}{result['error']}{RESET}: {result['message']}")
        return result

    def file(self, path: str) -> str:
        return (self.root / path).read_text(encoding="utf-8")


async def _session(root: Path, history: Path) -> list[str]:
    """The session; what it claimed and did not hold."""
    client = LanguageClient("waymark-demo", "1")

    @client.feature("waymark/didRewind")  # type: ignore[untyped-decorator]  # pygls is untyped here
    def did_rewind(params: Any) -> None:
        print(f"  ← notification waymark/didRewind: promptId={params.promptId}")

    await client.start_io(sys.executable, "-m", "waymark", "serve")
    demo = Demo(client, root)
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="demo")],
            initialization_options={"sessionId": "demo", "historyDir": str(history)},
        )
    )
    client.initialized(types.InitializedParams())
    try:
        await _turns(demo)
    finally:
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()  # type: ignore[no-untyped-call]
    return demo.failed


async def _turns(demo: Demo) -> None:
    originals = {path: demo.file(path) for path in FILES}
    opened = await demo.call(
        "Turn 1 begins", "waymark.snapshot", {"promptId": "turn-1", "label": "Rename TIMEOUT"}
    )
    demo.check(opened.get("ok") is True, "turn 1 opens")

    read = await demo.call(
        "Read with anchors", "waymark.read", {"path": "app/config.py", "hashes": True}
    )
    print("  ← " + read["text"].rstrip().replace("\n", "\n    "))
    timeout = next(line for line in read["lines"] if line["text"].startswith("TIMEOUT"))

    edit = await demo.call(
        "Anchored edit: replace the TIMEOUT line by its hash",
        "waymark.edit",
        {
            "path": "app/config.py",
            "operations": [
                {"op": "replace_line", "hash": timeout["hash"], "content": "TIMEOUT_SECONDS = 30"}
            ],
        },
    )
    _show_diff(edit.get("diff", ""))
    demo.check("TIMEOUT_SECONDS = 30\n" in demo.file("app/config.py"), "the anchored edit lands")

    stale = await demo.call(
        "The same anchor again: the line is gone, so the edit is refused",
        "waymark.edit",
        {
            "path": "app/config.py",
            "operations": [
                {"op": "replace_line", "hash": timeout["hash"], "content": "TIMEOUT = 60"}
            ],
        },
    )
    demo.check(stale.get("ok") is False, "the stale anchor is refused")
    demo.check("TIMEOUT = 60" not in demo.file("app/config.py"), "the refused edit wrote nothing")

    sed = await demo.call(
        "A shell edit the agent wanted to run, simulated exactly",
        "waymark.sed",
        {"command": "sed -i 's/config\\.TIMEOUT/config.TIMEOUT_SECONDS/g' app/client.py"},
    )
    print(f"  ← simulated: {sed.get('simulated')}")
    _show_diff(sed.get("diff", ""))
    demo.check(
        sed.get("simulated") is True and "config.TIMEOUT_SECONDS" in demo.file("app/client.py"),
        "the sed line is simulated and written",
    )

    before = {path: demo.file(path) for path in FILES}
    declined = await demo.call(
        "One it cannot prove equal to GNU sed: declined, the agent runs its shell",
        "waymark.sed",
        {"command": "find app -name '*.py' | xargs sed -i 's/30/60/'"},
    )
    print(f"  ← simulated: {declined.get('simulated')}, reason: {declined.get('reason')}")
    demo.check(
        declined.get("simulated") is False
        and all(demo.file(path) == text for path, text in before.items()),
        "the line is declined and nothing is written",
    )

    await demo.call(
        "Turn 2 begins", "waymark.snapshot", {"promptId": "turn-2", "label": "Document it"}
    )
    await demo.call("Read README", "waymark.read", {"path": "README.md"})
    proposal = await demo.call(
        "Replace with preview: nothing is written yet",
        "waymark.replace",
        {
            "path": "README.md",
            "old_string": "with a 30 s timeout",
            "new_string": "with a timeout of TIMEOUT_SECONDS",
            "preview": True,
        },
    )
    _show_diff(proposal.get("diff", ""))
    edited = proposal["files"][0]["newContent"].replace(
        "TIMEOUT_SECONDS", "`TIMEOUT_SECONDS` (30 s)"
    )
    applied = await demo.call(
        "The user edits the proposal and approves it",
        "waymark.applyPending",
        {"token": proposal["token"], "newContent": edited},
    )
    _show_diff(applied.get("diff", ""))
    demo.check(
        "`TIMEOUT_SECONDS` (30 s)" in demo.file("README.md"), "the user's version is written"
    )

    turns = await demo.call("Turns so far", "waymark.turns", {})
    for turn in turns.get("turns", []):
        print(f"  ← {turn['promptId']}: {turn.get('label')} ({len(turn.get('files', []))} files)")
    stats = await demo.call(
        "What rewinding to turn 1 would undo", "waymark.diffStats", {"promptId": "turn-1"}
    )
    for item in stats.get("files", []):
        print(f"  ← {item['path']}: {item['status']} +{item['insertions']} −{item['deletions']}")

    rewind = await demo.call(
        "Rewind to the start of turn 1", "waymark.rewind", {"promptId": "turn-1"}
    )
    print(f"  ← restored {rewind.get('restored')}, conflicts {rewind.get('conflicts')}")
    same = all(demo.file(path) == text for path, text in originals.items())
    mark = GREEN if same else RED
    print(f"  ← every file is byte-identical to the start of turn 1: {mark}{same}{RESET}")
    demo.check(same and not rewind.get("conflicts"), "the rewind restores turn 1's start")

    undo = await demo.call(
        "Undo the rewind", "waymark.rewind", {"promptId": rewind.get("undoPromptId", "")}
    )
    print(f"  ← restored {undo.get('restored')}")
    print(f"  ← config.py now: {demo.file('app/config.py').splitlines()[2]!r}")
    demo.check(
        demo.file("app/config.py").splitlines()[2] == "TIMEOUT_SECONDS = 30",
        "the undo brings the edits back",
    )


def main(*, keep: bool = False) -> int:
    _colour(sys.stdout.isatty())
    started = time.monotonic()
    base = Path(tempfile.mkdtemp(prefix="waymark-demo-"))
    root, history = base / "workspace", base / "history"
    for path, text in FILES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    print(f"{BOLD}Waymark demo{RESET}: workspace {root}")
    try:
        failed = asyncio.run(_session(root, history))
    finally:
        if keep:
            print(f"\nkept {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)
    print(f"\n{BOLD}done in {time.monotonic() - started:.1f} s{RESET}")
    if failed:
        print(f"{RED}{len(failed)} claims failed: {'; '.join(failed)}{RESET}")
        return 1
    return 0

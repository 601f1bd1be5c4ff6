"""The proxy: the editor's stdio on one side, the agent's on the other, one JSON-RPC message
per line each way.

A line Waymark has no reason to touch goes on as the bytes it came as. Waymark touches:
``session/new`` and its kin (its MCP server added), ``session/prompt`` (a turn around it, or
the answer to one of its own slash commands), ``fs/write_text_file`` (the file backed up
before the editor writes it), and ``available_commands_update`` (its commands merged in).
Each side's lines are handled in the order they came, so a ``session/cancel`` never
overtakes the prompt it cancels.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from waymark.doors.acp import slash
from waymark.doors.acp.turns import Prompt, Recorder, has_waymark, mcp_server, warn
from waymark.doors.acp.wire import (
    INTERNAL_ERROR,
    PARSE_ERROR,
    Asked,
    Received,
    Side,
    dump,
    error,
    key,
    params_of,
    parse,
    prompt_text,
    session_update,
    skip_line,
)
from waymark.doors.wire_guard import MAX_MESSAGE_BYTES, request_id

# Methods that open (or reopen) a session in a folder, with the MCP servers it gets.
SESSION_OPENERS = ("session/new", "session/load", "session/resume", "session/fork")
# How long an agent has to exit after SIGTERM before its process group is killed.
TERM_GRACE_S = 3.0


class Proxy:
    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        self.recorder = Recorder()
        # One thread drives the history: scans and backups never block the streams' loop,
        # and never run two at a time.
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="waymark-acp")
        # Requests each side sent that the other has not answered: id -> (method, params).
        self.from_editor: dict[Any, Asked] = {}
        self.from_agent: dict[Any, Asked] = {}
        self.prompts: dict[Any, Prompt] = {}
        self.agent_commands: dict[str, list[Any]] = {}
        self.editor = Side(None, "editor")
        self.agent = Side(None, "agent")

    async def work(self, call: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self.worker, call, *args)

    async def run(self, stdin: asyncio.StreamReader, stdout: asyncio.StreamWriter) -> int:
        self.editor = Side(stdout, "editor")
        try:
            proc = await asyncio.create_subprocess_exec(
                *self.argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                limit=MAX_MESSAGE_BYTES,
                start_new_session=True,
            )
        except OSError as exc:
            warn(f"cannot start the agent {self.argv[0]}: {exc.strerror or exc}")
            return 127
        assert proc.stdin is not None and proc.stdout is not None
        self.agent = Side(proc.stdin, "agent")
        from_editor = asyncio.create_task(self.pump(stdin, self.on_editor_line))
        from_agent = asyncio.create_task(self.pump(proc.stdout, self.on_agent_line))
        # An editor ending us by a signal is gone as surely as one that closed our stdin.
        stopped = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            loop.add_signal_handler(sig, stopped.set)
        stop = asyncio.create_task(stopped.wait())
        done, _ = await asyncio.wait(
            {from_editor, from_agent, stop}, return_when=asyncio.FIRST_COMPLETED
        )
        try:
            if from_agent not in done:
                proc.stdin.close()
                from_agent.cancel()
                from_editor.cancel()
                await _end(proc)
                status = 0
            else:
                try:
                    status = await asyncio.wait_for(proc.wait(), TERM_GRACE_S)
                except TimeoutError:
                    # Its output closed, the agent lives on: it can answer nothing more.
                    await _end(proc)
                    status = proc.returncode if proc.returncode is not None else 1
                await self.agent_gone(status)
                from_editor.cancel()
                # A signal's death as a shell reports it (128 + N); a clean exit is still a
                # failure here: the editor lost its agent.
                status = 128 - status if status < 0 else status or 1
            stop.cancel()
            for prompt in list(self.prompts.values()):
                await self.work(self.recorder.end_prompt, prompt)
        finally:
            await self.work(self.recorder.close)
            self.worker.shutdown(wait=True)
        return status

    async def pump(self, reader: asyncio.StreamReader, handle: Any) -> None:
        while True:
            try:
                line = await reader.readuntil(b"\n")
            except asyncio.IncompleteReadError as exc:
                line = exc.partial
                if not line.strip():
                    return
            except asyncio.LimitOverrunError as exc:
                await skip_line(reader, exc.consumed)
                warn(f"dropped a message over {MAX_MESSAGE_BYTES} bytes")
                continue
            if line.strip():
                await handle(line)

    async def agent_gone(self, status: int) -> None:
        """Answer every request the agent left unanswered, in words the editor can show."""
        how = f"exited with status {status}" if status >= 0 else f"was killed by signal {-status}"
        text = (
            f"The agent ({os.path.basename(self.argv[0])}) {how} before answering; "
            "start a new agent session."
        )
        warn(f"the agent {how}")
        for asked in list(self.from_editor.values()):
            await self.editor.message(error(asked.id, INTERNAL_ERROR, text))
        self.from_editor.clear()

    # ------------------------------------------------------------ editor -> agent

    async def on_editor_line(self, line: bytes) -> None:
        got = await self.received(line, self.editor)
        if got is None:
            return
        message, method, message_id, params = got
        if isinstance(method, str):
            if message_id is not None:
                self.from_editor[key(message_id)] = Asked(message_id, method, params)
            if method in SESSION_OPENERS and isinstance(params.get("cwd"), str):
                line = self.with_server(message, params) or line
                if isinstance(params.get("sessionId"), str):
                    self.recorder.sessions[params["sessionId"]] = params["cwd"]
            elif (
                method == "session/prompt"
                and message_id is not None
                and await self.prompted(message_id, params)
            ):
                return
        elif message_id is not None:
            await self.editor_answered(message_id, message)
        await self.agent.send(line)

    def with_server(self, message: dict[str, Any], params: dict[str, Any]) -> bytes | None:
        """The session opener with Waymark's MCP server added (None: it has one)."""
        servers = params.get("mcpServers")
        servers = servers if isinstance(servers, list) else []
        if has_waymark(servers):
            return None
        params = {**params, "mcpServers": [*servers, mcp_server(params["cwd"])]}
        return dump({**message, "params": params})

    async def prompted(self, message_id: Any, params: dict[str, Any]) -> bool:
        """Open the prompt's turn, or answer our own command; whether it was ours."""
        session = params.get("sessionId")
        if not isinstance(session, str):
            return False
        command = slash.slash_command(params.get("prompt"))
        if command is not None:
            self.from_editor.pop(key(message_id), None)
            text = await self.work(slash.answer, self.recorder, session, *command)
            chunk = {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": text},
            }
            await self.editor.message(session_update(session, chunk))
            await self.editor.message(
                {"jsonrpc": "2.0", "id": message_id, "result": {"stopReason": "end_turn"}}
            )
            return True
        prompt = await self.work(
            self.recorder.begin_prompt, session, prompt_text(params.get("prompt"))
        )
        if prompt is not None:
            self.prompts[key(message_id)] = prompt
        return False

    async def editor_answered(self, message_id: Any, message: dict[str, Any]) -> None:
        asked = self.from_agent.pop(key(message_id), None)
        if asked is None:
            return
        method, params = asked.method, asked.params
        if method == "fs/write_text_file" and "error" not in message:
            await self.work(self.recorder.after_write, params["sessionId"], params["path"])

    # ------------------------------------------------------------ agent -> editor

    async def on_agent_line(self, line: bytes) -> None:
        got = await self.received(line, self.agent)
        if got is None:
            return
        message, method, message_id, params = got
        if isinstance(method, str):
            if method == "fs/write_text_file" and message_id is not None:
                await self.before_write(message_id, params)
            elif method == "session/update":
                line = self.with_commands(message, params) or line
        elif message_id is not None:
            await self.agent_answered(message_id, message)
            asked = self.from_editor.pop(key(message_id), None)
            await self.editor.send(line)
            if asked is not None and asked.method in SESSION_OPENERS:
                await self.advertise(asked.params, message)
            return
        await self.editor.send(line)

    async def before_write(self, message_id: Any, params: dict[str, Any]) -> None:
        session, path = params.get("sessionId"), params.get("path")
        tracked = (
            isinstance(session, str)
            and isinstance(path, str)
            and await self.work(self.recorder.before_write, session, path)
        )
        if tracked:
            self.from_agent[key(message_id)] = Asked(message_id, "fs/write_text_file", params)

    def with_commands(self, message: dict[str, Any], params: dict[str, Any]) -> bytes | None:
        update = params.get("update")
        if not isinstance(update, dict):
            return None
        if update.get("sessionUpdate") != "available_commands_update":
            return None
        theirs = update.get("availableCommands")
        theirs = theirs if isinstance(theirs, list) else []
        session = params.get("sessionId")
        if isinstance(session, str):
            self.agent_commands[session] = theirs
        update = {**update, "availableCommands": slash.merged(theirs)}
        return dump({**message, "params": {**params, "update": update}})

    async def agent_answered(self, message_id: Any, message: dict[str, Any]) -> None:
        prompt = self.prompts.pop(key(message_id), None)
        if prompt is not None:
            # Recorded before the editor hears the prompt ended: a /rewind sent next finds it.
            await self.work(self.recorder.end_prompt, prompt)

    async def advertise(self, params: dict[str, Any], answer: dict[str, Any]) -> None:
        """After a session opens: learn its folder, and tell the editor our commands."""
        result = answer.get("result")
        session = params.get("sessionId")
        if isinstance(result, dict) and isinstance(result.get("sessionId"), str):
            session = result["sessionId"]
        if not isinstance(session, str) or "error" in answer:
            return
        self.recorder.sessions[session] = params["cwd"]
        commands = slash.merged(self.agent_commands.get(session, []))
        update = {"sessionUpdate": "available_commands_update", "availableCommands": commands}
        await self.editor.message(session_update(session, update))

    # ------------------------------------------------------------ either side

    async def received(self, line: bytes, sender: Side) -> Received | None:
        """The message ``line`` carries; None once a malformed line is dealt with."""
        message = parse(line)
        if message is None:
            await self.malformed(line, sender)
            return None
        return Received(message, message.get("method"), message.get("id"), params_of(message))

    async def malformed(self, line: bytes, sender: Side) -> None:
        """A line that is not a JSON-RPC message: answered where it carried an id, else
        dropped; the streams go on either way."""
        name = sender.name
        found = request_id(line)
        shown = line[:80].decode("utf-8", "replace").rstrip()
        if isinstance(found, int | str):
            warn(f"the {name} sent a line that is not JSON-RPC (answered): {shown}")
            if sender is self.agent and key(found) in self.from_editor:
                # The agent's broken answer to the editor's request: the editor must hear.
                self.from_editor.pop(key(found))
                await self.agent_answered(found, {})
                text = "The agent answered with a line that is not JSON; retry, or restart it."
                await self.editor.message(error(found, INTERNAL_ERROR, text))
                return
            text = "Waymark could not parse the message; send one JSON-RPC message per line."
            await sender.message(error(found, PARSE_ERROR, text))
            return
        warn(f"dropped a line from the {name} that is not JSON-RPC: {shown}")


async def _end(proc: asyncio.subprocess.Process) -> None:
    """SIGTERM the agent's process group, SIGKILL it if it lingers; reap the agent."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        try:
            await asyncio.wait_for(proc.wait(), TERM_GRACE_S)
            if sig == signal.SIGTERM:
                # The group may hold more than the agent (its MCP servers, shells).
                _kill_group(proc.pid)
            return
        except TimeoutError:
            continue


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGKILL)


async def serve(argv: list[str]) -> int:
    loop = asyncio.get_running_loop()
    stdin = asyncio.StreamReader(limit=MAX_MESSAGE_BYTES)
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdin), sys.stdin.buffer)
        transport, protocol = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, sys.stdout.buffer
        )
    except ValueError:
        warn("stdin or stdout is a regular file: an ACP editor starts waymark acp over pipes")
        return 2
    stdout = asyncio.StreamWriter(transport, protocol, None, loop)
    return await Proxy(argv).run(stdin, stdout)

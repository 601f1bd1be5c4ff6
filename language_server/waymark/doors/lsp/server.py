"""``waymark-ls``: the LSP face of the command handlers (pygls 2.x).

Every ``waymark.*`` command arrives as ``workspace/executeCommand`` with one JSON object and
runs through :func:`waymark.commands.registry.execute`, the same entry point the CLI uses.
This module only adds what needs a client: open documents as the source of truth, approval
through ``workspace/applyEdit``, a preview's ``WorkspaceEdit`` (:mod:`waymark.doors.lsp.edits`),
notifications, and logging to the client's output.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, BinaryIO, ClassVar, cast

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidRequest
from pygls.io_ import StdoutWriter, run_async
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from waymark import __version__
from waymark.commands.context import CommandContext, OpenDocument, load_options
from waymark.commands.registry import COMMANDS, execute
from waymark.doors.bridge.listener import Listener, Review, start_bridge
from waymark.doors.entry import open_context
from waymark.doors.lsp.converter import lazy_converter
from waymark.doors.lsp.edits import WorkspaceEdits, lsp_result
from waymark.doors.lsp.reader import MessageReader
from waymark.doors.lsp.watcher import Watcher
from waymark.doors.lsp.wire import Protocol, WholeMessages, raw_arguments
from waymark.doors.wire_guard import REJECTED_METHOD, NestingGuard
from waymark.engine.diff import EditTarget
from waymark.engine.errors import InternalError, InvalidParams
from waymark.store import spare
from waymark.store.files import sweep_temp_files

log = logging.getLogger("waymark")
# pygls' message loop logs a message it could not handle here, as pygls' own start_io has it.
pygls_log = logging.getLogger("pygls.server")


class WaymarkServer(LanguageServer):
    def __init__(self) -> None:
        # One converter for the wire and the approval's edits (each costs ~2 ms to build).
        self.converter = lazy_converter()
        super().__init__(
            "waymark-ls",
            __version__,
            protocol_cls=Protocol,
            converter_factory=lambda: self.converter,
        )
        self.context: CommandContext | None = None
        # Replaced at initialize, once the client's capabilities are known.
        self.edits = WorkspaceEdits(annotations=False)
        self._paths: dict[str, Path] = {}
        self.review: Review | None = None
        self.bridge = Listener(lambda: self.context, __version__, lambda: self.review)
        self.watcher: Watcher | None = None
        self.watch = True

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """pygls' ``start_io``, reading each message in one trip to a worker thread
        (:mod:`waymark.doors.lsp.reader`)."""
        self._stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        reader = MessageReader(stdin or sys.stdin.buffer, self.thread_pool)
        try:
            asyncio.run(
                run_async(
                    stop_event=self._stop_event,
                    reader=reader,
                    protocol=self.protocol,
                    logger=pygls_log,
                    error_handler=self.report_server_error,
                )
            )
        except BrokenPipeError:
            pygls_log.error("Connection to the client is lost! Shutting down the server.")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()  # type: ignore[no-untyped-call]  # pygls is untyped here

    def real_path(self, uri: str) -> Path | None:
        if uri not in self._paths:
            fs_path = to_fs_path(uri)
            if fs_path is None:
                return None
            self._paths[uri] = Path(os.path.realpath(fs_path))
        return self._paths[uri]

    def folder_paths(self) -> list[Path]:
        paths = []
        for folder in self.workspace.folders.values():
            fs_path = to_fs_path(folder.uri)
            if fs_path:
                paths.append(Path(fs_path))
        if not paths and self.workspace.root_path:
            paths.append(Path(self.workspace.root_path))
        return paths


class BufferDocuments:
    """Open documents, looked up by the real path of their file."""

    def __init__(self, server: WaymarkServer) -> None:
        self.server = server

    def get(self, path: Path) -> OpenDocument | None:
        # A snapshot: handlers run on worker threads while the loop applies didChange.
        for uri, document in list(self.server.workspace.text_documents.items()):
            if self.server.real_path(uri) == path:
                return OpenDocument(uri, document.source, document.version or 0)
        return None


class ClientEditor:
    """Approval and notifications through the connected client."""

    def __init__(self, server: WaymarkServer) -> None:
        self.server = server

    async def apply_edit(self, targets: Sequence[EditTarget], label: str, *, confirm: bool) -> bool:
        edit = self.server.edits.build(targets, label, confirm=confirm)
        workspace_edit = self.server.converter.structure(edit, types.WorkspaceEdit)
        response = await self.server.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(edit=workspace_edit, label=label)
        )
        if not response.applied:
            log.info("client declined %s: %s", label, response.failure_reason)
        return bool(response.applied)

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.server.protocol.notify(method, params)


class ClientReview:
    """The extension's diff-editor review of a bridged proposal (``waymark/review``)."""

    def __init__(self, server: WaymarkServer) -> None:
        self.server = server

    async def __call__(self, preview: dict[str, Any], origin: str) -> dict[str, Any]:
        answer = await self.server.protocol.send_request_async(
            "waymark/review", {"preview": preview, "origin": origin}
        )
        answer = _json(answer)
        return answer if isinstance(answer, dict) else {"kind": "rejected"}


def _json(value: Any) -> Any:
    """pygls hands an untyped response over as namedtuples; the listener wants plain JSON."""
    if hasattr(value, "_asdict"):
        value = value._asdict()
    if isinstance(value, dict):
        return {k: _json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json(v) for v in value]
    return value


class ClientLogHandler(logging.Handler):
    """Server logs go to the client's output (``window/logMessage``), never to stdout."""

    LEVELS: ClassVar[dict[int, types.MessageType]] = {
        logging.ERROR: types.MessageType.Error,
        logging.WARNING: types.MessageType.Warning,
        logging.INFO: types.MessageType.Info,
    }

    def __init__(self, server: WaymarkServer) -> None:
        super().__init__(logging.INFO)
        self.server = server

    def emit(self, record: logging.LogRecord) -> None:
        try:
            kind = self.LEVELS.get(record.levelno, types.MessageType.Log)
            self.server.window_log_message(
                types.LogMessageParams(type=kind, message=self.format(record))
            )
        except Exception:  # logging must never break a request
            self.handleError(record)


def create_server() -> WaymarkServer:
    server = WaymarkServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: WaymarkServer, params: types.InitializeParams) -> None:
        options, warnings = load_options(params.initialization_options)
        capabilities = params.capabilities.workspace
        ls.edits = WorkspaceEdits(
            annotations=bool(
                capabilities
                and capabilities.workspace_edit
                and capabilities.workspace_edit.change_annotation_support
            )
        )
        ls.context = open_context(
            ls.folder_paths(), options, editor=ClientEditor(ls), documents=BufferDocuments(ls)
        )
        ls.watch = options.watch
        experimental = params.capabilities.experimental
        if isinstance(experimental, dict) and experimental.get("waymarkReview") is True:
            ls.review = ClientReview(ls)
        for warning in warnings + ls.context.warnings:
            log.warning("%s", warning)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: WaymarkServer, params: types.InitializedParams) -> None:
        for folder in ls.folder_paths():
            removed = await asyncio.to_thread(sweep_temp_files, folder)
            if removed:
                log.info("swept %d temp files left by a crashed write", len(removed))
        await start_bridge(ls.bridge, ls.folder_paths())
        if ls.watch and ls.context is not None and ls.context.history is not None:
            ls.watcher = Watcher(ls.context)
            ls.watcher.start()

    @server.feature(types.TEXT_DOCUMENT_WILL_SAVE)
    async def will_save(ls: WaymarkServer, params: types.WillSaveTextDocumentParams) -> None:
        await _announce(ls, params.text_document.uri, exact=False)

    @server.feature(types.TEXT_DOCUMENT_WILL_SAVE_WAIT_UNTIL)
    async def will_save_wait_until(
        ls: WaymarkServer, params: types.WillSaveTextDocumentParams
    ) -> list[types.TextEdit]:
        # The client waits for this answer before it writes: the pre-image is exact.
        await _announce(ls, params.text_document.uri, exact=True)
        return []

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def folders_changed(ls: WaymarkServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        if ls.context is not None:
            ls.context.workspace.set_folders(ls.folder_paths())
        ls.bridge.set_folders(ls.folder_paths())

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: WaymarkServer, params: None) -> None:
        ls.bridge.stop()
        if ls.watcher is not None:
            ls.watcher.stop()

    @server.feature(REJECTED_METHOD)
    def rejected(ls: WaymarkServer, params: Any) -> None:
        reason = getattr(params, "reason", None) or "the message was refused"
        raise JsonRpcInvalidRequest(f"Waymark refused the request: {reason}.")

    for command_id in COMMANDS:
        _register(server, command_id)
    return server


async def _announce(ls: WaymarkServer, uri: str, *, exact: bool) -> None:
    """A document is about to be saved: its file's bytes now are the save's pre-image."""
    path = ls.real_path(uri)
    if ls.watcher is not None and path is not None:
        await asyncio.to_thread(ls.watcher.announce, path, exact=exact)


def _register(server: WaymarkServer, command_id: str) -> None:
    @server.command(command_id)
    @raw_arguments
    async def handler(ls: WaymarkServer, *arguments: Any) -> dict[str, Any]:
        if ls.context is None:
            return InternalError(
                "The server is not initialized yet; send initialize first."
            ).to_result()
        if len(arguments) > 1:
            return InvalidParams(
                "Pass one JSON object: arguments: [{...}].", {"field": "arguments"}
            ).to_result()
        result = await execute(ls.context, command_id, arguments[0] if arguments else None)
        return await lsp_result(result, ls.context.pending, ls.edits)


def _tcp(argv: list[str]) -> str | None:
    """``--tcp HOST:PORT``, or ``None`` to serve on stdio."""
    # argparse (and gettext with it) is loaded only when there are arguments to parse: an
    # editor starts the server without any.
    import argparse

    parser = argparse.ArgumentParser(prog="waymark-ls", description="Waymark language server")
    parser.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP (for debugging)")
    tcp: str | None = parser.parse_args(argv).tcp
    return tcp


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    tcp = _tcp(argv) if argv else None
    server = create_server()
    handler = ClientLogHandler(server)
    handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
    logging.getLogger("waymark").addHandler(handler)
    logging.getLogger("waymark").setLevel(logging.INFO)
    if tcp:
        host, _, port = tcp.rpartition(":")
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        # A resident process: its next write into a directory takes a temp file made ahead,
        # made once the reply of the write that asked for it has left (store/spare.py).
        spare.enable()
        # NestingGuard offers the two calls pygls' reader makes (readline, read), and
        # WholeMessages the two its writer makes (write, flush).
        server.start_io(
            stdin=cast(BinaryIO, NestingGuard(sys.stdin.buffer)),
            stdout=cast(BinaryIO, WholeMessages(sys.stdout.buffer, spare.wake)),
        )


if __name__ == "__main__":
    main()

"""How ``waymark-ls`` puts its messages on the wire: whole, and without a needless copy.

- Every message goes out whole. Notifications leave from other threads than the loop's (the
  workspace watch, logging from a worker thread) while the loop may be writing a response;
  with stdout unbuffered (``PYTHONUNBUFFERED``, common in containers and IDE terminals) two
  writers would interleave inside a message longer than the pipe holds, and the client would
  read neither. :class:`WholeMessages` writes each message under one lock.
- A command's result is plain JSON already: pygls would unstructure its response with cattrs,
  copying every nested value of, say, a 1,000-line read, only for ``json.dumps`` to walk it
  again. :class:`Protocol` hands the response to ``json.dumps`` as it is; anything that is not
  JSON inside it (an lsprotocol object, an enum) still goes through pygls' own converter, so
  every byte on the wire is the same. The ``initialize`` answer, converted once per process,
  is walked by :func:`waymark.doors.lsp.plain.plain` rather than by code cattrs would generate
  and compile for its ~26 classes only to run it once.
- A command's arguments reach its handler as the client sent them: pygls would inspect the
  handler's signature and evaluate its type hints on every ``workspace/executeCommand`` (a
  tenth of a millisecond each time) only to find ``*arguments``, which it passes on untouched.
  A handler marked with :func:`raw_arguments` skips that; any other goes through pygls.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator
from typing import Any, BinaryIO, TypeVar

from lsprotocol import types
from pygls.protocol import JsonRPCResponseMessage, LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from waymark.doors.lsp.plain import plain

_RAW = "waymark_raw_arguments"
# Converted once per process: the initialize answer, and the capabilities in it, which pygls
# also serializes for a debug log whatever the log level.
_ONCE = (types.InitializeResult, types.ServerCapabilities)
Handler = TypeVar("Handler", bound=Callable[..., Any])


def raw_arguments(handler: Handler) -> Handler:
    """Mark a command handler ``(ls, *arguments)``: it takes the arguments as they came."""
    setattr(handler, _RAW, True)
    return handler


class Protocol(LanguageServerProtocol):
    def _serialize_message(self, data: Any) -> Any:
        if type(data) is JsonRPCResponseMessage:
            return {"id": data.id, "jsonrpc": data.jsonrpc, "result": data.result}
        if type(data) in _ONCE:
            return plain(data)
        return super()._serialize_message(data)

    @lsp_method(types.WORKSPACE_EXECUTE_COMMAND)
    def lsp_workspace__execute_command(
        self, params: types.ExecuteCommandParams
    ) -> Generator[Any, Any, Any]:
        handler = self.fm.commands.get(params.command)
        # pygls keeps the function it wraps with the server as ``func`` (as functools.partial).
        if handler is None or not getattr(getattr(handler, "func", None), _RAW, False):
            return (yield from super().lsp_workspace__execute_command(params))
        return (yield handler, tuple(params.arguments or ()), None)


class WholeMessages:
    """A binary stream for pygls' writer that writes each message whole, one at a time, and
    calls ``written`` after each (the reply has left: time for work kept off the reply)."""

    def __init__(self, stream: BinaryIO, written: Callable[[], None] = lambda: None) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self._written = written

    def write(self, data: bytes) -> int:
        with self._lock:
            view = memoryview(data)
            while view:  # an unbuffered stream may take part of it
                written = self._stream.write(view)
                view = view[written:]
            self._stream.flush()
        self._written()
        return len(data)

    def flush(self) -> None:
        """Each write has flushed already."""

    def close(self) -> None:
        self._stream.close()

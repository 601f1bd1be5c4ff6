"""What ``waymark-ls`` does before its ``initialize`` answer, and that the answer is the bytes
pygls' own converter writes (issue 43: the server starts within a bare ``import pygls``):
lsprotocol's classes resolved as they are met (doors/lsp/converter.py), the initialize answer
walked rather than converted by generated code (doors/lsp/plain.py), argparse only for
arguments, the agent hosts' table (doors/hosts.py) only for the doors an agent host runs, the
command families a session may never call with their first call (commands/registry.py)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.io_ import StdoutWriter
from pygls.protocol import JsonRPCResponseMessage, LanguageServerProtocol, default_converter
from pytest_lsp import client_capabilities

from waymark.doors.lsp import wire
from waymark.doors.lsp.plain import plain
from waymark.doors.lsp.server import create_server

CLIENTS = [
    "visual-studio-code",
    "neovim@v0.6.1",
    "neovim@v0.7.0",
    "neovim@v0.10.0",
    "neovim@v0.11.0",
    "emacs",
]


def _initialize(tmp_path: Path, capabilities: Any, options: dict[str, Any]) -> tuple[bytes, Any]:
    """The server's initialize answer as written, and the response message it wrote."""
    server = create_server()
    protocol = server.protocol
    out = io.BytesIO()
    protocol.set_writer(StdoutWriter(out), include_headers=False)
    sent: list[Any] = []
    send = protocol._send_data
    protocol._send_data = lambda data: (sent.append(data), send(data))  # type: ignore[method-assign]
    converter = default_converter()
    params = {
        "processId": None,
        "rootUri": tmp_path.as_uri(),
        "capabilities": converter.unstructure(capabilities),
        "initializationOptions": {"historyDir": str(tmp_path / "history"), **options},
    }
    message = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}
    protocol.handle_message(protocol.structure_message(message))
    return out.getvalue(), sent[0]


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("review", [False, True])
def test_the_initialize_answer_is_the_bytes_pygls_writes(
    client: str, review: bool, tmp_path: Path
) -> None:
    capabilities = client_capabilities(client)
    if review:
        capabilities.experimental = {"waymarkReview": True}
    written, response = _initialize(tmp_path, capabilities, {"watch": False})
    assert type(response) is JsonRPCResponseMessage
    assert type(response.result) is types.InitializeResult
    stock = LanguageServerProtocol(create_server(), default_converter())
    assert written.decode() == json.dumps(response, default=stock._serialize_message)


def test_the_capabilities_pygls_logs_are_the_ones_it_would_log(tmp_path: Path) -> None:
    _, response = _initialize(tmp_path, client_capabilities("visual-studio-code"), {})
    capabilities = response.result.capabilities
    stock = LanguageServerProtocol(create_server(), default_converter())
    ours = create_server().protocol
    expected = json.dumps(capabilities, default=stock._serialize_message)
    assert json.dumps(capabilities, default=ours._serialize_message) == expected


# Values of every shape the walk meets: kept None (a special property), defaults left out,
# a factory default, enums inside and outside unions, nested lists of classes, LSPAny.
VALUES: list[Any] = [
    types.ServerCapabilities(),
    types.ServerCapabilities(
        position_encoding=types.PositionEncodingKind.Utf8,
        text_document_sync=types.TextDocumentSyncKind.Full,
        hover_provider=True,
        rename_provider=types.RenameOptions(prepare_provider=False),
        execute_command_provider=types.ExecuteCommandOptions(commands=["a", "b"]),
        workspace=types.WorkspaceOptions(
            workspace_folders=types.WorkspaceFoldersServerCapabilities(
                supported=True, change_notifications=True
            )
        ),
        experimental={"x": [1, {"y": None}]},
    ),
    types.RenameRegistrationOptions(document_selector=None),
    types.TextDocumentRegistrationOptions(
        document_selector=[types.TextDocumentFilterLanguage(language="python")]
    ),
    types.InitializeResult(
        capabilities=types.ServerCapabilities(
            diagnostic_provider=types.DiagnosticOptions(
                inter_file_dependencies=False, workspace_diagnostics=False, identifier=None
            )
        ),
        server_info=types.ServerInfo(name="n"),
    ),
]


@pytest.mark.parametrize("value", VALUES)
def test_the_walk_gives_what_lsprotocols_hooks_give(value: Any) -> None:
    expected = json.dumps(default_converter().unstructure(value))
    assert json.dumps(plain(value)) == expected


_CODE = """
import io, json, sys
import lsprotocol.types as lsp
from pygls.io_ import StdoutWriter
from waymark.doors.lsp.server import create_server
server = create_server()
server.protocol.set_writer(StdoutWriter(io.BytesIO()))
message = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "processId": None, "rootUri": sys.argv[1], "capabilities": {},
    "initializationOptions": {"historyDir": sys.argv[2], "watch": False}}}
server.protocol.handle_message(server.protocol.structure_message(message))
classes = [v for v in lsp.ALL_TYPES_MAP.values() if isinstance(v, type)]
resolved = sum(1 for c in classes if getattr(c, "__attrs_types_resolved__", None) is c)
unused = ["argparse", "gettext", "waymark.doors.hosts"]
unused += [f"waymark.commands.{family}" for family in
    ("sed", "patch", "notebook", "history", "model_view", "approval")]
loaded = [name for name in unused if name in sys.modules]
print(json.dumps({"resolved": resolved, "loaded": loaded}))
"""


def test_the_server_answers_initialize_without_the_work_it_does_not_need(tmp_path: Path) -> None:
    code = _CODE
    args = [tmp_path.as_uri(), str(tmp_path / "history")]
    proc = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout.splitlines()[-1])
    # Eagerly, all ~550 of lsprotocol's classes were resolved before the first message.
    assert seen["resolved"] < 20
    assert seen["loaded"] == []


_FIELD_TYPES = """
import json, sys
import attrs, lsprotocol.types as lsp
from lsprotocol import _hooks
if sys.argv[1] == "lazy":
    from waymark.doors.lsp.converter import lazy_converter
    converter = lazy_converter()
    assert _hooks._resolved_forward_references is False  # the flag is lsprotocol's again
else:
    from pygls.protocol import default_converter
    converter = default_converter()
classes = sorted(
    (name, v) for name, v in lsp.ALL_TYPES_MAP.items() if isinstance(v, type) and attrs.has(v)
)
unsupported = []  # a few classes no hook converts either way (unions cattrs cannot tell apart)
for name, kind in classes:
    converter.get_unstructure_hook(kind)
    try:
        converter.get_structure_hook(kind)
    except Exception as exc:
        unsupported.append(f"{name}: {exc}")
types_ = {name: [repr(f.type) for f in attrs.fields(kind)] for name, kind in classes}
print(json.dumps({"types": types_, "unsupported": unsupported}))
"""


def test_each_class_met_is_resolved_as_the_eager_pass_resolves_it() -> None:
    def field_types(how: str) -> Any:
        proc = subprocess.run(
            [sys.executable, "-c", _FIELD_TYPES, how], capture_output=True, text=True, timeout=60
        )
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)

    lazy = field_types("lazy")
    assert len(lazy["types"]) > 500
    assert lazy == field_types("eager")
    assert not any("ForwardRef" in t for types_ in lazy["types"].values() for t in types_)


def test_the_approval_edit_goes_through_the_wire_converter() -> None:
    server = create_server()
    assert server.protocol._converter is server.converter
    assert isinstance(server.protocol, wire.Protocol)


_FIRST_CALL = """
import sys
from waymark.commands.registry import COMMANDS
before = "waymark.commands.sed" in sys.modules
command = COMMANDS["waymark.sed"]
handler = command.handler
print(before, command.params.__name__, handler.__module__, handler is command.handler)
"""


def test_a_deferred_family_loads_with_the_first_use_of_its_params_or_handler() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _FIRST_CALL], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "SedParams", "waymark.commands.sed", "True"]

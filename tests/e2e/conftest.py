"""pytest-lsp fixtures: the real ``waymark-ls`` process, one per test module."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from .editor import Editor, attach

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "waymark", "serve"])


class Session:
    """A connected client: call commands, and the editor side that answers applyEdit."""

    def __init__(self, client: LanguageClient, editor: Editor, root: Path) -> None:
        self.client = client
        self.editor = editor
        self.root = root

    async def __call__(self, verb: str, /, **params: Any) -> dict[str, Any]:
        result: dict[str, Any] = await self.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=f"waymark.{verb}", arguments=[params])
        )
        return result

    def put(self, name: str, data: bytes) -> Path:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return path


async def start(
    client: LanguageClient, root: Path, options: dict[str, Any], capabilities: str
) -> Session:
    editor = attach(client)
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(capabilities),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
            initialization_options=options,
        )
    )
    return Session(client, editor, root)


def _root(factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = factory.mktemp("e2e")
    (base / "ws").mkdir()
    return base / "ws", base / "history"


async def _serve(
    client: LanguageClient, factory: pytest.TempPathFactory, capabilities: str, **options: Any
) -> AsyncIterator[LanguageClient]:
    root, history = _root(factory)
    # pytest-lsp hands tests the client itself; the session rides along on it.
    client.waymark = await start(  # type: ignore[attr-defined]
        client, root, {"historyDir": str(history), **options}, capabilities
    )
    yield client
    await client.shutdown_session()


@pytest_lsp.fixture(config=SERVER, scope="module")
async def auto_client(
    lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[LanguageClient]:
    async for client in _serve(lsp_client, tmp_path_factory, "visual-studio-code", sessionId="a"):
        yield client


@pytest_lsp.fixture(config=SERVER, scope="module")
async def editor_client(
    lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[LanguageClient]:
    async for client in _serve(
        lsp_client, tmp_path_factory, "visual-studio-code", sessionId="e", approval="editor"
    ):
        yield client


@pytest_lsp.fixture(config=SERVER, scope="module")
async def plain_lsp_client(
    lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[LanguageClient]:
    """Neovim 0.7's capabilities: no changeAnnotationSupport."""
    async for client in _serve(
        lsp_client, tmp_path_factory, "neovim@v0.7.0", sessionId="p", approval="editor"
    ):
        yield client


@pytest.fixture(scope="module")
def auto(auto_client: LanguageClient) -> Session:
    session: Session = auto_client.waymark  # type: ignore[attr-defined]
    return session


@pytest.fixture(scope="module")
def editor_approval(editor_client: LanguageClient) -> Session:
    session: Session = editor_client.waymark  # type: ignore[attr-defined]
    return session


@pytest.fixture(scope="module")
def plain_client(plain_lsp_client: LanguageClient) -> Session:
    session: Session = plain_lsp_client.waymark  # type: ignore[attr-defined]
    return session

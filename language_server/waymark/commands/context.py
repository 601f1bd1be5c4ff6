"""What a command handler runs against: workspace, session, history, options, editor.

The LSP server and the CLI build a :class:`CommandContext` each and call the same handlers.
Only the server has open documents and an editor to ask for approval; the CLI leaves them
empty.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, get_args, get_type_hints

from waymark.commands.pending import PendingStore
from waymark.store.history import DEFAULT_MAX_BYTES, DEFAULT_MAX_SNAPSHOTS, History
from waymark.store.session import SESSION_ID_RULE, Session, valid_session_id
from waymark.store.state_home import STATE_ENV, state_dir
from waymark.store.workspace import DEFAULT_MAX_FILE_SIZE, DEFAULT_PROTECTED, Workspace

if TYPE_CHECKING:
    import asyncio

    from waymark.engine.diff import EditTarget


# A dataclass, not attrs: every hook call builds one, and attrs costs its import (issue 33).
@dataclass(kw_only=True)
class Options:
    """``initializationOptions`` (all optional)."""

    sessionId: str | None = None
    historyDir: str | None = None
    approval: str = "auto"
    checkpointing: bool = True
    protectedPaths: list[str] = field(default_factory=lambda: list(DEFAULT_PROTECTED))
    maxSnapshots: int = DEFAULT_MAX_SNAPSHOTS
    maxHistoryBytes: int = DEFAULT_MAX_BYTES
    maxFileSize: int = DEFAULT_MAX_FILE_SIZE
    # The language server records changes by other programs as turns.
    watch: bool = True
    # The editor's files.encoding: a file's encoding when neither a BOM nor the project
    # declares one (docs/files-and-encodings.md).
    filesEncoding: str | None = None


# What an option must be beyond its type; load_options applies these and the extension gets
# them through the generated spec (commands/export.py).
OPTION_RULES: dict[str, dict[str, Any]] = {
    "approval": {"enum": ["auto", "editor"]},
    "maxSnapshots": {"minimum": 1},
    "maxHistoryBytes": {"minimum": 1},
}


def _plain(value: object, hint: object) -> bool:
    """``value`` is exactly of type ``hint`` (or of ``X`` for ``X | None``)."""
    if type(value) is hint:
        return True
    args = get_args(hint)
    return type(None) in args and type(value) in args and type(value) is not type(None)


def load_options(raw: object) -> tuple[Options, list[str]]:
    """Structure options; an invalid one is reported and its default used."""
    if not isinstance(raw, dict):
        return Options(), ([] if raw is None else ["initializationOptions must be an object."])
    warnings: list[str] = []
    good: dict[str, Any] = {}
    converted = False
    hints = get_type_hints(Options)
    for key, value in raw.items():
        if key not in hints:
            warnings.append(f"Unknown initialization option {key!r} ignored.")
            continue
        if _plain(value, hints[key]):
            # Already of its type (the CLI's and the hooks' options): the converter, and
            # its import, are for the editor's JSON.
            good[key] = value
            continue
        from waymark.commands.params import structure

        converted = True

        try:
            structure({key: value}, Options)
        except Exception as exc:
            warnings.append(f"Initialization option {key!r} ignored: {exc}")
            continue
        good[key] = value
    if converted:
        from waymark.commands.params import structure

        options = structure(good, Options)
    else:
        options = Options(**good)
    if options.sessionId is not None and not valid_session_id(options.sessionId):
        warnings.append(
            f"sessionId {options.sessionId[:40]!r} is not {SESSION_ID_RULE}; "
            "a fresh session id is used."
        )
        options.sessionId = None
    defaults = Options()
    for name, rule in OPTION_RULES.items():
        value, default = getattr(options, name), getattr(defaults, name)
        if "enum" in rule and value not in rule["enum"]:
            warnings.append(f"{name} {value!r} is not {'|'.join(rule['enum'])}; using {default}.")
        elif "minimum" in rule and value < rule["minimum"]:
            warnings.append(f"{name} must be at least {rule['minimum']}; using {default}.")
        else:
            continue
        setattr(options, name, default)
    return options, warnings


HISTORY_ENV = STATE_ENV


def default_history_dir() -> Path:
    return Path(state_dir())


@dataclass(frozen=True)
class OpenDocument:
    uri: str
    text: str
    version: int


class Documents(Protocol):
    """Open editor buffers, by real path."""

    def get(self, path: Path) -> OpenDocument | None: ...


class NoDocuments:
    def get(self, path: Path) -> OpenDocument | None:
        return None


class Editor(Protocol):
    """The client side of the server: approval and notifications."""

    async def apply_edit(
        self, targets: Sequence[EditTarget], label: str, *, confirm: bool
    ) -> bool: ...

    def notify(self, method: str, params: dict[str, Any]) -> None: ...


@dataclass
class CommandContext:
    workspace: Workspace
    session: Session
    options: Options = field(default_factory=Options)
    history: History | None = None
    documents: Documents = field(default_factory=NoDocuments)
    editor: Editor | None = None
    pending: PendingStore[Any] = field(default_factory=PendingStore)
    # Edits and rewinds of one session run one at a time (docs/architecture.md, Commit).
    _mutation_lock: asyncio.Lock | None = field(default=None, repr=False)
    warnings: list[str] = field(default_factory=list)
    # How this door's user calls a command, by id (a CLI verb, an MCP tool): errors name the
    # next step in those terms (commands/wording.py); a missing id is named as it is.
    names: Mapping[str, str] = field(default_factory=dict)

    @property
    def mutation_lock(self) -> asyncio.Lock:
        # Made on first use: asyncio costs a hook process tens of milliseconds, and only
        # commands take the lock.
        if self._mutation_lock is None:
            import asyncio

            self._mutation_lock = asyncio.Lock()
        return self._mutation_lock

    @classmethod
    def create(
        cls,
        folders: list[Path],
        options: Options,
        *,
        editor: Editor | None = None,
        tag_writes: bool = True,
        history: History | None = None,
        documents: Documents | None = None,
        names: Mapping[str, str] | None = None,
        host_state: Sequence[str] = (),
        warnings: Sequence[str] = (),
    ) -> CommandContext:
        """The context of one door, complete; ``tag_writes`` false: its writes belong to no
        session; ``history``: the one this process already has open for the same options;
        ``documents``: the editor's open buffers; ``names``: how the door's user calls each
        command; ``host_state``: the agent hosts' own folders; ``warnings``: the door's, first."""
        root = Path(options.historyDir) if options.historyDir else default_history_dir()
        session = Session(id=options.sessionId) if options.sessionId else Session()
        said = list(warnings)
        if history is not None:
            workspace = history.workspace  # made for the same options: one object
        else:
            workspace = Workspace(
                protected=tuple(options.protectedPaths),
                max_file_size=options.maxFileSize,
                protected_dirs=(root,),
                host_state=host_state,
            )
            workspace.set_folders(folders)
            if options.checkpointing:
                history = History.open(
                    root,
                    workspace,
                    session=session.id if tag_writes else None,
                    max_snapshots=options.maxSnapshots,
                    max_bytes=options.maxHistoryBytes,
                )
                said.extend(history.warnings)
        return cls(
            workspace=workspace,
            session=session,
            options=options,
            history=history,
            documents=documents if documents is not None else NoDocuments(),
            editor=editor,
            warnings=said,
            names=names if names is not None else {},
        )

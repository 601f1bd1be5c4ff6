"""Every agent host Waymark is wired into, as data: one record per host.

The hooks (which events mean what, where the envelope keeps each field, which tools to
track and where their input names the file, how an answer is written), ``waymark init``
(hook events, timeouts, matchers) and the CLI's choices all read this table; no handler
branches on a host's name. Adding a host is adding a record (CONTRIBUTING.md, "Adding a
host").
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, Literal

# The events Waymark acts on, whatever a host calls them.
PROMPT = "prompt"  # the user sent a prompt: open a turn
PRE_TOOL = "pre-tool"  # a tool is about to run: back up, or simulate a sed
POST_TOOL = "post-tool"  # a tool ran: record what it changed
POST_TOOL_FAILURE = "post-tool-failure"  # a tool failed, maybe half-way: record all the same
CANONICAL_EVENTS = (PROMPT, PRE_TOOL, POST_TOOL, POST_TOOL_FAILURE)

# Claude Code's hook names; Qwen Code and Codex took them over.
CLAUDE_EVENTS = {
    "UserPromptSubmit": PROMPT,
    "PreToolUse": PRE_TOOL,
    "PostToolUse": POST_TOOL,
    "PostToolUseFailure": POST_TOOL_FAILURE,
}

Template = Any
"""A JSON value in which the strings ``"$event"`` (the host's name of the event answered),
``"$text"`` (what the model should read) and ``"$input"`` (a tool's new input) stand for
those values; see :func:`fill`."""


def fill(template: Template, **values: Any) -> Any:
    """``template`` with each placeholder string replaced by its value (any JSON value)."""
    if isinstance(template, str) and template.startswith("$") and template[1:] in values:
        return values[template[1:]]
    if isinstance(template, dict):
        return {key: fill(item, **values) for key, item in template.items()}
    if isinstance(template, list):
        return [fill(item, **values) for item in template]
    return template


def render(template: Template, **values: Any) -> dict[str, Any]:
    """A hook's answer: ``template`` filled in, which must make a JSON object."""
    answer = fill(template, **values)
    if not isinstance(answer, dict):
        raise TypeError(f"an answer template makes {type(answer).__name__}, not an object")
    return answer


@dataclass(frozen=True)
class Envelope:
    """Where a host's hook JSON keeps each field: alternatives, the first present wins.

    A path is dotted (``"preToolUse.toolName"`` reads ``event["preToolUse"]["toolName"]``);
    a number picks a list's item (``"workspaceRoots.0"``).
    """

    event: tuple[str, ...] = ("hook_event_name",)
    tool: tuple[str, ...] = ("tool_name",)
    # A JSON string here is decoded (some hosts send the arguments as text).
    tool_input: tuple[str, ...] = ("tool_input",)
    # Names one tool call across its Pre and Post deliveries.
    call_id: tuple[str, ...] = ("tool_use_id", "tool_call_id")
    prompt: tuple[str, ...] = ("prompt",)
    # Names one prompt across the deliveries of its prompt event.
    prompt_id: tuple[str, ...] = ("prompt_id",)
    session: tuple[str, ...] = ("session_id",)
    cwd: tuple[str, ...] = ("cwd",)
    # A JSON-lines transcript to find the prompt in when the prompt event carries none.
    transcript: tuple[str, ...] = ("transcript_path",)
    # A stamp the host puts on each event once: names a call the host gives no id.
    timestamp: tuple[str, ...] = ("timestamp",)


@dataclass(frozen=True)
class Answers:
    """How a host wants each answer written; ``None``: the host has no such answer."""

    # Text added to what the model reads (the prompt's turn, what a command changed).
    context: Template | None
    # Keep the tool from running; the model reads the reason.
    deny: Template
    # Run the tool with another input, the model reading its output as the tool's.
    rewrite: Template | None
    # How a sed -i Waymark already applied reaches the model. "rewrite": the shell runs a
    # command printing Waymark's result instead, which the model reads as the command's
    # output (a success); "deny": the host only has a refusal to carry the result.
    simulated: Literal["rewrite", "deny"] = "rewrite"
    # Hand the call to the user to approve, the model reading the reason; None: the host
    # has no such answer (the refusal then stops it once, and the model asks the user).
    ask: Template | None = None
    # How a shell command Waymark refuses is kept from running. "deny": the refusal above;
    # "rewrite": the command is replaced by one printing the reason and failing (a host
    # whose refusal would end the whole task).
    refuse: Literal["deny", "rewrite"] = "deny"


# Claude Code's answers (Qwen Code and Codex read the same).
CLAUDE_ANSWERS = Answers(
    context={"hookSpecificOutput": {"hookEventName": "$event", "additionalContext": "$text"}},
    deny={
        "hookSpecificOutput": {
            "hookEventName": "$event",
            "permissionDecision": "deny",
            "permissionDecisionReason": "$text",
        }
    },
    rewrite={
        "hookSpecificOutput": {
            "hookEventName": "$event",
            "permissionDecision": "allow",
            "updatedInput": "$input",
        }
    },
)


@dataclass(frozen=True)
class Editor:
    """A host's own file-writing tool and where its input names what it writes."""

    # Input keys that may hold the path, the first present wins.
    path: tuple[str, ...] = ()
    # Input key holding a patch (``*** Update File: …`` blocks) naming the files instead.
    patch: str | None = None


@dataclass(frozen=True)
class Host:
    name: str
    # Shell tool → the input key holding its command line (tracked; a sed -i simulated).
    shell: dict[str, str] = field(default_factory=dict)
    # The host's own file-writing tools (backed up before, recorded after).
    editors: dict[str, Editor] = field(default_factory=dict)
    # The host's hook event names → Waymark's (:data:`CANONICAL_EVENTS`).
    events: dict[str, str] = field(default_factory=dict)
    envelope: Envelope = Envelope()
    answers: Answers = CLAUDE_ANSWERS
    # Variables the host sets for its hooks naming the project folder, most specific first.
    project_env: tuple[str, ...] = ()
    # A hook answers well within this or lets the tool run; None: the host runs no hooks.
    hook_timeout: int | None = None
    # Whether the host's matchers are unanchored regexes (then "edit" would also match
    # mcp__waymark__waymark_edit, so init anchors them).
    regex_matchers: bool = False
    # Folders (relative to the workspace) where the host keeps its own state: shell
    # tracking never records them into turns.
    state_dirs: tuple[str, ...] = ()
    # A variable set by another host that also runs this host's hook config (GitHub Copilot
    # CLI runs Claude Code's) → that host: there its own Waymark hook acts, and this one
    # steps aside so no prompt, command or sed is handled twice.
    foreign_env: dict[str, str] = field(default_factory=dict)
    # The host has no prompt hook that runs before the model's tools: a session's first
    # tracked tool call opens the turn, named and labelled after the session.
    session_turns: bool = False

    @property
    def has_hooks(self) -> bool:
        return self.hook_timeout is not None

    def matcher(self, tools: list[str]) -> str:
        """A hook matcher selecting exactly ``tools``, in the host's syntax."""
        joined = "|".join(tools)
        if not self.regex_matchers:
            return joined
        return f"^{joined}$" if len(tools) == 1 else f"^({joined})$"

    def event_name(self, canonical: str) -> str | None:
        """The host's name for a canonical event, None when it has none."""
        return next((name for name, c in self.events.items() if c == canonical), None)


def _at(data: Any, path: str) -> Any:
    for key in path.split("."):
        if isinstance(data, list) and key.isdigit():
            data = data[int(key)] if int(key) < len(data) else None
        elif isinstance(data, dict):
            data = data.get(key)
        else:
            return None
    return data


def _first(data: dict[str, Any], paths: tuple[str, ...]) -> Any:
    return next((v for v in (_at(data, p) for p in paths) if v not in (None, "")), None)


@dataclass(frozen=True)
class Call:
    """One hook call read through its host's :class:`Envelope`: what handlers work on."""

    event: str | None  # canonical; None: an event Waymark does not act on
    event_name: str  # the host's own name, echoed in answers
    tool: str | None
    tool_input: dict[str, Any]
    call_id: str | None
    prompt: str
    prompt_id: str | None
    session: str | None
    cwd: str | None
    transcript: str | None
    timestamp: str | None


def read_call(host: Host, raw: dict[str, Any]) -> Call:
    env = host.envelope

    def text(paths: tuple[str, ...]) -> str | None:
        value = _first(raw, paths)
        return value if isinstance(value, str) else None

    name = text(env.event) or ""
    tool_input = _first(raw, env.tool_input)
    if isinstance(tool_input, str):
        try:
            tool_input = json.loads(tool_input)
        except ValueError:
            tool_input = None
    return Call(
        event=host.events.get(name),
        event_name=name,
        tool=text(env.tool),
        tool_input=tool_input if isinstance(tool_input, dict) else {},
        call_id=text(env.call_id),
        prompt=text(env.prompt) or "",
        prompt_id=text(env.prompt_id),
        session=text(env.session),
        cwd=text(env.cwd),
        transcript=text(env.transcript),
        timestamp=text(env.timestamp),
    )


HOSTS: dict[str, Host] = {
    "claude-code": Host(
        "claude-code",
        shell={"Bash": "command"},
        editors={
            "Edit": Editor(path=("file_path",)),
            "Write": Editor(path=("file_path",)),
            "MultiEdit": Editor(path=("file_path",)),
            "NotebookEdit": Editor(path=("notebook_path",)),
        },
        events=CLAUDE_EVENTS,
        answers=replace(
            CLAUDE_ANSWERS,
            ask={
                "hookSpecificOutput": {
                    "hookEventName": "$event",
                    "permissionDecision": "ask",
                    "permissionDecisionReason": "$text",
                }
            },
        ),
        project_env=("CLAUDE_PROJECT_DIR",),
        hook_timeout=10,  # seconds
        foreign_env={"COPILOT_CLI": "copilot-cli"},
    ),
    "qwen-code": Host(
        "qwen-code",
        shell={"run_shell_command": "command"},
        editors={"edit": Editor(path=("file_path",)), "write_file": Editor(path=("file_path",))},
        events=CLAUDE_EVENTS,
        # The first prompt event of a prompt carries it as submitted_prompt.
        envelope=Envelope(prompt=("prompt", "submitted_prompt")),
        # Qwen Code's PreToolUse takes no updatedInput: a refusal carries the result.
        answers=replace(CLAUDE_ANSWERS, rewrite=None, simulated="deny"),
        project_env=("CLAUDE_PROJECT_DIR", "QWEN_PROJECT_DIR"),
        hook_timeout=10_000,  # milliseconds
        regex_matchers=True,
    ),
    "codex": Host(
        "codex",
        # Codex names its shell tool "Bash" for hooks, whatever the model called it.
        shell={"Bash": "command"},
        editors={"apply_patch": Editor(patch="command")},
        # Codex has no failure event: a failed command reaches PostToolUse too.
        events={k: v for k, v in CLAUDE_EVENTS.items() if v != POST_TOOL_FAILURE},
        envelope=Envelope(prompt_id=("prompt_id", "turn_id")),
        project_env=("CODEX_PROJECT_DIR", "CLAUDE_PROJECT_DIR"),
        hook_timeout=10,  # seconds
        regex_matchers=True,
        state_dirs=(".codex",),
    ),
    "gemini-cli": Host(
        "gemini-cli",
        shell={"run_shell_command": "command"},
        editors={"replace": Editor(path=("file_path",)), "write_file": Editor(path=("file_path",))},
        # AfterTool also follows a tool that failed; a tool a hook denied gets none.
        events={"BeforeAgent": PROMPT, "BeforeTool": PRE_TOOL, "AfterTool": POST_TOOL},
        # No call or prompt ids: each event's timestamp, one per event whichever of its
        # hooks reads it, names the call. Claude's context answer; its own refusal and new
        # input (merged into the call's arguments).
        answers=replace(
            CLAUDE_ANSWERS,
            deny={"decision": "deny", "reason": "$text"},
            rewrite={"hookSpecificOutput": {"hookEventName": "$event", "tool_input": "$input"}},
        ),
        project_env=("GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"),
        hook_timeout=10_000,  # milliseconds
        regex_matchers=True,
    ),
    # Copilot's own hook files (.github/hooks/*.json) with Claude's event names: then it
    # sends Claude's envelope (tool names Bash, Write, Edit; no tool-use ids) and reads
    # Claude's answers. Its Write and Edit name the file in "path".
    "copilot-cli": Host(
        "copilot-cli",
        shell={"Bash": "command"},
        editors={"Edit": Editor(path=("path",)), "Write": Editor(path=("path",))},
        events=CLAUDE_EVENTS,
        project_env=("COPILOT_PROJECT_DIR", "CLAUDE_PROJECT_DIR"),
        hook_timeout=10,  # seconds
        regex_matchers=True,
    ),
    "opencode": Host(
        "opencode",
        # The plugin init writes forwards opencode's own hook input and output as they are.
        shell={"bash": "command"},
        editors={"edit": Editor(path=("filePath",)), "write": Editor(path=("filePath",))},
        events={
            "chat.message": PROMPT,
            "tool.execute.before": PRE_TOOL,
            "tool.execute.after": POST_TOOL,
        },
        envelope=Envelope(
            tool=("input.tool",),
            tool_input=("output.args", "input.args"),
            call_id=("input.callID",),
            prompt=("output.parts.0.text",),
            prompt_id=("output.message.id", "input.messageID"),
            session=("input.sessionID",),
            transcript=(),
            timestamp=(),
        ),
        # The plugin merges "args" into the tool's input, appends "context" to the tool's
        # output, and throws "deny" (opencode then tells the model the tool failed).
        answers=Answers(
            context={"context": "$text"}, deny={"deny": "$text"}, rewrite={"args": "$input"}
        ),
        hook_timeout=10,  # seconds, the plugin's bound on one hook call
    ),
    "cline": Host(
        "cline",
        shell={"run_commands": "commands"},
        editors={"editor": Editor(path=("path",))},
        # The hook files PreToolUse and PostToolUse; Cline's prompt and task-start hooks run
        # detached (their answer is not awaited), so the task's first tool call opens its turn.
        events={"tool_call": PRE_TOOL, "tool_result": POST_TOOL},
        envelope=Envelope(
            event=("hookName",),
            tool=("tool_call.name", "tool_result.name"),
            tool_input=("tool_call.input", "tool_result.input"),
            call_id=("tool_call.id", "tool_result.id"),
            prompt=(),
            prompt_id=(),
            session=("taskId",),
            cwd=("workspaceRoots.0",),
            transcript=(),
        ),
        answers=Answers(
            # Reaches the model as a <hook_context> user message after the tool's result.
            context={"contextModification": "$text"},
            # Cline's only refusal cancels the whole task; the message says why.
            deny={"cancel": True, "errorMessage": "$text"},
            rewrite={"overrideInput": "$input"},
            refuse="rewrite",
        ),
        hook_timeout=10,
        session_turns=True,
    ),
}

HOOK_HOSTS = tuple(name for name, host in HOSTS.items() if host.has_hooks)
# Every host's state folders: skipped whichever door tracks a shell command.
STATE_DIRS = tuple(sorted({d for host in HOSTS.values() for d in host.state_dirs}))

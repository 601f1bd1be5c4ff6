"""Every agent host Waymark is wired into, as data: one record per host.

The hooks (which events mean what, where the envelope keeps each field, which tools to
track and where their input names the file, how an answer is written), ``waymark init``
(its plan, hook events, timeouts, matchers, what it says after) and the CLI's choices all
read this table; no handler branches on a host's name. Adding a host is adding a record
(CONTRIBUTING.md, "Adding a host").
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

# The hook door reads a call and writes its answer through a host record: all from here.
from waymark.doors.host_calls import Call as Call
from waymark.doors.host_calls import Template
from waymark.doors.host_calls import read_call as read_call
from waymark.doors.host_calls import render as render

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
class Setup:
    """What ``waymark init <host>`` writes and what it says after (doors/init.py)."""

    # The plan writing the project's configs: a key of ``PLANS`` in doors/init_plans.py.
    plan: str
    # The settings file, for a plan several hosts share ("settings").
    settings: str | None = None
    # The plan for the per-user file the host reads MCP servers from, run with ``--user``.
    user_plan: str | None = None
    # Files written for one person, which git must not list: the repository's info/exclude
    # gets them (doors/git_exclude.py).
    personal: tuple[str, ...] = ()
    # What the user must still do in the host, which init cannot do from outside; ``{root}``
    # is the project, ``{settings}`` Cline's MCP settings file.
    note: str = ""
    # The host's name as its users know it (the VS Code extension's host picker).
    title: str = ""


@dataclass(frozen=True)
class Host:
    name: str
    setup: Setup
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
    # Seconds in one unit of ``hook_timeout`` (the unit the host's config takes).
    timeout_unit: float = 1.0
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

    @property
    def hook_seconds(self) -> float | None:
        return None if self.hook_timeout is None else self.hook_timeout * self.timeout_unit

    def matcher(self, tools: list[str]) -> str:
        """A hook matcher selecting exactly ``tools``, in the host's syntax."""
        joined = "|".join(tools)
        if not self.regex_matchers:
            return joined
        return f"^{joined}$" if len(tools) == 1 else f"^({joined})$"

    def event_name(self, canonical: str) -> str | None:
        """The host's name for a canonical event, None when it has none."""
        return next((name for name, c in self.events.items() if c == canonical), None)


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
        setup=Setup(
            "claude-code",
            title="Claude Code",
            personal=(".claude/settings.local.json",),
            note=(
                "Claude Code: the hooks are in .claude/settings.local.json, which stays out of git "
                "(in a repository init lists it in .git/info/exclude; .mcp.json is for the team). "
                "Start claude in {root} once and trust the folder, so it runs the hooks and allows "
                "the mcp__waymark tools; in -p mode pass --allowedTools mcp__waymark."
            ),
        ),
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
        hook_timeout=10_000,
        timeout_unit=0.001,  # milliseconds
        regex_matchers=True,
        setup=Setup(
            "settings",
            title="Qwen Code",
            settings=".qwen/settings.json",
            note=(
                "Qwen Code runs project hooks only in a trusted folder: trust {root} when qwen "
                "asks (or with /trust)."
            ),
        ),
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
        setup=Setup(
            "codex",
            title="Codex CLI",
            note=(
                "Codex reads .codex/config.toml and .codex/hooks.json only from a trusted project: "
                "trust {root} when codex asks at its first start, then review and trust the hooks "
                "with /hooks (codex exec runs untrusted hooks only with "
                "--dangerously-bypass-hook-trust). Keep CODEX_HOME outside the project."
            ),
        ),
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
        hook_timeout=10_000,
        timeout_unit=0.001,  # milliseconds
        regex_matchers=True,
        setup=Setup(
            "settings",
            title="Gemini CLI",
            settings=".gemini/settings.json",
            note=(
                "Gemini CLI runs a project's hooks and MCP servers only in a trusted folder: trust "
                "{root} when gemini asks (or with /permissions); it then warns at each start that "
                "the project has hooks."
            ),
        ),
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
        setup=Setup(
            "copilot-cli",
            title="GitHub Copilot CLI",
            note=(
                "GitHub Copilot CLI: trust {root} when copilot asks at its first start (in -p mode "
                "pass --trust-folder); it reads the server from .mcp.json and the hooks from "
                ".github/hooks/waymark.json. It also runs Claude Code's hooks, which step aside "
                "under Copilot."
            ),
        ),
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
        setup=Setup(
            "opencode",
            title="opencode",
            note=(
                "opencode loads the plugin when it starts in {root}. Offline, set "
                "npm_config_offline=true: opencode otherwise tries for about a minute to install "
                "its plugin package before it starts."
            ),
        ),
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
        setup=Setup(
            "cline",
            title="Cline",
            user_plan="cline-user",
            note=(
                "Cline reads MCP servers only from {settings}: run `waymark init cline --user` to "
                "add Waymark's server for {root} there (one per user: it serves the last project "
                "named). The hooks in .clinerules/hooks run in every Cline task in {root}; each "
                "task is one turn, labelled with its task id."
            ),
        ),
    ),
}

HOOK_HOSTS = tuple(name for name, host in HOSTS.items() if host.has_hooks)
# Every host's state folders: skipped whichever door tracks a shell command.
STATE_DIRS = tuple(sorted({d for host in HOSTS.values() for d in host.state_dirs}))

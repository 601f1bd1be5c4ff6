"""Every agent host Waymark is wired into, as data: one record per host.

The hooks (which tools to track, where a tool's input names its file, which variables name
the project), ``waymark init`` (hook timeouts, how the host matches tool names) and the CLI's
choices all read this table; no handler branches on a host's name.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Host:
    name: str
    # The shell tool(s) whose commands are tracked (and whose `sed -i` lines are simulated).
    shell: frozenset[str] = frozenset()
    # Native file-editing tool → the ``tool_input`` key holding the file's path.
    editors: dict[str, str] = field(default_factory=dict)
    # Variables the host sets for its hooks naming the project folder, most specific first.
    project_env: tuple[str, ...] = ()
    # A hook answers well within this or lets the tool run; None: the host runs no hooks.
    hook_timeout: int | None = None
    # Whether the host's matchers are unanchored regexes (then "edit" would also match
    # mcp__waymark__waymark_edit, so init anchors them).
    regex_matchers: bool = False

    @property
    def has_hooks(self) -> bool:
        return self.hook_timeout is not None

    def matcher(self, tools: list[str]) -> str:
        """A hook matcher selecting exactly ``tools``, in the host's syntax."""
        joined = "|".join(tools)
        if not self.regex_matchers:
            return joined
        return f"^{joined}$" if len(tools) == 1 else f"^({joined})$"


HOSTS: dict[str, Host] = {
    "claude-code": Host(
        "claude-code",
        shell=frozenset({"Bash"}),
        editors={
            "Edit": "file_path",
            "Write": "file_path",
            "MultiEdit": "file_path",
            "NotebookEdit": "notebook_path",
        },
        project_env=("CLAUDE_PROJECT_DIR",),
        hook_timeout=10,  # seconds
    ),
    "qwen-code": Host(
        "qwen-code",
        shell=frozenset({"run_shell_command"}),
        editors={"edit": "file_path", "write_file": "file_path"},
        project_env=("CLAUDE_PROJECT_DIR", "QWEN_PROJECT_DIR"),
        hook_timeout=10_000,  # milliseconds
        regex_matchers=True,
    ),
    "codex": Host("codex"),
}

HOOK_HOSTS = tuple(name for name, host in HOSTS.items() if host.has_hooks)

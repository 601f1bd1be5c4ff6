"""What each host calls its tools, and where their input names the file they change.

Claude Code and Qwen Code send the same hook envelope (``hook_event_name``, ``tool_name``,
``tool_input``, ``cwd``, ``prompt``) and read the same answers; only the tool names differ.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Host:
    name: str
    shell: frozenset[str]
    # Native file-editing tool → the ``tool_input`` key holding the file's path.
    editors: dict[str, str]


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
    ),
    "qwen-code": Host(
        "qwen-code",
        shell=frozenset({"run_shell_command"}),
        editors={"edit": "file_path", "write_file": "file_path"},
    ),
}

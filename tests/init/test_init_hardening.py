"""``waymark init`` on real-world configs: TOML edited in place, wrong shapes refused whole.

Every case runs ``waymark init`` as a process and compares the bytes of every file after it.
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest

from helpers_commands import init
from waymark.doors import init as init_door
from waymark.doors.init_entries import waymark_command
from waymark.engine.errors import IoError

pytestmark = pytest.mark.timeout(120)


def tree(root: Path) -> dict[str, bytes | str]:
    """Every entry under ``root``: a file's bytes, a link's target, a directory as ``dir``."""
    found: dict[str, bytes | str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            path = Path(dirpath) / name
            key = str(path.relative_to(root))
            if path.is_symlink():
                found[key] = "-> " + os.readlink(path)
            elif path.is_dir():
                found[key] = "dir"
            elif path.is_file():
                found[key] = path.read_bytes()
            else:
                found[key] = "special"
    return found


def waymark_table(newline: str = "\n") -> str:
    command = waymark_command()
    lines = [
        "[mcp_servers.waymark]",
        f"command = {json.dumps(command[0])}",
        f"args = {json.dumps([*command[1:], 'mcp'])}",
        "required = true",
        "startup_timeout_sec = 30",
        'env_vars = ["XDG_STATE_HOME"]',
    ]
    return newline.join(lines) + newline


def codex(workspace: Path, text: str | bytes) -> Path:
    (workspace / ".codex").mkdir()
    config = workspace / ".codex" / "config.toml"
    config.write_bytes(text.encode() if isinstance(text, str) else text)
    return config


def init_twice(workspace: Path, host: str) -> None:
    first = init(workspace, host)
    assert first.returncode == 0, first.stderr
    after = tree(workspace)
    again = init(workspace, host)
    assert again.returncode == 0, again.stderr
    assert tree(workspace) == after


# -- class 16: codex config.toml is edited as TOML ----------------------------------------------


def test_codex_inline_mcp_servers_table_gets_a_member_not_a_clashing_table(
    workspace: Path,
) -> None:
    config = codex(workspace, '# servers\nmcp_servers = { other = { command = "x" } }\n')
    init_twice(workspace, "codex")
    text = config.read_text()
    assert text.startswith('# servers\nmcp_servers = { other = { command = "x" }, waymark = {')
    parsed = tomllib.loads(text)
    command = waymark_command()
    assert parsed["mcp_servers"] == {
        "other": {"command": "x"},
        "waymark": {
            "command": command[0],
            "args": [*command[1:], "mcp"],
            "required": True,
            "startup_timeout_sec": 30,
            "env_vars": ["XDG_STATE_HOME"],
        },
    }


def test_codex_dotted_keys_and_comments_survive(workspace: Path) -> None:
    original = (
        "# my codex config\n"
        'model = "m"  # the model\n'
        'mcp_servers.other.command = "x"  # another server\n'
        "\n"
        "[profiles.fast]\n"
        "# keep me\n"
        'model = "n"\n'
    )
    config = codex(workspace, original)
    init_twice(workspace, "codex")
    assert config.read_text() == (
        "# my codex config\n"
        'model = "m"  # the model\n'
        'mcp_servers.other.command = "x"  # another server\n'
        "\n" + waymark_table() + "\n"
        "[profiles.fast]\n"
        "# keep me\n"
        'model = "n"\n'
    )


def test_codex_table_between_tables_keeps_the_blank_line(workspace: Path) -> None:
    original = '[mcp_servers.other]\ncommand = "x"\n\n[profiles.fast]\nmodel = "n"\n'
    config = codex(workspace, original)
    init_twice(workspace, "codex")
    assert config.read_text() == (
        '[mcp_servers.other]\ncommand = "x"\n\n'
        + waymark_table()
        + '\n[profiles.fast]\nmodel = "n"\n'
    )


def test_codex_existing_waymark_entry_is_left_byte_for_byte(workspace: Path) -> None:
    original = b'# mine\r\n[mcp_servers.waymark]\r\ncommand = "/opt/waymark"  # custom\r\n'
    config = codex(workspace, original)
    init_twice(workspace, "codex")
    assert config.read_bytes() == original


def test_codex_crlf_config_stays_crlf(workspace: Path) -> None:
    config = codex(workspace, b'model = "m"\r\n\r\n[mcp_servers.other]\r\ncommand = "x"\r\n')
    init_twice(workspace, "codex")
    assert config.read_bytes() == (
        b'model = "m"\r\n\r\n[mcp_servers.other]\r\ncommand = "x"\r\n\r\n'
        + waymark_table("\r\n").encode()
    )


# -- class 18: wrong shapes, odd files and symlinks are refused, nothing written ------------------


def refused(workspace: Path, host: str, *phrases: str) -> str:
    before = tree(workspace)
    done = init(workspace, host)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("waymark init: ")
    assert done.stderr.count("\n") == 1, done.stderr
    for phrase in phrases:
        assert phrase in done.stderr
    assert done.stdout == ""
    assert tree(workspace) == before
    return done.stderr


@pytest.mark.parametrize(
    ("host", "relative", "content", "phrase"),
    [
        ("claude-code", ".claude/settings.local.json", '{"hooks": []}', '"hooks" is a list'),
        ("claude-code", ".mcp.json", '{"mcpServers": null}', '"mcpServers" is null'),
        ("claude-code", ".mcp.json", '{"mcpServers": {"waymark": 1}}', '"waymark" is a number'),
        (
            "claude-code",
            ".claude/settings.json",
            '{"hooks": {"PreToolUse": {}}}',
            '"PreToolUse" is an object',
        ),
        (
            "claude-code",
            ".claude/settings.json",
            '{"hooks": {"PreToolUse": ["audit"]}}',
            "is a string",
        ),
        (
            "claude-code",
            ".claude/settings.json",
            '{"hooks": {"PreToolUse": [{"hooks": {}}]}}',
            '"hooks" is an object',
        ),
        (
            "claude-code",
            ".claude/settings.local.json",
            '{"permissions": []}',
            '"permissions" is a list',
        ),
        (
            "claude-code",
            ".claude/settings.local.json",
            '{"enabledMcpjsonServers": "waymark"}',
            '"enabledMcpjsonServers" is a string',
        ),
        ("claude-code", ".claude/settings.json", "[1]", "not a JSON object"),
        ("claude-code", ".claude/settings.json", "{oops", "is not valid JSON"),
        ("qwen-code", ".qwen/settings.json", '{"mcpServers": []}', '"mcpServers" is a list'),
        ("codex", ".codex/config.toml", "mcp_servers = 5\n", '"mcp_servers" is a number'),
        ("codex", ".codex/config.toml", "[[mcp_servers]]\na = 1\n", '"mcp_servers" is a list'),
        ("codex", ".codex/config.toml", "[mcp_servers]\nwaymark = 3\n", '"waymark" is a number'),
        ("codex", ".codex/config.toml", "a = \n", "is not valid TOML"),
    ],
)
def test_a_config_of_the_wrong_shape_is_refused_and_nothing_is_written(
    workspace: Path, host: str, relative: str, content: str, phrase: str
) -> None:
    path = workspace / relative
    path.parent.mkdir(exist_ok=True)
    path.write_text(content)
    refused(workspace, host, relative, phrase, "run init again")


def test_a_directory_where_the_config_should_be_is_refused(workspace: Path) -> None:
    (workspace / ".claude" / "settings.json").mkdir(parents=True)
    refused(workspace, "claude-code", ".claude/settings.json", "is a directory")


def test_a_file_where_the_config_directory_should_be_is_refused(workspace: Path) -> None:
    (workspace / ".qwen").write_text("not a directory\n")
    refused(workspace, "qwen-code", ".qwen", "not a directory")


def test_a_fifo_config_is_refused_without_blocking(workspace: Path) -> None:
    os.mkfifo(workspace / ".mcp.json")
    refused(workspace, "claude-code", ".mcp.json", "not a regular file")


def test_a_config_that_is_not_utf8_is_refused(workspace: Path) -> None:
    (workspace / ".codex").mkdir()
    (workspace / ".codex" / "config.toml").write_bytes(b'model = "\xff"\n')
    refused(workspace, "codex", ".codex/config.toml", "not UTF-8")


DEEP = 100_000


@pytest.mark.parametrize(
    ("host", "relative", "content", "phrase"),
    [
        ("claude-code", ".mcp.json", "[" * DEEP + "]" * DEEP, "nests deeper than 100 levels"),
        (
            "claude-code",
            ".claude/settings.json",
            '{"a": ' + "[" * 101 + "]" * 101 + "}",
            "nests deeper than 100 levels",
        ),
        ("codex", ".codex/config.toml", "a = " + "[" * DEEP + "]" * DEEP, "deeper than 100"),
        ("codex", ".codex/config.toml", "a = " + "{b=" * DEEP + "1" + "}" * DEEP, "deeper than"),
        ("claude-code", ".mcp.json", '{"x": "\\ud800"}', "holds the escape \\ud800, a lone"),
        ("codex", ".codex/hooks.json", '{"\\udfff": 1}', "holds the escape \\udfff, a lone"),
        ("codex", ".codex/config.toml", 'x = "\\ud800"\n', "is not valid TOML"),
    ],
)
def test_a_config_nested_too_deep_or_holding_a_surrogate_is_refused_in_one_line(
    workspace: Path, host: str, relative: str, content: str, phrase: str
) -> None:
    path = workspace / relative
    path.parent.mkdir(exist_ok=True)
    path.write_text(content)
    refused(workspace, host, relative, phrase, "fix it and run init again")


@pytest.mark.parametrize("link", [".mcp.json", ".claude"])
def test_a_config_symlinked_out_of_the_project_is_refused_and_named(
    workspace: Path, tmp_path: Path, link: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "settings.json").write_text("{}")
    (outside / ".mcp.json").write_text("{}")
    target = outside / ".mcp.json" if link == ".mcp.json" else outside
    (workspace / link).symlink_to(target)
    before_outside = tree(outside)
    refused(workspace, "claude-code", f"{workspace / link}", "outside the project")
    assert tree(outside) == before_outside


def test_a_config_symlinked_inside_the_project_is_written_through_the_link(
    workspace: Path,
) -> None:
    (workspace / "conf").mkdir()
    (workspace / "conf" / "mcp.json").write_text('{"mcpServers": {"other": {"command": "x"}}}')
    (workspace / ".mcp.json").symlink_to("conf/mcp.json")
    init_twice(workspace, "claude-code")
    assert os.readlink(workspace / ".mcp.json") == "conf/mcp.json"
    servers = json.loads((workspace / "conf" / "mcp.json").read_text())["mcpServers"]
    assert set(servers) == {"other", "waymark"}


def test_a_missing_workspace_is_a_usage_error(tmp_path: Path) -> None:
    done = init(tmp_path, "codex", "--workspace", str(tmp_path / "nope"))
    # argparse's convention, as for every malformed argument: the usage, then one error line.
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1].endswith(
        f"error: argument --workspace: '{tmp_path / 'nope'}' does not exist"
    )
    assert list(tmp_path.iterdir()) == []


def test_a_failed_write_restores_the_files_already_written(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The second file fails to write: the first is put back byte for byte, new dirs removed."""
    mcp = workspace / ".mcp.json"
    mcp.write_bytes(b'{"mcpServers": {}}')
    real_write = init_door.atomic_write

    def failing(path: Path, data: bytes, **kwargs: object) -> None:
        if path.name == "settings.local.json":
            raise IoError(f"{path}: No space left on device", {"path": str(path)})
        real_write(path, data, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(init_door, "atomic_write", failing)
    assert init_door.main("claude-code", str(workspace), False) == 1
    err = capsys.readouterr().err
    assert err.startswith("waymark init: ") and err.count("\n") == 1
    assert "No space left on device; nothing was changed, run init again." in err
    assert tree(workspace) == {".mcp.json": b'{"mcpServers": {}}'}


def test_a_users_hook_entry_without_hooks_is_left_as_it_was(workspace: Path) -> None:
    (workspace / ".claude").mkdir()
    theirs = {"matcher": "Bash", "note": "no hooks key"}
    (workspace / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"PreToolUse": [theirs]}})
    )
    init_twice(workspace, "claude-code")
    settings = json.loads((workspace / ".claude" / "settings.json").read_text())
    assert settings["hooks"]["PreToolUse"][0] == theirs

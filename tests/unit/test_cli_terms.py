"""The CLI speaks its own terms: plain words for a list of files, verbs (not tool names) in
its help and messages, usage errors (exit 2) for what is missing from the command line."""

from __future__ import annotations

import re
from pathlib import Path

from test_cli_people import waymark

from waymark.doors import cli

TOOL_OR_ID = re.compile(r"\bwaymark[._][A-Za-z]")


def _changed_in_turn(root: Path, names: list[str]) -> None:
    for name in names:
        (root / name).write_bytes(b"one\n")
    assert waymark(root, "snapshot", "t1").returncode == 0
    for name in names:
        assert waymark(root, "read", name).returncode == 0
        assert waymark(root, "replace", name, "one", "two").returncode == 0


def test_rewind_takes_plain_paths(workspace: Path) -> None:
    _changed_in_turn(workspace, ["a.py", "b.py", "c.py"])
    done = waymark(workspace, "rewind", "t1", "--paths", "a.py", "b.py")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:2] == ["restored  a.py", "restored  b.py"]
    assert [(workspace / n).read_bytes() for n in ("a.py", "b.py", "c.py")] == [
        b"one\n",
        b"one\n",
        b"two\n",
    ]


def test_a_path_without_backup_names_the_verb_that_lists_them(workspace: Path) -> None:
    _changed_in_turn(workspace, ["a.py"])
    done = waymark(workspace, "rewind", "t1", "--paths", "nope.py")
    assert (done.returncode, done.stderr) == (
        1,
        "error: invalid_params: nope.py has no backup in the history, so there is nothing to "
        "rewind it to; list the turns with `waymark turns`.\n",
    )
    assert (workspace / "a.py").read_bytes() == b"two\n"


def test_no_help_names_a_tool_or_a_command_id() -> None:
    parser = cli._parser()
    for verb in cli.VERBS:
        text = cli._verb_parser(parser, verb).format_help()
        assert not TOOL_OR_ID.search(text), (verb, TOOL_OR_ID.findall(text))


def test_a_missing_argument_is_a_usage_error(workspace: Path) -> None:
    (workspace / "a.txt").write_bytes(b"one\n")
    for argv, missing in [
        (["read"], "PATH"),
        (["rewind"], "PROMPT_ID"),
        (["replace", "a.txt"], "OLD_STRING"),
        (["sed"], "COMMAND"),
    ]:
        done = waymark(workspace, *argv)
        assert done.returncode == 2, (argv, done.stderr)
        assert done.stderr.startswith("usage: ")
        last = done.stderr.splitlines()[-1]
        assert last == f"waymark {argv[0]}: error: argument {missing}: is required", last
    # --params may carry it, by its protocol name.
    assert waymark(workspace, "read", "--params", '{"path": "a.txt"}').returncode == 0


def test_an_unquoted_sed_line_is_told_to_be_quoted(workspace: Path) -> None:
    (workspace / "a.txt").write_bytes(b"a\n")
    done = waymark(workspace, "sed", "sed", "-i", "s/a/b/", "a.txt")
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        "waymark sed: error: takes the whole sed line as one argument: quote it, e.g. "
        "waymark sed \"sed -i 's/old/new/' FILE\""
    )
    assert (workspace / "a.txt").read_bytes() == b"a\n"

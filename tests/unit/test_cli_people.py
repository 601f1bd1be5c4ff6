"""The CLI as a person meets it: one-line errors, human output, exit codes, help, --version.

The malformed-input matrix is generated from the parser itself, so a verb or flag added later
is covered without touching this file.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from waymark.doors import cli

TIMEOUT = 60


def waymark(
    root: Path, *args: str | bytes, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "waymark", *args],
        cwd=root,
        capture_output=True,
        text=True,
        errors="surrogateescape",
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        timeout=TIMEOUT,
        env=os.environ.copy(),
    )


def tree(root: Path) -> dict[str, bytes | None]:
    out: dict[str, bytes | None] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames:
            out[os.path.join(dirpath, name)] = None
        for name in filenames:
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                out[path] = f.read()
    return out


def assert_one_error(code: int, stdout: str, stderr: str, case: object) -> None:
    """Exit 1 or 2, nothing on stdout, and stderr one sentence (after argparse's usage)."""
    assert code in (1, 2), (case, code, stdout, stderr)
    assert "Traceback" not in stderr, (case, stderr)
    assert stdout == "", (case, stdout)
    lines = stderr.splitlines()
    assert lines and lines[-1].strip(), (case, stderr)
    if code == 1:
        assert len(lines) == 1, (case, stderr)
    else:
        assert "error:" in lines[-1], (case, stderr)
        assert lines[0].startswith("usage: "), (case, stderr)
        assert all(line.startswith(" ") for line in lines[1:-1]), (case, stderr)


# --- the malformed-input matrix -------------------------------------------------------------

# Verbs that start a server or need a host's stdin are covered by the subprocess cases below.
LONG_RUNNING = {"serve", "mcp", "hook", "demo"}

JSONISH = ["not json", "{", "", "[1,", "nul\x00byte", "\udcff", '"a string"', "123"]
NUMBERS = ["abc", "", "1.5", "-1", "0", "99999999999999999999999", "1e999", "\udcff"]
FILES = ["", "sub", "missing/none.txt", "nul\x00byte", "\udcff", "../outside.txt"]
FOLDERS = ["", "a.txt", "missing/dir", "nul\x00byte", "\udcff"]
HISTORY_DIRS = ["", "a.txt", "a.txt/under", "nul\x00byte"]
TEXT = ["", " ", "\udcff"]


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _values(verb: str, action: argparse.Action) -> list[str]:
    """Values that are wrong for what ``action`` takes."""
    if action.choices is not None:
        return ["nope", "", "\udcff"]
    name = action.dest.removeprefix("p_")
    if name in ("params", "operations", "edits", "ops") or action.metavar == "JSON":
        return JSONISH
    if name in ("offset", "limit", "count", "expected_replacements", "keep", "max_history_bytes"):
        return NUMBERS
    if name in ("path", "patch", "content_file"):
        return FILES
    if name in ("root", "workspace"):
        return FOLDERS
    if name == "history_dir":
        return HISTORY_DIRS
    return TEXT


def _matrix() -> Iterator[tuple[str, list[str]]]:
    for verb, sub in _subparsers(cli._parser()).items():
        if verb in LONG_RUNNING:
            continue
        positionals = [a for a in sub._actions if not a.option_strings and a.dest != "argv"]
        for action in sub._actions:
            skipped = action.dest in ("argv", "json", "help")
            if action.nargs == 0 or skipped:
                continue
            for value in _values(verb, action):
                if action.option_strings:
                    argv = [verb, action.option_strings[0], value]
                else:
                    # Earlier positionals get a name that exists nowhere, so the value under
                    # test is the only thing that can make the command run.
                    before = positionals[: positionals.index(action)]
                    argv = [verb, *(["missing.txt"] * len(before)), value]
                if verb == "run":
                    argv += ["--", "true"]
                yield verb, argv


def valid(verb: str, flag: str | None, value: str) -> bool:
    """Values right for what they are given to, so the command may succeed with them."""
    if verb == "snapshot":  # any non-blank id, any label
        return flag == "--label" or (bool(value.strip()) and value.isprintable())
    if verb == "sed" and flag is None:  # any line is answered: simulated, or declined
        return True
    # A budget beyond any disk is a budget.
    return flag == "--max-history-bytes" and value.isdigit() and int(value) > 0


@pytest.fixture
def malformed_ws(workspace: Path) -> Path:
    (workspace / "a.txt").write_bytes(b"alpha\nbeta\n")
    (workspace / "sub").mkdir()
    (workspace / "sub" / "b.txt").write_bytes(b"b\n")
    return workspace


def _run_in_process(argv: list[str], stdin: bytes = b"") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    real = sys.stdin, sys.stdout, sys.stderr
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    sys.stdout, sys.stderr = out, err
    try:
        cli.main(argv)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
        if isinstance(exc.code, str):
            print(exc.code, file=err)
    except Exception as exc:  # what a real process would print as a traceback
        code = -1
        print(f"Traceback: {type(exc).__name__}: {exc}", file=err)
    finally:
        sys.stdin, sys.stdout, sys.stderr = real
    return code, out.getvalue(), err.getvalue()


def test_every_flag_of_every_verb_refuses_malformed_values_in_one_line(
    malformed_ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(malformed_ws)
    before = tree(malformed_ws)
    failures: list[str] = []
    count = 0
    for verb, argv in _matrix():
        flag = argv[1] if argv[1].startswith("--") else None
        value = argv[2] if flag else argv[-1]
        count += 1
        code, out, err = _run_in_process(argv)
        if code == 0 and valid(verb, flag, value):
            continue
        try:
            assert_one_error(code, out, err, argv)
        except AssertionError:
            failures.append(f"{argv!r}: exit {code}: {(out + err).strip()[-200:]!r}")
        if tree(malformed_ws) != before:
            failures.append(f"{argv!r}: changed the workspace")
            before = tree(malformed_ws)
    assert count > 300
    assert not failures, f"{len(failures)} of {count} cases:\n" + "\n".join(failures)


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["edit", "a.txt", "--ops", "not json"], "--ops"),
        (["read", "a.txt", "--offset", "abc"], "--offset"),
        (["write", "a.txt", "--params", "{"], "--params"),
        (["rewind", "t1", "--option", "everything"], "--option"),
        (["history", "prune", "--keep", "x"], "--keep"),
    ],
)
def test_bad_values_in_a_real_process_name_the_flag(
    malformed_ws: Path, args: list[str], flag: str
) -> None:
    before = tree(malformed_ws)
    done = waymark(malformed_ws, *args)
    assert_one_error(done.returncode, done.stdout, done.stderr, args)
    assert flag in done.stderr.splitlines()[-1]
    assert tree(malformed_ws) == before


DEEP_JSON = "[" * 20_000 + "]" * 20_000


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["edit", "a.txt", "--ops", DEEP_JSON], "--operations/--ops"),
        (["multi-replace", "a.txt", "--edits", DEEP_JSON], "--edits"),
        (["notebook-edit", "a.ipynb", "--ops", DEEP_JSON], "--operations/--ops"),
        (["write", "a.txt", "--params", DEEP_JSON], "--params"),
        (["write", "a.txt", "--params", "-"], "--params"),
    ],
)
def test_json_nested_too_deep_is_a_usage_error_in_one_line(
    malformed_ws: Path, args: list[str], flag: str
) -> None:
    before = tree(malformed_ws)
    done = waymark(malformed_ws, *args, stdin=DEEP_JSON)
    assert_one_error(done.returncode, done.stdout, done.stderr, args)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1].endswith(
        f"error: argument {flag}: is JSON nested deeper than 64 levels, which no parameter takes"
    )
    assert tree(malformed_ws) == before


def test_invalid_utf8_and_directories_as_files_in_a_real_process(malformed_ws: Path) -> None:
    for args in (
        ["read", os.fsencode("\udcff.txt")],
        ["read", "sub"],
        ["patch", "sub"],
        ["write", "a.txt", "--content-file", "sub"],
        ["write", "a.txt", "--content-file", "missing.txt"],
        ["write", "a.txt", "--params", "-"],
    ):
        done = waymark(malformed_ws, *args, stdin="\x00not json")
        assert_one_error(done.returncode, done.stdout, done.stderr, args)
    assert (malformed_ws / "a.txt").read_bytes() == b"alpha\nbeta\n"


def test_servers_and_hooks_refuse_bad_values_in_one_line(malformed_ws: Path) -> None:
    for args in (
        ["hook", "nope"],
        ["init", "nope"],
        ["init", "claude", "--workspace", "missing/dir"],
        ["serve", "--tcp", "nonsense"],
        ["mcp", "--workspace", "missing/dir"],
    ):
        done = waymark(malformed_ws, *args)
        assert_one_error(done.returncode, done.stdout, done.stderr, args)
    assert not (malformed_ws / "missing").exists()


def test_no_arguments_prints_help_and_exits_2(workspace: Path) -> None:
    done = waymark(workspace)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    out = done.stdout + done.stderr
    assert out.startswith("usage: waymark")
    assert "exit status" in out.lower()


def test_version(workspace: Path) -> None:
    from importlib.metadata import version

    done = waymark(workspace, "--version")
    assert done.returncode == 0
    assert done.stdout == f"waymark {version('waymark-edits')}\n"


def test_every_flag_has_help() -> None:
    missing = []
    parser = cli._parser()
    assert parser.epilog and "exit status" in parser.epilog.lower()
    for verb, sub in {"": parser, **_subparsers(parser)}.items():
        for action in sub._actions:
            if isinstance(action, argparse._SubParsersAction):
                continue
            if not (action.help or "").strip() or action.help == argparse.SUPPRESS:
                missing.append(f"{verb} {'/'.join(action.option_strings) or action.dest}")
    assert not missing, missing


# --- human output ---------------------------------------------------------------------------


def _edit_in_turn(ws: Path, prompt: str, label: str, name: str, data: str) -> None:
    done = waymark(ws, "snapshot", prompt, "--label", label)
    assert done.returncode == 0, done.stderr
    assert waymark(ws, "write", name, "--content", data).returncode == 0


def test_turns_is_a_table_and_json_is_the_whole_result(workspace: Path) -> None:
    _edit_in_turn(workspace, "t1", "first\nsecond line", "a.txt", "one\ntwo\n")
    done = waymark(workspace, "turns")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert re.match(r"ID\s+WHEN\s+LABEL\s+FILES\s+SINCE$", lines[0]), lines
    assert re.match(r"t1\s+\d{4}-\d\d-\d\d \d\d:\d\d\s+first …\s+1\s+\+2 −0$", lines[1]), lines
    assert lines[-1] == (
        "SINCE counts the lines `waymark rewind ID` would undo (try --preview first)."
    )
    assert len(lines) == 3
    whole = json.loads(waymark(workspace, "turns", "--json").stdout)
    assert whole["ok"] is True and whole["turns"][0]["label"] == "first\nsecond line"


def test_snapshot_and_diff_stats_are_short(workspace: Path) -> None:
    done = waymark(workspace, "snapshot", "t1", "--label", "go")
    assert done.stdout == "opened turn t1 (go)\n"
    waymark(workspace, "write", "a.txt", "--content", "one\ntwo\n")
    stats = waymark(workspace, "diff-stats", "t1")
    assert stats.returncode == 0, stats.stderr
    assert stats.stdout == "a.txt  created  +2 −0\n1 file changed, +2 −0 since turn t1\n"


def test_rewind_lists_files_and_the_undo(workspace: Path) -> None:
    (workspace / "keep.txt").write_bytes(b"k\n")
    _edit_in_turn(workspace, "t1", "go", "a.txt", "one\n")
    done = waymark(workspace, "rewind", "t1")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "deleted   a.txt"
    assert re.fullmatch(r"Undo this rewind with: waymark rewind \S+", lines[-1]), lines
    assert not (workspace / "a.txt").exists()


def test_rewind_with_a_conflict_exits_3_and_names_force(workspace: Path) -> None:
    (workspace / "a.txt").write_bytes(b"one\n")
    waymark(workspace, "snapshot", "t1")
    assert waymark(workspace, "read", "a.txt", "--session", "s1").returncode == 0
    assert waymark(workspace, "replace", "a.txt", "one", "two", "--session", "s1").returncode == 0
    (workspace / "a.txt").write_bytes(b"three\n")  # someone else's change, after ours
    done = waymark(workspace, "rewind", "t1", "--session", "s1")
    assert done.returncode == 3, (done.stdout, done.stderr)
    assert "conflict  a.txt" in done.stdout
    assert "--force" in done.stdout
    assert (workspace / "a.txt").read_bytes() == b"three\n"
    as_json = waymark(workspace, "rewind", "t1", "--session", "s1", "--json")
    assert as_json.returncode == 3
    assert json.loads(as_json.stdout)["conflicts"][0]["path"] == "a.txt"


def test_read_required_names_the_cli_verb(workspace: Path) -> None:
    (workspace / "a.txt").write_bytes(b"one\n")
    done = waymark(workspace, "replace", "a.txt", "one", "two")
    assert done.returncode == 1
    assert "waymark read" in done.stderr and "waymark.read" not in done.stderr, done.stderr
    assert len(done.stderr.splitlines()) == 1


def test_unknown_turn_names_the_cli_verb(workspace: Path) -> None:
    done = waymark(workspace, "rewind", "nope")
    assert done.returncode == 1
    assert "waymark turns" in done.stderr and "waymark.turns" not in done.stderr, done.stderr


def test_param_errors_name_the_flag(workspace: Path) -> None:
    (workspace / "a.txt").write_bytes(b"one\n")
    done = waymark(workspace, "read", "a.txt", "--offset", "0")
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1].endswith("argument --offset: must be 1 or more, not 0")
    waymark(workspace, "read", "a.txt")
    empty = waymark(workspace, "replace", "a.txt", "", "x")
    assert empty.returncode == 1
    assert empty.stderr == (
        "error: invalid_params: `OLD_STRING` is empty; to create a file or replace all of its "
        "content, use `waymark write PATH`.\n"
    )
    run = waymark(workspace, "run", "--prompt-id", " ", "--", "true")
    assert run.returncode == 1
    assert "`--prompt-id`" in run.stderr and "promptId" not in run.stderr, run.stderr


# --- turn labels ----------------------------------------------------------------------------


def test_run_labels_a_multi_line_command_with_its_first_line(workspace: Path) -> None:
    script = "echo one > a.txt\necho two >> a.txt\n"
    done = waymark(workspace, "run", "--prompt-id", "r1", "--", "sh", "-c", script)
    assert done.returncode == 0, done.stderr
    turns: list[dict[str, Any]] = json.loads(waymark(workspace, "turns", "--json").stdout)["turns"]
    assert turns[0]["label"] == "sh -c echo one > a.txt …"
    long = "x" * 500
    # A run that changes no file records no turn: this one writes b.txt.
    waymark(workspace, "run", "--prompt-id", "r2", "--", "sh", "-c", f"echo {long} > b.txt")
    label = json.loads(waymark(workspace, "turns", "--json").stdout)["turns"][1]["label"]
    assert len(label) <= 80 and label.endswith("…")


def test_history_show_keeps_one_line_per_turn_for_any_stored_label(workspace: Path) -> None:
    waymark(workspace, "snapshot", "t1", "--label", "one\ntwo\r\nthree\x1b[2J\x07")
    waymark(workspace, "snapshot", "t2", "--label", "plain")
    done = waymark(workspace, "history", "show")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 3, lines
    assert lines[0].endswith("t1  one …")
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout
    assert lines[1].endswith("t2  plain")


# --- the demo -------------------------------------------------------------------------------


def test_demo_says_what_happened(workspace: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "waymark", "demo"],
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
        env=os.environ.copy(),
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    declined = done.stdout.split("cannot prove equal to GNU sed", 1)[1].split("▸", 1)[0]
    assert "simulated: False" in declined, declined
    assert "claim failed" not in done.stdout

"""Unaddressed ``s`` scripts on an ASCII file: indenting, appending, stripping trailing runs
and replacing a fixed string everywhere run on its bytes (``asciibytes.py``), the rest on the
decoded text. Each shape runs against the real GNU sed, and against the ``str`` path, whole
and in pieces of a few bytes (a piece boundary at nearly every line)."""

from __future__ import annotations

import pytest
from sed_oracle import gnu_args_for_line, gnu_sed_in_place

from waymark.engine.sed import SedDecline, apply_files, parse_command_line, pieces
from waymark.engine.sed.asciibytes import runs_on_ascii
from waymark.engine.sed.simulate import apply_commands_to_ascii, apply_commands_to_buffer

INPUTS = [
    b"getUserById(x) getUserById(y)\nuser user\n  trailing  \t\nx = 1\n",
    b"aaa\n\nbab\nab ab ab",
    b"",
    b"\n",
    b"no newline at the end",
    b"os sys os\nimport os, sys\r\nimport sys\r\n\r\n",
    b'"version": "1.2.3",\n  "version": "10.20.30"\n"version": "x"\n',
    b"foo\tbar \x0b\x0c\r\nFOO Foo fOo\n\x01\x7f end\n",
]

SCRIPTS = [
    # Literal and regex substitutions: the str path.
    "s/getUserById/fetchUserById/g",
    "s/user/account/g",
    "s/a/b/g",
    "s/ab/a/g",
    "s/zzz/y/g",
    "s/os/pathlib/g;s/sys/io/g",
    "s/a/é/g",
    "s/\\./!/g",
    "s/a\\*/X/g",
    # Fixed strings everywhere: the bytes pattern's sub.
    "s/aa/b/g",
    "s/ab/ba/g;s/ba/x/g",
    "s/a\\.b/X/g;s/1\\.2/one.two/g",
    "s/\\//|/g;s/ /\\//g",
    "s/o/\\n/g;s/s/S/g",
    "s|os|&&|g",
    "s/user/u\\tv/g",
    "s/sys/é/g",
    # First match per line (the greedy two-matches check).
    "s/getUserById/fetch/",
    "s/version/v/",
    "s/os/pathlib/;s/sys/io/",
    "s/a/b/",
    # Anchors and trailing runs: bytes methods.
    "s/^/    /",
    "s/$/;/",
    "s/^/> /;s/$/ </",
    "s/[[:space:]]*$//",
    "s/[ \\t]\\{2,\\}$/!/",
    "s/[ é]*$//",
    '-E s/"version": "[0-9]+\\.[0-9]+\\.[0-9]+"/"version": "2.0.0"/',
    "s/\\(o\\)s/[\\1]/g",
    "s/[[:alpha:]]\\+/W/g",
    "s/\\bo/0/g",
    "s/o*//g",
    "s/^\\(.*\\)=\\(.*\\)$/\\2=\\1/",
    "s/foo/bar/Ig",
    "s/x*/-/g",
    "s/[^ā]/Y/g",
    "s/ā/Y/g",
    # Handed to the str path part way: case conversion, non-ASCII text, an Nth match.
    "s/a/b/g;s/b/\\U&/g",
    "s/a/é/;s/b/c/g",
    "s/a/X/2",
    "s/o/\\n/g",
    "s/ /\\n/;s/a/A/g",
]


def _line(script: str) -> str:
    if script.startswith("-E "):
        return f"sed -i -E '{script[3:]}' f"
    return f"sed -i '{script}' f"


@pytest.mark.parametrize("chunk", [None, 3])
@pytest.mark.parametrize("script", SCRIPTS)
def test_ascii_file_matches_gnu_sed(
    script: str, chunk: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if chunk is not None:
        monkeypatch.setattr(pieces, "PIECE_SIZE", chunk)
    line = _line(script)
    expected = gnu_sed_in_place(gnu_args_for_line(line), INPUTS)
    assert expected is not None
    ours = apply_files(parse_command_line(line).script, INPUTS)
    for data, mine, theirs in zip(INPUTS, ours, expected, strict=True):
        assert mine == theirs, f"input {data!r}"


@pytest.mark.parametrize("script", SCRIPTS)
def test_bytes_equal_the_str_path(script: str) -> None:
    commands = parse_command_line(_line(script)).script.commands
    assert commands is not None
    for data in INPUTS:
        body = data.removesuffix(b"\n")
        try:
            reference = apply_commands_to_buffer(commands, body.decode("ascii"))
        except SedDecline:
            continue
        if any(c.replacement.may_insert_newline for c in commands[:-1]):
            continue  # the per-line loop's job, never the whole buffer's
        assert apply_commands_to_ascii(commands, body) == reference.encode("utf-8"), data


def test_line_shaped_scripts_run_on_bytes() -> None:
    def on_bytes(script: str) -> bool:
        commands = parse_command_line(_line(script)).script.commands
        assert commands is not None
        return all(runs_on_ascii(c) for c in commands)

    shaped = ("s/^/    /", "s/$/;/", "s/^/> /;s/$/ </", "s/[[:space:]]*$//", "s/ *$/!/")
    fixed = ("s/a/b/g", "s/a\\.b/c/g", "s/a/b\\nc/g;s/c/d/g", "s/^/x/;s/os/pathlib/g")
    for script in shaped + fixed:
        assert on_bytes(script), script
    others = ("s/a/b/", "s/a./b/g", "s/a/b/Ig", "s/a/&/g", "s/a/b/2g", "s/a/é/g", "s/é/a/g")
    for script in ("s/^/é/", "s/$/&/", "s/^/x/2", "s/^a/b/", "s/x*$//;s/a/b/", *others):
        assert not on_bytes(script), script

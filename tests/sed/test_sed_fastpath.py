"""The whole-buffer program path (``waymark.engine.sed.fastpath``): one addressed ``d``, ``-n … p``,
``s`` or ``{s…}`` block. Every shape runs against the real GNU sed over several files in one
``sed -i`` run, and against the line-by-line cycle (``execute.run_file``) file by file, so a
difference from either is caught; the bench shapes must actually take the fast path.
"""

from __future__ import annotations

import random
import shlex

import pytest
from sed_fuzzgen import RandomChooser, _command
from sed_oracle import gnu_args_for_line, gnu_sed_in_place

from waymark.engine.sed import SedDecline, apply_files, parse_command_line, pieces
from waymark.engine.sed.execute import run_file
from waymark.engine.sed.fastpath import run_fast
from waymark.engine.sed.fastprogram import fast_program
from waymark.engine.sed.simulate import decode

INPUTS = [
    b"a\nb\nc\nd\ne\n",
    b"foo\nbar\nfoo bar\nbaz\n",
    b"",
    b"x\n",
    b"x",
    b"one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n",
    b"Foo FOO foo\n\n  indented\nlast\n",
    # CRLF: the \r is part of the line.
    b"import os\r\nimport sys\r\nx = os.path\r\n\r\nuser\r\n",
    # No final newline.
    b"import os\nuser\nTODO user\nfoo\nlast user",
    b"\n\n\n",
    # An empty line kept before an unterminated last line that goes: it keeps its newline.
    b"\nimport os",
    b"x\n\nfoo",
    b"a\n\n",
    b"import sys\nimport os\n# TODO\n",
    # Non-ASCII last: I-flag and locale-class regexes may decline it (see the test).
    b"caf\xc3\xa9\nna\xc3\xafve foo\nFOO bar\n\xc3\xa9t\xc3\xa9 foo\n",
]

FAST = [
    # d and !d with every address kind.
    "sed -i '/o/d' f",
    "sed -i '/^$/d' f",
    "sed -i '/o/!d' f",
    "sed -i 'd' f",
    "sed -i '2d' f",
    "sed -i '9d' f",
    "sed -i '$d' f",
    "sed -i '$!d' f",
    "sed -i '2,3d' f",
    "sed -i '2,3!d' f",
    "sed -i '4,2d' f",
    "sed -i '3,99d' f",
    "sed -i '2,$d' f",
    "sed -i '0,/o/d' f",
    "sed -i '0,/nomatch/d' f",
    "sed -i '0,/o/!d' f",
    "sed -i '/b/,/d/d' f",
    "sed -i '/o/,/nomatch/d' f",
    "sed -i '/o/,/o/d' f",
    "sed -i '/o/,3d' f",
    "sed -i '/o/,1d' f",
    "sed -i '2,/o/d' f",
    "sed -i '/o/,+1d' f",
    "sed -i '/o/,+0d' f",
    "sed -i '2,+2d' f",
    "sed -i '/o/,~2d' f",
    "sed -i '2,~4d' f",
    "sed -i '4,~4d' f",
    "sed -i '3,~0d' f",
    "sed -i '1~2d' f",
    "sed -i '0~3d' f",
    "sed -i '2~3!d' f",
    "sed -i '1~1d' f",
    "sed -i '2~1d' f",
    "sed -i '2~0d' f",
    "sed -i '1~3,+1d' f",
    "sed -i '3,1~2d' f",
    "sed -i '2,0~4d' f",
    "sed -i '/o/,2~2d' f",
    "sed -i '/o/,$d' f",
    "sed -i '$,/x/d' f",
    "sed -i '$,2d' f",
    "sed -i '/FOO/Id' f",
    "sed -i '/foo/I,+1d' f",
    "sed -i '/TODO/d' f",
    "sed -i '/^import/d' f",
    "sed -i '/^import/!d' f",
    "sed -i '/s$/d' f",
    "sed -i '/\\r$/d' f",
    "sed -i '/x*/d' f",
    "sed -i '/^/d' f",
    "sed -i '/$/!d' f",
    "sed -i '/\\bfoo\\b/d' f",
    "sed -i '/[[:alpha:]]o/d' f",
    "sed -i '\\,o,d' f",
    "sed -i -E '/o+$/d' f",
    "sed -i '/o \\|ba/d' f",
    # A class escaping a code point over U+00FF (\u0101 in its re source): bytes patterns
    # cannot spell it, so an ASCII file runs as str.
    "sed -i '/[^ā]/d' f",
    "sed -i '/[ā]/!d' f",
    "sed -i '/[^ā]x/s/[^ā]/Y/g' f",
    # -n with p.
    "sed -i -n '/o/p' f",
    "sed -i -n '/o/!p' f",
    "sed -i -n 'p' f",
    "sed -i -n '$p' f",
    "sed -i -n '$!p' f",
    "sed -i -n '2,3p' f",
    "sed -i -n '/b/,/d/p' f",
    "sed -i -n '0,/o/p' f",
    "sed -i -n '1~2p' f",
    "sed -i -n '/foo/Ip' f",
    "sed -i -n '/^import/p' f",
    # s on the selected lines.
    "sed -i '2s/o/0/' f",
    "sed -i '2,$s/o/0/g' f",
    "sed -i '2,$s/user/account/g' f",
    "sed -i '/o/s/o/0/2' f",
    "sed -i '/o/!s/a/A/' f",
    "sed -i '$s/$/ END/' f",
    "sed -i '$!s/$/;/' f",
    "sed -i '1,3s/^/# /' f",
    "sed -i '/foo/s//X/g' f",
    "sed -i '0,/o/s//0/' f",
    "sed -i '/^import/{s/os/pathlib/;s/sys/io/}' f",
    "sed -i '/^import/!{s/o/0/g}' f",
    "sed -i '2,3{s/o/0/;s/e/E/g}' f",
    "sed -i '/o/,/a/{s/o/0/;s/e/E/g}' f",
    "sed -i '2,$s/o/\\n/' f",
    "sed -i '/foo/Is/FOO/X/Ig' f",
    "sed -i '/e/s/x*/-/g' f",
    "sed -i '1~2s/x*/-/2' f",
    "sed -i '$!s/[[:space:]]*$//' f",
    "sed -i '/^$/s/^/EMPTY/' f",
    "sed -i '/ /s/ *$//' f",
    "sed -i '/a/,/c/s/$/;/' f",
    "sed -i '2,+1s/./X/g' f",
    "sed -i -E '/o+/s/(o+)/[\\1]/' f",
    "sed -i '/o/s/.*/\\U&/' f",
    "sed -i '/o/s/\\r$//' f",
    "sed -i '/\\w/s/\\w\\+/W/g' f",
    "sed -i '3,1s/./X/' f",
    "sed -i '0,/o/{s/o/0/g}' f",
    # /^literal/ and fixed strings: one replace per selected line, newlines written too.
    "sed -i '/^import/{s/o/0/g;s/s/S/}' f",
    "sed -i '/^import/s/o/\\n/g' f",
    "sed -i '/^import/{s/o/\\n/;s/s/S/g}' f",
    "sed -i '/^fo/s/fo/FO/' f",
    "sed -i '/^foo/s/o b/X/g' f",
    "sed -i '/^x/s/x/y/2' f",
    # i, a and c on one line per selection.
    "sed -i '1i\\# header' f",
    "sed -i '$a\\# footer' f",
    "sed -i '/o/a\\after' f",
    "sed -i '/o/i\\before' f",
    "sed -i '/o/c\\changed' f",
    "sed -i '/^import/a\\import re' f",
    "sed -i '2c\\two' f",
    "sed -i '$c\\last' f",
    "sed -i '$i X' f",
    "sed -i '9i X' f",
    "sed -i '1~2a X' f",
    "sed -i '0~3c X' f",
    "sed -i '/FOO/Ia X' f",
    "sed -i -e '/o/a\\' -e 'x' f",
    # y.
    "sed -i 'y/abc/xyz/' f",
    "sed -i '/o/y/o/0/' f",
    "sed -i '2,3y/ab/AB/' f",
    "sed -i '/o/!y/o/0/' f",
    "sed -i 'y/o/\\n/' f",
    "sed -i 'y/\\n/X/' f",
    "sed -i 'y/aé/éa/' f",
    # Several commands, run one after the other over the text.
    "sed -i '/o/d;s/a/b/' f",
    "sed -i 's/o/0/;/0/d' f",
    "sed -i '3s/a/A/;2d' f",
    "sed -i -e '/foo/d' -e '/bar/d' f",
    "sed -i '/^$/d;s/^/> /' f",
    "sed -i 's/a/b/;$a\\end' f",
    "sed -i '/o/d;/a/i X' f",
    "sed -i '1,2{s/o/0/};/0/d' f",
    "sed -i 'y/abc/ABC/;/A/d' f",
    "sed -i '/b/,/d/s/^/#/;/#/d' f",
    "sed -i '2,$s/o/0/;$!s/a/A/;/0/c X' f",
]

# The fast path declines these shapes for some inputs (and the cycle decides).
FALLBACK_PROGRAMS = [
    # A newline inserted on several selected lines, or before a later command.
    "sed -i '/o/s/o/\\n/' f",
    "sed -i '/o/{s/o/\\n/;s/a/b/}' f",
    "sed -i '2,${s/o/\\n/;s/\\n/+/}' f",
]

NOT_FAST = [
    "sed -i 's/o/0/' f",
    "sed -i '/o/p' f",
    "sed -i -n '/o/d' f",
    "sed -i '/o/s/o/0/p' f",
    "sed -i '2{s/o/0/;d}' f",
    "sed -i '/o/{p}' f",
    "sed -i '/o/{2s/o/0/}' f",
    "sed -i '/o/{s/o/0/};p' f",
    # A line number, $ or range after a d: the input's numbering is no longer the text's.
    "sed -i '2d;3s/a/A/' f",
    "sed -i '/o/d;$a\\end' f",
    "sed -i '/o/d;/a/,/b/s/x/y/' f",
    # A line split, or a text written, before a later command.
    "sed -i '/o/s/o/\\n/;/a/d' f",
    "sed -i -e '1i X' -e 's/a/b/' f",
    "sed -i 'y/o/\\n/;s/a/b/' f",
    # i, a, c on a range, negated, or on every line.
    "sed -i '/a/,/b/i X' f",
    "sed -i '$!a X' f",
    "sed -i 'a X' f",
    "sed -i '1~1i X' f",
    "sed -i '/o/,/a/c X' f",
    "sed -i '2{}' f",
]


def _gnu_and_ours(line: str, inputs: list[bytes]) -> tuple[list[bytes], list[bytes]]:
    expected = gnu_sed_in_place(gnu_args_for_line(line), inputs)
    assert expected is not None, "GNU sed rejected a line we simulate"
    ours = apply_files(parse_command_line(line).script, inputs)
    return expected, [data if new is None else new for data, new in zip(inputs, ours, strict=True)]


@pytest.mark.parametrize("line", FAST + FALLBACK_PROGRAMS + NOT_FAST)
def test_program_matches_gnu_sed_on_several_files(line: str) -> None:
    inputs = INPUTS
    try:
        expected, ours = _gnu_and_ours(line, inputs)
    except SedDecline as decline:
        # Only the non-ASCII input may be refused (I-flag / locale-class regexes).
        assert "non-ASCII" in decline.reason, decline.reason
        inputs = INPUTS[:-1]
        expected, ours = _gnu_and_ours(line, inputs)
    for data, mine, theirs in zip(inputs, ours, expected, strict=True):
        assert mine == theirs, f"input {data!r}"


@pytest.mark.parametrize("chunk", [None, 1, 7])
@pytest.mark.parametrize("line", FAST + FALLBACK_PROGRAMS)
def test_fast_path_equals_the_cycle(
    line: str, chunk: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if chunk is not None:
        # Line ranges are substituted in pieces of about this many characters: tiny here.
        monkeypatch.setattr(pieces, "PIECE_SIZE", chunk)
    script = parse_command_line(line).script
    program = fast_program(script)
    assert program is not None, "not taken for a fast shape"
    for data in INPUTS:
        text = decode(data)
        ours = run_fast(program, text)
        try:
            cycle = run_file(script, data).data
        except SedDecline:
            continue
        if line in FAST and data.isascii():
            assert ours is not None, f"fell back on {data!r}"
        if ours is not None:
            assert ours.encode("utf-8") == cycle, f"input {data!r}"
        if data.isascii() and program.runs_on_bytes:
            # An ASCII file runs as its bytes: the same answer, or the same fallback.
            as_bytes = run_fast(program, data)
            assert as_bytes == (None if ours is None else ours.encode()), f"bytes {data!r}"


@pytest.mark.parametrize("line", NOT_FAST)
def test_other_programs_are_not_fast_shapes(line: str) -> None:
    assert fast_program(parse_command_line(line).script) is None


def test_bench_program_shapes_take_the_fast_path() -> None:
    from bench.sed_speed import SCRIPTS, _sample

    data = _sample(64 * 1024)
    text = decode(data)
    for label, script_text in SCRIPTS:
        extended = script_text.startswith("-E ")
        *options, body = script_text.split(" ", 1) if extended else [script_text]
        script = parse_command_line(f"sed -i {' '.join(options)} {shlex.quote(body)} f").script
        program = fast_program(script)
        if script.commands is not None:
            continue  # unaddressed s: the older whole-buffer path
        assert program is not None, label
        new = run_fast(program, text)
        assert new is not None, label
        assert new.encode("utf-8") == run_file(script, data).data, label


_REGEXES = ["o", "^a", "b$", "^$", "x*", "foo", "Foo", "[0-9]", "^import", "TODO", "\\r$", "a.b"]
_PIECES = ["a", "b", "o", "foo", "Foo", "x", "1", " ", "import ", "TODO", "\t", "é", "ab", "\r"]


def _random_address(rng: random.Random) -> str:
    kind = rng.randrange(6)
    if kind == 0:
        return str(rng.randrange(1, 8))
    if kind == 1:
        return "$"
    if kind == 2:
        return "/" + rng.choice(_REGEXES) + "/" + rng.choice(["", "", "I"])
    if kind == 3:
        return f"{rng.randrange(0, 4)}~{rng.randrange(0, 4)}"
    start = rng.choice(["1", "2", "3", "5", "/o/", "/^a/", "/foo/I", "0", "1~2", "2~0", "$"])
    end = rng.choice(
        ["3", "4", "7", "$", "/b/", "+1", "+0", "+3", "1", "0", "/^$/", "~2", "~3", "~0", "2~3"]
    )
    if start == "0":
        end = "/" + rng.choice(_REGEXES) + "/"
    return start + "," + end


def _random_line(rng: random.Random) -> str:
    if rng.randrange(3) == 0:
        # Several commands, run one after the other; a text command only last (it takes
        # the rest of its -e).
        parts = [_random_command(rng, text=False) for _ in range(rng.randrange(2, 4))]
        if rng.randrange(3) == 0:
            parts.append(_random_command(rng, text=True))
        return "sed -i " + " ".join("-e " + shlex.quote(part) for part in parts) + " f"
    if rng.randrange(8) == 0:
        return f"sed -i -n {shlex.quote(_random_address(rng) + _negate(rng) + 'p')} f"
    return f"sed -i {shlex.quote(_random_command(rng, text=rng.randrange(5) == 0))} f"


def _negate(rng: random.Random) -> str:
    return "!" if rng.randrange(4) == 0 else ""


def _random_command(rng: random.Random, text: bool) -> str:
    chooser = RandomChooser(rng.randrange(1 << 30))
    address = _random_address(rng)
    if text:
        return address + _negate(rng) + rng.choice(["i", "a", "c"]) + " " + rng.choice(_PIECES)
    kind = rng.randrange(4)
    if kind == 0:
        return address + _negate(rng) + "d"
    if kind == 1:
        return address + _negate(rng) + _command(chooser, False)
    if kind == 2:
        source, target = rng.sample(["a", "o", "b", "x", "\\n", "F"], 2)
        return address + _negate(rng) + f"y/{source}/{target}/"
    block = ";".join(_command(chooser, False) for _ in range(rng.randrange(1, 3)))
    return address + _negate(rng) + "{" + block + "}"


def _random_input(rng: random.Random) -> bytes:
    lines = [
        "".join(rng.choice(_PIECES) for _ in range(rng.randrange(0, 5)))
        for _ in range(rng.randrange(0, 12))
    ]
    eol = rng.choice(["\n", "\n", "\r\n"])
    text = eol.join(lines)
    if lines and rng.randrange(4):
        text += eol
    return text.encode("utf-8")


@pytest.mark.parametrize("chunk", [None, 5])
def test_random_fast_shapes_match_gnu_sed(
    chunk: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if chunk is not None:
        monkeypatch.setattr(pieces, "PIECE_SIZE", chunk)
    rng = random.Random(1609 if chunk is None else 1610)
    simulated = fast = 0
    for _ in range(400):
        line = _random_line(rng)
        inputs = [_random_input(rng) for _ in range(4)]
        try:
            script = parse_command_line(line).script
        except SedDecline:
            continue
        program = fast_program(script)
        if program is not None:
            fast += sum(run_fast(program, decode(data)) is not None for data in inputs)
        try:
            ours = apply_files(script, inputs)
        except SedDecline as decline:
            assert decline.reason
            continue
        simulated += 1
        expected = gnu_sed_in_place(gnu_args_for_line(line), inputs)
        mine = [data if new is None else new for data, new in zip(inputs, ours, strict=True)]
        assert mine == expected, f"{line!r} on {inputs!r}"
    assert simulated > 200
    assert fast > 600

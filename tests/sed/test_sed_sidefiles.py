"""Differential cases for the files a script reads (``r``, ``R``) and writes (``w``, ``W``, the
``s///w`` flag): GNU sed runs each line over all the inputs as several files in a folder that
holds the ``r`` files; every operand and every ``w`` file must come out byte-identical."""

from __future__ import annotations

import random

import pytest
from sed_oracle import gnu_args_for_line, gnu_sed_with_files

from waymark.engine.sed import SedDecline, apply_files, apply_with_files, parse_command_line

INPUTS = [
    b"a\nb\nc",
    b"foo\nbar\nfoo bar\n",
    b"",
    b"x\n",
    b"caf\xc3\xa9\nfoo\n",
]
READS: dict[str, bytes | None] = {
    "snip": b"S1\nS2\n",
    "open": b"O1\nO2",
    "crlf": b"C1\r\nC2\r\n",
    "empty": b"",
    "missing": None,
}

LINES = [
    "sed -i 'r snip' f",
    "sed -i 'r open' f",
    "sed -i 'r missing' f",
    "sed -i 'r empty' f",
    "sed -i '/foo/r snip' f",
    "sed -i '$r open' f",
    "sed -i '1r crlf' f",
    "sed -i 'r snip\nr open' f",
    "sed -i '1{r open\nN}' f",
    "sed -i 'r open\nn' f",
    "sed -i 'r snip\nq' f",
    "sed -i 'r snip\nQ' f",
    "sed -i '2r open\n2d' f",
    "sed -i 'a text\nr open' f",
    "sed -i '$!N;r snip\nP;D' f",
    "sed -i 'R snip' f",
    "sed -i 'R open' f",
    "sed -i 'R missing' f",
    "sed -i 'R crlf\nR open' f",
    "sed -i -n 'R snip' f",
    "sed -i 'w out' f",
    "sed -i '/foo/w out' f",
    "sed -i '/nothing/w out' f",
    "sed -i '$w out' f",
    "sed -i 'N;W out' f",
    "sed -i '$!d;W out' f",
    "sed -i 'w out\ns/o/0/w out' f",
    "sed -i 's/o/0/gw out' f",
    "sed -i 's/o/0/w out' f",
    "sed -i 's/foo/bar/pw out' f",
    "sed -i -n 's/o/0/w out' f",
    "sed -i -e 's/o/0/w out' -e 'p' f",
    "sed -i '/o/{w out\n}' f",
    "sed -i '1w  spaced name ; x}' f",
    "sed -i 'w out\nq' f",
    "sed -i '2q;w out' f",
    "sed -i.bak 'w out' f",
    "sed -i 'w out\nw other' f",
    "sed -i 'r snip\nw out' f",
    "sed -i 'G;w out' f",
]


@pytest.mark.parametrize("line", LINES)
def test_side_files_match_gnu(line: str) -> None:
    script = parse_command_line(line).script
    for inputs in (INPUTS[:1], INPUTS):
        ours = apply_with_files(script, inputs, READS)
        expected = gnu_sed_with_files(gnu_args_for_line(line), inputs, READS, script.writes)
        assert expected is not None, line
        files = [data if new is None else new for data, new in zip(inputs, ours.files, strict=True)]
        assert (files, ours.writes) == expected, line


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("sed -i 'w /dev/stdout' f", "w /dev/stdout writes to sed's standard output"),
        ("sed -i 's/a/b/w /dev/stderr' f", "w /dev/stderr writes to sed's standard error"),
        ("sed -i 'r /dev/stdin' f", "r /dev/stdin reads sed's standard input"),
        ("sed -i 'r' f", "'r' needs a file name: GNU sed rejects the script"),
        ("sed -i 's/a/b/w' f", "'w' needs a file name: GNU sed rejects the script"),
    ],
)
def test_declined_names(line: str, reason: str) -> None:
    with pytest.raises(SedDecline) as caught:
        parse_command_line(line)
    assert caught.value.reason.startswith(reason)


def test_gnu_rejects_a_missing_name() -> None:
    assert gnu_sed_with_files(["-i", "r"], [b"a\n"], {}, ()) is None
    assert gnu_sed_with_files(["-i", "s/a/b/w"], [b"a\n"], {}, ()) is None


def test_apply_files_does_not_run_side_scripts() -> None:
    # Without the files' bytes the answer would be wrong, not declined by the caller.
    with pytest.raises(SedDecline):
        apply_files(parse_command_line("sed -i 's/a/b/w out' f").script, [b"a\n"])


def test_side_script_with_a_glob_is_declined() -> None:
    # The w file's bytes follow the order of the files, which is the shell's collation.
    with pytest.raises(SedDecline, match="sort order"):
        parse_command_line("sed -i 'w out' *.txt")


def test_a_huge_r_on_every_line_is_declined() -> None:
    script = parse_command_line("sed -i 'r big' f").script
    with pytest.raises(SedDecline, match="far beyond the size of its input"):
        apply_with_files(script, [b"a\n" * 10_000], {"big": b"x" * 1_000})


_ADDRESSES = ["", "1", "2", "$", "/o/", "/a/,/c/", "2,$", "1~2", "$!", "/o/!", "0,/o/"]
_COMMANDS = [
    *("r snip", "r open", "r missing", "r empty", "R snip", "R open", "R crlf"),
    *("w out", "w other", "W out", "s/o/0/w out", "s/o/0/gpw other"),
    *("p", "n", "N", "$!N", "D", "P", "d", "q", "Q", "G", "h", "x"),
    *("a txt", "i txt", "c txt", "=", "s/\\n/-/"),
]


@pytest.mark.parametrize("seed", range(4))
def test_random_programs_with_side_files_match_gnu(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(40):
        commands = [
            rng.choice(_ADDRESSES) + rng.choice(_COMMANDS) for _ in range(rng.randint(1, 4))
        ]
        line = f"sed -i {'-n ' if rng.random() < 0.2 else ''}'{chr(10).join(commands)}' f"
        inputs = rng.sample(INPUTS, rng.randint(1, 3))
        try:
            script = parse_command_line(line).script
            ours = apply_with_files(script, inputs, READS)
        except SedDecline:
            continue
        expected = gnu_sed_with_files(gnu_args_for_line(line), inputs, READS, script.writes)
        files = [data if new is None else new for data, new in zip(inputs, ours.files, strict=True)]
        assert (files, ours.writes) == expected, (line, inputs)

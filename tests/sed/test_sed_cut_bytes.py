"""``d`` and ``c`` on the lines a regex selects, on an ASCII file run as its bytes
(``fastpath._cut_regex_lines``: each kept stretch is the split piece with the cut line's
start stripped off its end). Against the real GNU sed on inputs built for the edges (the
first and the last line cut, no final newline, CRLF, every line cut, several matches on
one line, control bytes), and against the same program run on the decoded text.
"""

from __future__ import annotations

import pytest
from sed_oracle import gnu_args_for_line, gnu_sed_in_place

from waymark.engine.sed import SedDecline, apply_files, parse_command_line, pieces
from waymark.engine.sed.fastpath import run_fast
from waymark.engine.sed.fastprogram import fast_program

INPUTS = [
    b"",
    b"\n",
    b"TODO",
    b"TODO\n",
    b"x TODO y\nkeep\n",
    b"keep\nx TODO y",
    b"keep\n\nx TODO\n",
    b"TODO\nTODO\nTODO\n",
    b"a\nTODO TODO\nb\nTODOTODO\nc",
    b"a\r\nTODO\r\nb\r\n",
    b"\x01\x7f TODO\t\r\n\x00keep\x1f\n",
    b"keep\nkeep\n",
    b"\n\nTODO\n\n",
    # The cut line starts with bytes a narrower strip would stop at.
    b"keep\n\r\rx TODO\n",
    b"\r\x00TODO",
]

LINES = [
    "sed -i '/TODO/d' f",
    "sed -i '/TODO/c\\# done' f",
    "sed -i '/TODO/c X' f",
    "sed -i '/O\\+D/d' f",
    "sed -i -E '/T.D(O|X)/d' f",
    "sed -i '/^TODO/c X' f",
    "sed -i '/TODO$/d' f",
    "sed -i '/keep/!d' f",
    "sed -i -n '/keep/!p' f",
    "sed -i '/TODO/d;s/keep/KEEP/g' f",
]


@pytest.mark.parametrize("size", [None, 1, 6])
@pytest.mark.parametrize("line", LINES)
def test_matches_gnu_sed(line: str, size: int | None, monkeypatch: pytest.MonkeyPatch) -> None:
    if size is not None:
        monkeypatch.setattr(pieces, "PIECE_SIZE", size)
    ours = apply_files(parse_command_line(line).script, INPUTS)
    expected = gnu_sed_in_place(gnu_args_for_line(line), INPUTS)
    assert expected is not None
    for data, mine, theirs in zip(INPUTS, ours, expected, strict=True):
        assert mine == theirs, f"{line!r} on {data!r}"


@pytest.mark.parametrize("line", LINES)
def test_bytes_equal_the_decoded_text(line: str) -> None:
    program = fast_program(parse_command_line(line).script)
    assert program is not None and program.runs_on_bytes
    for data in INPUTS:
        try:
            as_text = run_fast(program, data.decode("ascii"))
        except SedDecline:
            continue
        assert run_fast(program, data) == (None if as_text is None else as_text.encode())

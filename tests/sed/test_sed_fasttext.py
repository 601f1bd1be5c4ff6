"""``a`` and ``i`` on lines a fixed string selects (``waymark.engine.sed.fasttext``): split
and replace instead of a match per line. Each shape runs against the real GNU sed on inputs
built to hit its edges (consecutive selected lines, the first and the last line, no final
newline, CRLF, several occurrences on one line, a 1-byte piece size), as ``str`` and as
ASCII ``bytes``; the shapes it must not take are checked to fall through to the other paths.
"""

from __future__ import annotations

import random
import shlex

import pytest
from sed_oracle import gnu_args_for_line, gnu_sed_in_place

from waymark.engine.sed import SedDecline, apply_files, parse_command_line, pieces
from waymark.engine.sed.fastprogram import fast_program
from waymark.engine.sed.fasttext import write_at_literal
from waymark.engine.sed.simulate import decode

INPUTS = [
    b"",
    b"\n",
    b"import os\n",
    b"import os",
    b"import os\nimport sys\n",
    b"import os\nimport sys",
    b"x\nimport os\nimport sys\nimport re\ny\n",
    b"x\nimport os\n\nimport sys\ny",
    b"a import b\nimport\nimportimport\n import\n",
    b"TODO TODO\nx TODO\nTODO",
    b"TODO\n\nTODO\nTODOTODO\n",
    b"x\nTODO y TODO",
    b"import os\r\nTODO\r\nimport sys\r\n",
    b"\nimport",
    b"import\n\n\n",
    # Non-ASCII: the str path.
    b"caf\xc3\xa9 import\nimport \xc3\xa9\nTODO \xc3\xa9\n\xc3\xa9TODO",
    # Not UTF-8: declined, never a wrong answer.
    b"import \xff\nTODO\n",
]

TAKEN = [
    "sed -i '/^import/a\\import re' f",
    "sed -i '/^import/a X' f",
    "sed -i '/^import/i\\# before' f",
    "sed -i '/^import/i X' f",
    "sed -i '/^TODO/a X' f",
    "sed -i '/TODO/a\\# after' f",
    "sed -i '/TODO/a X' f",
    "sed -i '/import/a X' f",
    "sed -i '/^import/a\\two\\\nlines' f",
    "sed -i '/TODO/a\\two\\\nlines' f",
    "sed -i '/^import/i\\two\\\nlines' f",
    "sed -i 's/os/OS/;/^import/a X' f",
    "sed -i '/^x/d;/TODO/a X' f",
]

# Text commands whose address is no fixed string: the general path decides them.
NOT_TAKEN = [
    "sed -i '/TODO/i X' f",
    "sed -i '/^import/Ia X' f",
    "sed -i '/imp.rt/a X' f",
    "sed -i '/^import$/a X' f",
    "sed -i '$a X' f",
    "sed -i '2a X' f",
    "sed -i '/^import/c X' f",
    "sed -i '/TODO/c X' f",
    # The pattern's source is not re.escape's spelling of the literal (a space).
    "sed -i '/ /a X' f",
]

# Programs that must not take a whole-buffer path at all (N, the hold space).
NOT_FAST = [
    "sed -i -e '/^import/{N;a X' -e '}' f",
    "sed -i '/^import/h;$G' f",
    "sed -i 'N;/^import/a X' f",
]


def _check(line: str, inputs: list[bytes]) -> None:
    """Ours equals GNU's on every input we simulate; only text that is not UTF-8, or that an
    I-flag regex would fold outside ASCII, may be declined."""
    script = parse_command_line(line).script
    simulated = []
    for data in inputs:
        try:
            simulated.append((data, apply_files(script, [data])[0]))
        except SedDecline as decline:
            assert "UTF-8" in decline.reason or "I flag" in decline.reason, decline.reason
    kept = [data for data, _ in simulated]
    expected = gnu_sed_in_place(gnu_args_for_line(line), kept)
    assert expected is not None, "GNU sed rejected a line we simulate"
    for (data, got), want in zip(simulated, expected, strict=True):
        assert (data if got is None else got) == want, f"{line!r} on {data!r}"
    assert len(kept) >= len(inputs) - 2


def _step(line: str, index: int = -1):  # type: ignore[no-untyped-def]
    program = fast_program(parse_command_line(line).script)
    assert program is not None, line
    return program.steps[index]


@pytest.mark.parametrize("size", [None, 1])
@pytest.mark.parametrize("line", TAKEN + NOT_TAKEN + NOT_FAST)
def test_matches_gnu_sed(line: str, size: int | None, monkeypatch: pytest.MonkeyPatch) -> None:
    if size is not None:
        # Pieces of one line each: every line is the first and the last of its piece.
        monkeypatch.setattr(pieces, "PIECE_SIZE", size)
    _check(line, INPUTS)


@pytest.mark.parametrize("line", TAKEN)
def test_taken_on_str_and_on_ascii_bytes_alike(line: str) -> None:
    step = _step(line)
    for data in INPUTS:
        try:
            text = decode(data)
        except SedDecline:
            continue
        new = write_at_literal(step, text)
        assert new is not None, f"{line!r} not taken on {data!r}"
        if data.isascii():
            assert write_at_literal(step, data) == new.encode(), f"{line!r} on {data!r}"


@pytest.mark.parametrize("line", NOT_TAKEN)
def test_other_addresses_are_not_taken(line: str) -> None:
    assert write_at_literal(_step(line), "import os\nTODO\n") is None


@pytest.mark.parametrize("line", NOT_FAST)
def test_n_and_hold_space_programs_take_no_fast_path(line: str) -> None:
    assert fast_program(parse_command_line(line).script) is None


def test_random_files_match_gnu_sed() -> None:
    rng = random.Random(4343)
    words = ["import", "import ", "TODO", " ", "x", "\t", "é", "\r", "im", "port"]
    for _ in range(60):
        literal = rng.choice(["import", "TODO", "im", "t"])
        anchor = rng.choice(["^", ""])
        command = rng.choice(["a", "i"]) if anchor else "a"
        line = f"sed -i {shlex.quote(f'/{anchor}{literal}/{command} X')} f"
        inputs = []
        for _ in range(4):
            lines = ["".join(rng.choices(words, k=rng.randrange(0, 4))) for _ in range(9)]
            text = "\n".join(lines[: rng.randrange(0, 10)])
            inputs.append((text + rng.choice(["", "\n"])).encode())
        _check(line, inputs)

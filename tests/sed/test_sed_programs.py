"""Differential cases for whole sed programs: addresses, ranges, the hold space, branches,
text commands, -n, several files and q. GNU sed runs each line once over all the inputs as
several files (``sed -i … f0 f1 …``); the simulation must give every file's bytes exactly.
"""

from __future__ import annotations

import pytest
from sed_oracle import gnu_args_for_line, gnu_sed_in_place

from waymark.engine.sed import SedDecline, apply_files, parse_command_line

INPUTS = [
    b"a\nb\nc\nd\ne\n",
    b"foo\nbar\nfoo bar\nbaz\n",
    b"",
    b"x\n",
    b"one\ntwo\nthree\nfour\nfive\nsix\nseven\n",
    b"Foo FOO foo\n\n  indented\nlast\n",
    b"caf\xc3\xa9\nna\xc3\xafve foo\n",
]

PROGRAMS = [
    "sed -i '2d' f",
    "sed -i '$d' f",
    "sed -i '2,3d' f",
    "sed -i '4,2d' f",
    "sed -i '/foo/d' f",
    "sed -i '/^$/d' f",
    "sed -i '/b/,/d/d' f",
    "sed -i '2,/o/d' f",
    "sed -i '0,/o/d' f",
    "sed -i '0,/x/s//Y/' f",
    "sed -i '/o/,3d' f",
    "sed -i '/b/,+2d' f",
    "sed -i '2,+1d' f",
    "sed -i '1~2d' f",
    "sed -i '0~3d' f",
    "sed -i '1~3,+1d' f",
    "sed -i '2!d' f",
    "sed -i '2 ! d' f",
    "sed -i '1 , 2 d' f",
    "sed -i '3,1!d' f",
    "sed -i '\\,o,d' f",
    "sed -i '/o/!s/a/A/' f",
    "sed -i '/o/s//0/g' f",
    "sed -i '/o/!s//0/g' f",
    "sed -i '2s/o/0/' f",
    "sed -i '$s/$/ END/' f",
    "sed -i '1,3s/^/# /' f",
    "sed -i '2i\\\nhello' f",
    "sed -i '1i\\\nA\\\nB' f",
    "sed -i '1d;2i\\\nA\\\nB' f",
    "sed -i '2a hello' f",
    "sed -i '2a\\    text' f",
    "sed -i '2a    text' f",
    "sed -i '2a\\\n   text\\\n  more\ns/o/0/' f",
    "sed -i '$a\\' f",
    "sed -i 'a\\' f",
    "sed -i '$a last line' f",
    "sed -i '1i header' f",
    "sed -i -e '1i\\' -e 'hdr' f",
    "sed -i -e '1i\\' -e '  hdr' -e 's/a/b/' f",
    "sed -i 'a foo' f",
    "sed -i 'i foo' f",
    "sed -i '2c\\\nX' f",
    "sed -i '2,3c\\\nX' f",
    "sed -i '2,3!c X' f",
    "sed -i '/a/,/c/c X' f",
    "sed -i '/x/,/nomatch/c X' f",
    "sed -i '$c END' f",
    "sed -i 'y/abc/xyz/' f",
    "sed -i 'y/o\\n/0_/' f",
    "sed -i '3q' f",
    "sed -i '3Q' f",
    "sed -i '/x/q' f",
    "sed -i '2q;s/o/0/' f",
    "sed -i '/o/{s/o/0/;s/f/F/}' f",
    "sed -i '2{p;p}' f",
    "sed -i '2,3{/c/d}' f",
    "sed -i '/o/{\n/b/d\n}' f",
    "sed -i -e 's/a/b/' -e '/x/d' f",
    "sed -i -n '2p' f",
    "sed -i -n '/o/p' f",
    "sed -i -n '$p' f",
    "sed -n -i 's/o/0/p' f",
    "sed -i -n '1!G;h;$p' f",
    "sed -i 'p' f",
    "sed -i '=' f",
    "sed -i '$!N;s/\\n/ /' f",
    "sed -i 'N;P;D' f",
    "sed -i '$!{N};P;D' f",
    "sed -i '$!N;$!D' f",
    "sed -i 'N;N;s/\\n/+/g' f",
    "sed -i '1h;1!H;$!d;x;s/\\n/,/g' f",
    "sed -i '1!G;h;$!d' f",
    "sed -i 'n;d' f",
    "sed -i '2n;s/./X/' f",
    "sed -i '$!n;s/./X/' f",
    "sed -i 'n;n;s/./X/' f",
    "sed -i ':a;N;$!ba;s/\\n/+/g' f",
    "sed -i -e :a -e '$!N;s/\\n//;ta' f",
    "sed -i 's/o/0/;t;s/a/A/' f",
    "sed -i 's/o/0/;T;s/a/A/' f",
    "sed -i 's/o/0/;tx;s/a/A/;:x' f",
    "sed -i 's/FOO/X/I' f",
    "sed -i 's/foo/X/Ig' f",
    "sed -i '/FOO/Id' f",
    "sed -i 's/o/0/gp' f",
    "sed -i 'G' f",
    "sed -i '$G' f",
    "sed -i 'x;G' f",
    "sed -i '$x;$G' f",
    "sed -i '$x;$H;$x' f",
    "sed -i '$!d;x;N' f",
    "sed -i 'z' f",
    "sed -i '$z' f",
    "sed -i '2{h;d};$G' f",
    "sed -i -s '1d' f",
    "sed -i 's/a/b/;#comment' f",
    "sed -i 's/a/b/ # comment' f",
    "sed -i '1d' f",
    "sed -i.bak 's/a/b/' f",
    # Ranges whose lines n/N read past: GNU opens a line-number start late, once.
    "sed -i -n '2{N;N};2,3p' f",
    "sed -i -n '2{N;N};2,4p' f",
    "sed -i -n '2{N;N};2,/e/p' f",
    "sed -i -n '2{N};1,2p' f",
    "sed -i -n '2{N};1,+1p' f",
    "sed -i -n '2,+1N;2,+1p' f",
    "sed -i -n '2{N};1,~2p' f",
    "sed -i '$!N;2,3c X' f",
    "sed -i -e '2,$a added' -e '$!N' f",
    # addr,~N ends after the next multiple, even when addr is one; first~0 is a line number.
    "sed -i -n '4,~4p' f",
    "sed -i -n '3,~2p' f",
    "sed -i -n '4,~0p' f",
    "sed -i -n '3,0p' f",
    "sed -i -n '2~0,4p' f",
    "sed -i -n '4,1~3p' f",
    "sed -i -n '/b/,0~3p' f",
    # An address only tests for a match: back-references and ambiguous regexes are exact.
    "sed -i '$!N;/^\\(.*\\)\\n\\1$/!P;D' f",
    "sed -i '/\\(o\\)\\1/d' f",
    "sed -i -n '/\\(.\\)\\1/p' f",
    "sed -i -E '/(f|fo)(o|oo )/d' f",
    "sed -i '/o.*o.*/s/o/0/g' f",
    # The newline N puts in the pattern space is a space and a control character.
    "sed -i 'N;s/[[:space:]]/_/' f",
    "sed -i 'N;s/\\s\\+/_/g' f",
    "sed -i 'N;s/[[:cntrl:]]/_/' f",
    "sed -i 'N;s/[^[:alpha:]]/_/g' f",
    # M on pattern spaces of one line (an address's M too).
    "sed -i '/x/s/y/z/M' f",
    "sed -i '/o$/M,/^b/Ms/o/0/M' f",
    "sed -i '/^$/Md' f",
    # D restarts the cycle without ending it: a-text waits for the cycle's real end.
    "sed -i -e 'a X' -e '/b/{s/b/b\\nB/;D}' f",
]


@pytest.mark.parametrize("line", PROGRAMS)
def test_program_matches_gnu_sed_on_several_files(line: str) -> None:
    expected = gnu_sed_in_place(gnu_args_for_line(line), INPUTS)
    assert expected is not None, "GNU sed rejected a line we simulate"
    try:
        ours = apply_files(parse_command_line(line).script, INPUTS)
    except SedDecline as decline:
        # Only the non-ASCII input may be refused (I-flag regexes on non-ASCII text).
        assert "non-ASCII" in decline.reason, decline.reason
        ours = [*apply_files(parse_command_line(line).script, INPUTS[:-1]), INPUTS[-1]]
        expected = gnu_sed_in_place(gnu_args_for_line(line), INPUTS[:-1])
        assert expected is not None
        expected.append(INPUTS[-1])
    for data, mine, theirs in zip(INPUTS, ours, expected, strict=True):
        assert (data if mine is None else mine) == theirs, f"input {data!r}"


UNTERMINATED = [b"a\nb", b"x", b"", b"1\n2\n3"]


@pytest.mark.parametrize(
    "line",
    [
        "sed -i 's/a/A/' f",
        "sed -i '$a end' f",
        "sed -i 'G' f",
        "sed -i '1!G;h;$!d' f",
        "sed -i -n '$!N;P;D' f",
        # q completes a last line that lacks its newline; Q does not.
        "sed -i '$q' f",
        "sed -i -n 'p;q' f",
        "sed -i 'x;q' f",
        "sed -i '$Q' f",
        "sed -i -n '$p;$Q' f",
        "sed -i '3q' f",
    ],
)
def test_files_without_a_final_newline_match_gnu_sed(line: str) -> None:
    expected = gnu_sed_in_place(gnu_args_for_line(line), UNTERMINATED)
    assert expected is not None
    ours = apply_files(parse_command_line(line).script, UNTERMINATED)
    mine = [data if new is None else new for data, new in zip(UNTERMINATED, ours, strict=True)]
    assert mine == expected

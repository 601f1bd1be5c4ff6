"""sed's compiled loops (``_core_sed.c``) against the pure path: ``/literal/a``,
``/^literal/a``, ``c`` and ``d`` on such lines, ``/^literal/{s/a/b/;s/c/d/g}``,
``s/fixed/text/g`` and ``s/^/TEXT/`` give the
same bytes on both, on texts generated from the bytes that make the shapes hard (the literal
repeated, on line 1, on consecutive lines, twice on a line, overlapping itself, at the end
without a newline)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from waymark.engine import core
from waymark.engine.sed import apply_script, parse_command_line
from waymark.engine.sed.fasttext import append_after

_text = st.lists(st.sampled_from(["\n", "im", "p", "import", "x", " ", "\n\n"]), max_size=30)
_separators = st.sampled_from([b"import", b"im", b"p", b"\nimport", b"\nim", b"\np"])


@settings(max_examples=500, deadline=None)
@given(_text.map("".join), _separators, st.sampled_from([b"W\n", b"\n", b"two\nlines\n"]))
def test_append_after_gives_the_pure_bytes(text: str, separator: bytes, written: bytes) -> None:
    assert core.BUILT is not None
    data = text.encode()
    at_start = separator.startswith(b"\n")
    native = core.BUILT.append_after(data, separator, at_start, written)
    assert native == append_after(data, separator, at_start, written)


@pytest.mark.parametrize(
    "data",
    [
        b"import os\nimport sys\nx = 1\nimport re",
        b"x\nimport os\n\nimport sys\n",
        b"import a import b\nimport\nimportimport",
        b"no match here\n",
        b"import",
        b"\nimport\n",
    ],
)
@pytest.mark.parametrize("script", ["/^import/a\\import re", "/import/a\\# seen", "/^im/a\\"])
def test_sed_append_is_the_same_on_both_paths(data: bytes, script: str) -> None:
    invocation = parse_command_line(f"sed -i '{script}' f")
    with core.using(None):
        pure = apply_script(invocation.script, data)
    with core.using(core.BUILT):
        native = apply_script(invocation.script, data)
    assert native == pure


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.sampled_from(["\n", "a", "line of forty bytes, longer than a block", "\n\n"]))
    .map("".join)
    .map(str.encode),
    st.sampled_from([b"", b"    ", b"#", b"x" * 40, b"\n"]),
    st.sampled_from([b"", b";", b" \\", b"y" * 33]),
)
def test_around_lines_gives_the_lines_joined(data: bytes, before: bytes, after: bytes) -> None:
    assert core.BUILT is not None
    body = data[:-1] if data.endswith(b"\n") else data
    lines = [before + line + after for line in body.split(b"\n")] if data else []
    expected = b"\n".join(lines) + (b"\n" if data.endswith(b"\n") else b"")
    assert core.BUILT.around_lines(data, before, after) == expected


@pytest.mark.parametrize(
    "data",
    [b"", b"\n", b"\n\n", b"a", b"a\nb", b"a\nb\n", b"x" * 70 + b"\n\ny\n" * 40, "é\n".encode()],
)
@pytest.mark.parametrize("script", ["s/^/    /", "s/$/;/", "s/^/# /g", "s/$/\\n/", "s/^/&&/"])
def test_sed_every_line_is_the_same_on_both_paths(data: bytes, script: str) -> None:
    invocation = parse_command_line(f"sed -i '{script}' f")
    with core.using(None):
        pure = apply_script(invocation.script, data)
    with core.using(core.BUILT):
        native = apply_script(invocation.script, data)
    assert native == pure


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.sampled_from(["\n", "a", "aa", "ab", "b", "user", "x" * 20])).map("".join),
    st.sampled_from(["a", "aa", "aba", "user", "b\n"]),
    st.sampled_from(["", "A", "account", "aa"]),
)
def test_replace_all_is_bytes_replace(text: str, old: str, new: str) -> None:
    assert core.BUILT is not None
    data = text.encode()
    assert core.BUILT.replace_all(data, old.encode(), new.encode()) == data.replace(
        old.encode(), new.encode()
    )


_program_text = st.lists(
    st.sampled_from(["\n", "TODO", "im", "import", " ", "x", "user", "\n\n", "import TODO"]),
    max_size=30,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(
    _program_text,
    st.sampled_from(
        [
            "/TODO/d",
            "/^import/d",
            "/TODO/c\\# done",
            "/^im/c\\changed",
            "/TODO/d;s/user/account/g",
            "s/user/account/g",
            "2,$s/im/IM/g",
            "/^import/a\\import re",
            "/TODO/a\\seen",
        ]
    ),
)
def test_programs_are_the_same_on_both_paths(text: str, script: str) -> None:
    data = text.encode()
    invocation = parse_command_line(f"sed -i '{script}' f")
    with core.using(None):
        pure = apply_script(invocation.script, data)
    with core.using(core.BUILT):
        native = apply_script(invocation.script, data)
    assert native == pure


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.sampled_from(["\n", "a", "aa", "aba", "b", "ab"])).map("".join),
    st.sampled_from(["a", "aa", "aba", "ab"]),
    st.booleans(),
)
def test_twice_on_a_line_counts_apart(text: str, literal: str, as_bytes: bool) -> None:
    assert core.BUILT is not None
    expected = any(line.count(literal) >= 2 for line in text.split("\n"))
    data = text.encode() if as_bytes else text
    assert core.BUILT.twice_on_a_line(data, literal.encode()) is expected


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["\n", "v1.2", "v", "1", ".", "x", "vv1.2.3", "é"]), max_size=30)
    .map("".join)
    .map(str.encode),
    st.sampled_from(["s/v[0-9]/V/", "-E s/v[0-9]+\\.[0-9]/W/", "s/1\\.2/one/", "s/v[0-9]*/u/"]),
)
def test_first_match_per_line_is_the_same_on_both_paths(data: bytes, script: str) -> None:
    args = script.split(" ", 1) if script.startswith("-E ") else [script]
    invocation = parse_command_line("sed -i " + " ".join([*args[:-1], f"'{args[-1]}'"]) + " f")
    with core.using(None):
        pure = apply_script(invocation.script, data)
    with core.using(core.BUILT):
        native = apply_script(invocation.script, data)
    assert native == pure

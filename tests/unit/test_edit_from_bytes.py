"""An anchored edit planned from the file's bytes (engine/edits/from_bytes.py) against the
plan on the decoded file: the same new bytes, details, anchored diff, notes and unified
diff, byte for byte, whenever it answers; and where it cannot be sure (a refusal, an anchor
only a context hash names, a token the ladder decides), no answer, so the decoded file's plan
runs. And the edit of a large file no longer decodes it."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_core_differential import CORPORA

from helpers_commands import Agent, put
from waymark.commands.edit_ops import parse_operations
from waymark.engine import core
from waymark.engine.anchors import annotate, hash_lines
from waymark.engine.diff import diff_file
from waymark.engine.edits.anchored import plan_anchored_edit
from waymark.engine.edits.from_bytes import plan_from_bytes
from waymark.engine.edits.operations import OperationsRefused
from waymark.engine.errors import WaymarkError
from waymark.engine.text import TextFile

_OPS = ("replace_line", "insert_after", "insert_before", "delete_line")
_RANGES = ("replace_range", "delete_range")
_CONTENTS = ["x = 0", "", "}", "a\nb", "f(\n", "value = 919", "é 😀", "x = 0\r\ny", "\r"]


def _ops(rows: list[Any], picks: list[tuple[int, int, int, int]]) -> list[dict[str, Any]]:
    ops: list[dict[str, Any]] = []
    for kind, a, b, c in picks:
        content = _CONTENTS[c % len(_CONTENTS)]
        first, second = rows[a % len(rows)], rows[b % len(rows)]
        if kind < len(_OPS):
            op = {"op": _OPS[kind], "hash": first.ref if c % 3 else first.hash}
        else:
            op = {"op": _RANGES[kind % 2], "start_hash": first.ref, "end_hash": second.hash}
        if not op["op"].startswith("delete"):
            op["content"] = content
        ops.append(op)
    return ops


def _decoded(data: bytes, ops: list[dict[str, Any]]) -> object:
    """What the command makes of the plan on the decoded file."""
    tf = TextFile.decode(data)
    try:
        plan = plan_anchored_edit(tf, parse_operations(ops))
        after = plan.encode(data)
    except (WaymarkError, OperationsRefused, UnicodeEncodeError) as exc:
        return type(exc).__name__
    unified = diff_file("f", tf, tf.decode_like(after, None, plan.text_file), known=plan.untouched)
    return (
        after,
        plan.details,
        plan.diff,
        plan.advisories,
        plan.swapped,
        plan.untouched,
        unified,
    )


def _from_bytes(data: bytes, ops: list[dict[str, Any]]) -> object:
    plan = plan_from_bytes(data, None, parse_operations(ops))
    if plan is None:
        return None
    return (
        plan.after,
        plan.details,
        plan.diff,
        plan.advisories,
        plan.swapped,
        plan.untouched,
        plan.unified("f"),
    )


def _check(data: bytes, ops: list[dict[str, Any]]) -> bool:
    """Both plans agree (a refusal is never the bytes' plan's answer); whether it answered."""
    got = _from_bytes(data, ops)
    if got is not None:
        assert got == _decoded(data, ops)
    return got is not None


_pool = st.sampled_from(
    ["", "", "  ", "}", "x = 1", "é", "😀 y", "a", "value = 919", "value = 1993", "pass", "(", ")"]
)
_picks = st.lists(
    st.tuples(st.integers(0, 5), st.integers(0, 99), st.integers(0, 99), st.integers(0, 99)),
    min_size=1,
    max_size=3,
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(_pool, min_size=1, max_size=40),
    st.sampled_from(["\n", "\r\n", "\r"]),
    st.booleans(),
    _picks,
)
def test_generated_edits_plan_the_same(
    lines: list[str], eol: str, final: bool, picks: list[tuple[int, int, int, int]]
) -> None:
    data = (eol.join(lines) + (eol if final else "")).encode()
    rows = list(annotate(TextFile.decode(data)))
    if rows:
        _check(data, _ops(rows, picks))


@pytest.mark.parametrize("name", sorted(n for n, d in CORPORA.items() if isinstance(d, bytes)))
def test_corpora_edits_plan_the_same(name: str) -> None:
    data = CORPORA[name]
    assert isinstance(data, bytes)
    rows = list(annotate(TextFile.decode(data)))
    if not rows:
        ops = parse_operations([{"op": "delete_line", "hash": "abcdef"}])
        assert plan_from_bytes(data, None, ops) is None
        return
    rng = random.Random(name)
    for _ in range(60):
        picks = [
            (rng.randrange(6), rng.randrange(99), rng.randrange(99), rng.randrange(99))
            for _ in range(rng.randint(1, 3))
        ]
        _check(data, _ops(rows, picks))


_LINES = [*_CONTENTS[:3], "a", "value = 919", "value = 1993", "pass", "(", ")", "\t", "  "]


@pytest.mark.parametrize("seed", range(4))
def test_random_files_and_batches_plan_the_same(seed: int) -> None:
    """Files of up to 400 lines with every terminator, a BOM or not, no final newline or
    one; batches of one to three operations. (Found here: a diff whose common ends run past
    the changes, where lines are removed next to copies of them.)"""
    rng = random.Random(seed)
    answered = 0
    for _ in range(400):
        lines = [
            rng.choice(_LINES) if rng.random() < 0.6 else f"v{rng.randint(0, 40)} = 1"
            for _ in range(rng.randint(1, 400 if rng.random() < 0.3 else 60))
        ]
        eol = rng.choice(["\n", "\n", "\r\n", "\r"])
        body = (eol.join(lines) + (eol if rng.random() < 0.8 else "")).encode()
        data = (b"\xef\xbb\xbf" if rng.random() < 0.1 else b"") + body
        rows = list(annotate(TextFile.decode(data)))
        picks = [
            (rng.randrange(6), rng.randrange(999), rng.randrange(999), rng.randrange(99))
            for _ in range(rng.randint(1, 3))
        ]
        answered += bool(rows) and _check(data, _ops(rows, picks))
    assert answered >= 60


def test_a_block_removed_before_copies_of_its_first_lines_diffs_as_the_whole_file() -> None:
    """The diff aligns ``a b c d a b c z`` less ``a b c d`` as ``a b c`` kept and ``d a b c``
    removed: its context after the change reaches three lines past the stretch the edit
    touched."""
    block = ["a = 1", "b = 2", "c = 3"]
    lines = [f"u{i} = {i}" for i in range(20)] + [*block, "d = 4", *block, "z = 9"]
    data = "\n".join([*lines, *(f"w{i} = {i}" for i in range(20)), ""]).encode()
    rows = list(annotate(TextFile.decode(data)))
    ops = [{"op": "delete_range", "start_hash": rows[20].hash, "end_hash": rows[23].hash}]
    _check(data, ops)


def _code(lines: int, seed: int) -> bytes:
    """Code-like text: blank, brace and repeated lines among unique ones."""
    rng = random.Random(seed)
    out = []
    for n in range(lines):
        roll = rng.random()
        if roll < 0.1:
            out.append("")
        elif roll < 0.2:
            out.append(rng.choice(["}", "return None", "pass", "    else:", "x = 1"]))
        else:
            out.append(f"value_{rng.randrange(lines // 2)} = compute({n})")
    return ("\n".join(out) + "\n").encode()


@pytest.mark.parametrize("seed", range(6))
def test_edits_of_a_larger_file_plan_the_same_and_from_its_bytes(seed: int) -> None:
    data = _code(3_000, seed)
    rows = list(annotate(TextFile.decode(data)))
    rng = random.Random(seed)
    answered = 0
    for _ in range(40):
        picks = [
            (rng.randrange(6), rng.randrange(3_000), rng.randrange(3_000), rng.randrange(99))
            for _ in range(rng.randint(1, 3))
        ]
        answered += _check(data, _ops(rows, picks))
    assert answered >= 10


@pytest.mark.skipif(core.native is None, reason="the compiled core is not built")
def test_unique_lines_the_filter_lets_through_plan_the_same() -> None:
    # The filter of possibly repeated lines is sized to the file (16 bits a line): in a
    # 60-line file, unique lines whose hashes share their low 10 bits pass it beside the
    # repeated ones, and must still count as unique.
    by_low: dict[int, list[str]] = {}
    texts = [f"value_{k} = {k}" for k in range(4_000)]
    for text, h in zip(texts, hash_lines(texts), strict=True):
        by_low.setdefault(h & 0x3FF, []).append(text)
    pairs = [group[:2] for group in by_low.values() if len(group) > 1][:12]
    lines = [text for pair in pairs for text in pair]
    lines += ["", "pass", "", "}", "pass", "x = 1", "}", ""] * 4
    random.Random(2).shuffle(lines)
    data = ("\n".join(lines) + "\n").encode()
    rows = list(annotate(TextFile.decode(data)))
    answered = 0
    for row in rows:
        for content in ("x = 0", "pass", ""):
            answered += _check(data, [{"op": "replace_line", "hash": row.hash, "content": content}])
    assert answered >= len(pairs) * 2


def test_a_one_line_edit_is_planned_from_the_bytes() -> None:
    data = _code(3_000, 7)
    rows = list(annotate(TextFile.decode(data)))
    row = next(r for r in rows[1500:] if r.quality == "high")
    ops = [{"op": "replace_line", "hash": row.hash, "content": "x = 0"}]
    assert _from_bytes(data, ops) is not None
    assert _from_bytes(data, ops) == _decoded(data, ops)


@pytest.mark.skipif(core.native is None, reason="the compiled core is not built")
def test_a_token_naming_copies_of_several_texts_counts_each_text() -> None:
    # A one-digit token names a sixteenth of the lines: copies of several texts, interleaved.
    rng = random.Random(4)
    lines = [rng.choice(["", ")", "pass", "x = 1", "é", f"v{i}"]) for i in range(3_000)]
    data = "\n".join(lines).encode()
    digit = hash_lines([")"])[0] >> 60
    native = core.native
    assert native is not None
    answer = native.span_find(data, 0, [(digit, 1)], 0)
    assert answer is not None
    _, found, texts, counts, _, _ = answer
    named = [i for i, h in enumerate(hash_lines(lines)) if h >> 60 == digit]
    assert found == [named]
    assert texts == [[lines[i] for i in named]]
    assert counts == [[Counter(lines)[lines[i]] for i in named]]


async def test_an_edit_of_a_utf8_file_never_decodes_the_whole_file(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _code(3_000, 3)
    put(workspace, "big.py", data)
    agent = Agent(workspace, tmp_path / "history")
    shown = await agent("read", path="big.py", hashes=True, offset=1000, limit=40)
    anchor = next(r["hash"] for r in shown["lines"] if r["quality"] == "high")

    def whole(cls: type, data: bytes, declared: str | None = None) -> TextFile:
        raise AssertionError(f"decoded {len(data)} bytes")

    monkeypatch.setattr(TextFile, "decode", classmethod(whole))
    op = {"op": "replace_line", "hash": anchor, "content": "x = 0"}
    result = await agent("edit", path="big.py", operations=[op])
    assert result["ok"], json.dumps(result)
    assert result["insertions"] == result["deletions"] == 1
    assert (workspace / "big.py").read_bytes().count(b"\nx = 0\n") == 1

"""The commonest edit planned from the bytes in one call of the core (``stretch_edit``,
_core_stretch.c) against the same edit planned by from_bytes.py's Python steps: the same new
bytes, details, anchored diff, notes, untouched ends and unified diff, or the same refusal
to answer; and where the call is not sure (a moved bracket balance, a line next to a copy
of itself, text that is not plain lines), it leaves the edit to those steps unchanged."""

from __future__ import annotations

from typing import Any

import pytest
from helpers_splices import PythonSteps, file_bytes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from waymark.commands.edit_ops import parse_operations
from waymark.engine import core
from waymark.engine.anchors import annotate
from waymark.engine.edits.from_bytes import plan_from_bytes
from waymark.engine.text import TextFile

pytestmark = pytest.mark.skipif(core.native is None, reason="the compiled core is not built")


class _Counted(PythonSteps):
    """The core, counting the edits the one call planned."""

    answered = 0

    def stretch_edit(self, *args: Any) -> Any:
        made = self._native.stretch_edit(*args)
        _Counted.answered += made is not None
        return made


def _plan(data: bytes, ops: list[dict[str, Any]]) -> object:
    plan = plan_from_bytes(data, None, parse_operations(ops))
    if plan is None:
        return None
    unified = plan.unified("f")
    return (
        plan.after,
        plan.details,
        plan.diff,
        plan.advisories,
        plan.swapped,
        plan.untouched,
        unified.text,
        unified.stats,
    )


def _both(data: bytes, ops: list[dict[str, Any]]) -> tuple[object, object]:
    with core.using(_Counted(core.native)):
        at_once = _plan(data, ops)
    with core.using(PythonSteps(core.native)):
        steps = _plan(data, ops)
    return at_once, steps


_POOL = [
    "",
    "  ",
    "\t",
    "\x1c",
    "\u00a0",
    "}",
    "{",
    "f(",
    ")",
    "x = 1",
    "x = [1]",
    "pass",
    "é = 2",
    "😀 y",
    "value = 919",
    "value = 1993",
    "return None",
]
# Half the lines plain code, some of them repeated: the edits the one call plans.
_LINE = st.one_of(st.sampled_from(_POOL), st.integers(0, 40).map("v{0} = f({0})".format))


def _case(
    lines: list[str],
    end: str,
    final: bool,
    bom: bool,
    picks: list[int],
    content: list[str],
    kind: str,
) -> None:
    data = file_bytes(lines, end, final, bom)
    rows = list(annotate(TextFile.decode(data)))
    if not rows:
        return
    first = rows[picks[0] % len(rows)]
    op: dict[str, Any] = {"op": kind}
    if kind == "replace_range":
        op |= {"start_hash": first.ref, "end_hash": rows[picks[-1] % len(rows)].ref}
    else:
        op["hash"] = first.ref
    if kind != "delete_line":
        op["content"] = "\n".join(content)
    at_once, steps = _both(data, [op])
    assert at_once == steps


_PICKS = st.lists(st.integers(0, 99), min_size=1, max_size=2)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(_LINE, min_size=1, max_size=30),
    st.sampled_from(["\n", "\r\n", "mixed", "\r"]),
    st.booleans(),
    st.booleans(),
    _PICKS,
    st.lists(_LINE, min_size=1, max_size=3),
    st.sampled_from(["replace_line", "replace_range", "insert_after", "delete_line"]),
)
def test_any_edit_plans_as_the_python_steps(
    lines: list[str],
    end: str,
    final: bool,
    bom: bool,
    picks: list[int],
    content: list[str],
    kind: str,
) -> None:
    _case(lines, end, final, bom, picks, content, kind)


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(_LINE, min_size=1, max_size=30),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
    _PICKS,
    st.lists(_LINE, min_size=1, max_size=3),
    st.sampled_from(["replace_line", "replace_range"]),
)
def test_a_replace_plans_as_the_python_steps(
    lines: list[str], end: str, bom: bool, picks: list[int], content: list[str], kind: str
) -> None:
    _case(lines, end, True, bom, picks, content, kind)


@pytest.mark.parametrize("eol", ["\n", "\r\n"])
@pytest.mark.parametrize("where", [0, 1, 5, 40, 78, 79])
@pytest.mark.parametrize("content", ["value = 5", "a = 1\nb = 2\nc = 3", "é 😀 = 1"])
def test_a_replace_of_plain_lines_is_planned_in_one_call(
    eol: str, where: int, content: str
) -> None:
    lines = [f"value_{i} = compute({i})" if i % 7 != 3 else "" for i in range(80)]
    data = "".join(line + eol for line in lines).encode()
    rows = list(annotate(TextFile.decode(data)))
    ops = [{"op": "replace_line", "hash": rows[where].ref, "content": content}]
    _Counted.answered = 0
    at_once, steps = _both(data, ops)
    assert _Counted.answered == 1
    assert at_once is not None
    assert at_once == steps


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("x = 1", "f("),  # a bracket balance moved: the whole file's count decides
        ("x = 1", "y = 2\ny = 2"),  # a line next to a copy of itself
        ("x = 1", "x = 1\ny = 2"),  # a replaced line kept: the diff's match decides
    ],
)
def test_what_the_one_call_is_not_sure_of_is_left_to_the_steps(old: str, new: str) -> None:
    lines = [f"value_{i} = {i}" for i in range(20)]
    lines[10] = old
    data = "".join(line + "\n" for line in lines).encode()
    rows = list(annotate(TextFile.decode(data)))
    ops = [{"op": "replace_line", "hash": rows[10].ref, "content": new}]
    _Counted.answered = 0
    at_once, steps = _both(data, ops)
    assert _Counted.answered == 0
    assert at_once == steps

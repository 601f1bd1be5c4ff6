"""Properties of the patch engine: diffs of random texts apply byte-exactly; broken ones don't."""

from __future__ import annotations

import difflib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from waymark.commands.patch import read_patch
from waymark.engine.edits.patch import apply_file_patch
from waymark.engine.errors import InvalidParams, PatchFailed
from waymark.engine.text import TextFile

# A small alphabet makes repeated lines (and so misleading matches) common.
lines = st.lists(st.sampled_from(["a", "b", "c", "", "  x", "é"]), max_size=30)
eols = st.sampled_from(["\n", "\r\n"])


def _unified(old: list[str], new: list[str], context: int) -> str:
    return "".join(
        difflib.unified_diff(
            [line + "\n" for line in old],
            [line + "\n" for line in new],
            "a/f.txt",
            "b/f.txt",
            n=context,
        )
    )


def _apply(before: TextFile, patch: str) -> TextFile:
    (file_patch,) = read_patch(patch, None)
    return apply_file_patch("f.txt", before, file_patch).text_file


@settings(max_examples=300, deadline=None)
@given(old=lines, new=lines, context=st.integers(0, 3), eol=eols)
def test_a_diff_applies_byte_exactly_in_the_files_line_endings(
    old: list[str], new: list[str], context: int, eol: str
) -> None:
    patch = _unified(old, new, context)
    if not patch:
        return
    before = TextFile.from_text("".join(line + eol for line in old))
    after = _apply(before, patch)
    # An empty file has no line ending of its own: new lines take the patch's.
    assert after.text == "".join(line + (eol if old else "\n") for line in new)


@settings(max_examples=200, deadline=None)
@given(old=lines, new=lines, context=st.integers(1, 3), data=st.data())
def test_shuffled_or_truncated_hunks_are_refused(
    old: list[str], new: list[str], context: int, data: st.DataObject
) -> None:
    patch = _unified(old, new, context)
    before = TextFile.from_text("".join(line + "\n" for line in old))
    header = "".join(patch.splitlines(keepends=True)[:2])
    hunks: list[str] = []
    for line in patch.splitlines(keepends=True)[2:]:
        if line.startswith("@@"):
            hunks.append("")
        hunks[-1] += line
    if len(hunks) >= 2:
        with pytest.raises(PatchFailed):
            _apply(before, header + "".join(hunks[1:] + hunks[:1]))
    if patch:
        body_lines = patch.splitlines(keepends=True)
        cut = data.draw(st.integers(3, len(body_lines) - 1)) if len(body_lines) > 3 else None
        if cut is not None and not body_lines[cut].startswith("@@"):
            with pytest.raises(InvalidParams):
                _apply(before, "".join(body_lines[:cut]))

"""``diff_file`` gives, byte for byte, what it gave when it joined every line to its end
before diffing (the implementation of before that change is kept here as the reference)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from waymark.engine import diff
from waymark.engine.diff import DiffStats, FileDiff, diff_file
from waymark.engine.text import TextFile


def _reference(
    display: str, before: TextFile | None, after: TextFile | None, context: int = 3
) -> FileDiff:
    old = [] if before is None else before.lines_with_ends()
    new = [] if after is None else after.lines_with_ends()
    ops = diff.opcodes(old, new)
    insertions = deletions = 0
    for tag, i1, i2, j1, j2 in ops:
        if tag in ("replace", "delete"):
            deletions += i2 - i1
        if tag in ("replace", "insert"):
            insertions += j2 - j1
    stats = DiffStats(insertions, deletions)
    changes = [op for op in ops if op[0] != "equal"]
    hunks: list[list[diff.Opcode]] = []
    for op in changes:
        if hunks and op[1] - hunks[-1][-1][2] <= 2 * context:
            last = hunks[-1][-1]
            if op[1] > last[2]:
                hunks[-1].append(("equal", last[2], op[1], last[4], op[3]))
            hunks[-1].append(op)
        else:
            hunks.append([op])
    out = [
        "--- /dev/null\n" if before is None else f"--- a/{display}\n",
        "+++ /dev/null\n" if after is None else f"+++ b/{display}\n",
    ]
    if not hunks:
        # Changed since: an empty file created or deleted is named by its headers alone.
        return FileDiff("".join(out) if (before is None) != (after is None) else "", stats)

    def span(start: int, length: int) -> str:
        return str(start + 1) if length == 1 else f"{start + 1 if length else start},{length}"

    for hunk in hunks:
        a1, b1 = max(hunk[0][1] - context, 0), max(hunk[0][3] - context, 0)
        a2, b2 = min(hunk[-1][2] + context, len(old)), min(hunk[-1][4] + context, len(new))
        out.append(f"@@ -{span(a1, a2 - a1)} +{span(b1, b2 - b1)} @@\n")
        lines = [" " + line for line in old[a1 : hunk[0][1]]]
        for tag, i1, i2, j1, j2 in hunk:
            if tag == "equal":
                lines.extend(" " + line for line in old[i1:i2])
                continue
            lines.extend("-" + line for line in old[i1:i2])
            lines.extend("+" + line for line in new[j1:j2])
        lines.extend(" " + line for line in old[hunk[-1][2] : a2])
        out.extend(
            line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
            for line in lines
        )
    return FileDiff("".join(out), stats)


# Few distinct lines and every kind of line end, so ends meet lines that match and differ.
LINES = ["a", "b", "", "{", "é"]
ENDS = ["\n", "\n", "\r\n", "\r"]
texts = st.lists(st.tuples(st.sampled_from(LINES), st.sampled_from(ENDS)), max_size=60).map(
    lambda pairs: "".join(line + end for line, end in pairs)
)
files = st.none() | texts.map(TextFile.from_text)


def _edited(text: str, at: int, cut: int, insert: str) -> str:
    at = min(at, len(text))
    return text[:at] + insert + text[at + cut :]


@settings(max_examples=600, deadline=None)
@given(files, files, st.integers(0, 4))
def test_any_two_files_diff_as_before(
    before: TextFile | None, after: TextFile | None, context: int
) -> None:
    assert diff_file("d/f.txt", before, after, context) == _reference(
        "d/f.txt", before, after, context
    )


@settings(max_examples=600, deadline=None)
@given(texts, st.integers(0, 400), st.integers(0, 8), texts, st.sampled_from(["", "x", "\n"]))
def test_a_file_and_its_local_edit_diff_as_before(
    text: str, at: int, cut: int, insert: str, tail: str
) -> None:
    # The edits agents make: a few lines changed inside a file whose ends stay put.
    before = TextFile.from_text(text + tail)
    after = TextFile.from_text(_edited(text, at, cut, insert) + tail)
    assert diff_file("f", before, after) == _reference("f", before, after)


def test_a_large_file_with_a_large_middle_diffs_as_before() -> None:
    # Past 5,000 changed lines the middle is cut at unique lines first (the other path).
    old = "".join(f"line {i % 7000}\n" if i % 3 else "}\n" for i in range(12_000))
    new = "".join(f"line {i % 6500}\n" if i % 4 else "}\r\n" for i in range(11_000))
    before, after = (
        TextFile.from_text("head\n" + old + "tail"),
        TextFile.from_text("head\n" + new + "tail"),
    )
    assert diff_file("big", before, after) == _reference("big", before, after)

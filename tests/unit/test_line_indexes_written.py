"""The next edit of a file reads back the bytes the last edit wrote and takes their lines
from that edit (commands/line_indexes.py ``known``) instead of splitting the text again
(issue 43): the file it sees must be exactly the one a fresh decode gives, in every encoding
and line-end mix, and bytes changed by anyone else are decoded afresh."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
from helpers_splices import same_file

from waymark.commands import line_indexes, registry
from waymark.commands.changes import load_path
from waymark.commands.context import load_options
from waymark.doors.entry import open_context
from waymark.engine.anchors import LineIndex
from waymark.engine.text import TextFile

CASES = {
    "utf-8": (b"alpha = 1\nbeta = 2\ngamma = 3\n", None),
    "crlf, no final newline": (b"alpha = 1\r\nbeta = 2\r\ngamma = 3", None),
    "mixed ends": (b"alpha = 1\r\nbeta = 2\ngamma = 3\rdelta = 4\n", None),
    "utf-8 bom": (b"\xef\xbb\xbfalpha = 1\nbeta = 2\ngamma = 3\n", None),
    "utf-16 bom": ("\ufeffalpha = 1\nbeta = 2\ngamma = 3\n".encode("utf-16-le"), None),
    "latin-1 bytes": ("alpha = 'é'\nbeta = 2\ngamma = 3\n".encode("latin-1"), None),
    "declared": ("alpha = 'é'\nbeta = 2\ngamma = 3\n".encode("latin-1"), "latin-1"),
}


def _run(ctx: Any, command: str, params: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = asyncio.run(registry.execute(ctx, command, params))
    assert result.get("ok", True), result
    return result


@pytest.fixture(autouse=True)
def _kept_path() -> Any:
    """Edits the bytes do not plan (a file past MAX_WRITTEN_BYTES, one not in UTF-8, an
    anchor only the decoded file resolves) go the kept index's way: these edits too."""
    with patch("waymark.commands.edit.plan_from_bytes", return_value=None):
        yield


def _workspace(tmp_path: Path, data: bytes) -> tuple[Any, Path]:
    """A context on a workspace holding ``f.py`` with ``data``, and that file."""
    root = tmp_path / "ws"
    root.mkdir()
    target = root / "f.py"
    target.write_bytes(data)
    options, _ = load_options({"sessionId": "t", "historyDir": str(tmp_path / "history")})
    return open_context([root], options), target


@pytest.mark.parametrize("case", CASES)
def test_the_next_edit_sees_what_a_fresh_decode_sees(tmp_path: Path, case: str) -> None:
    data, declared = CASES[case]
    ctx, target = _workspace(tmp_path, data)
    extra = {} if declared is None else {"encoding": declared}
    for n in range(3):
        read = _run(ctx, "waymark.read", {"path": "f.py", "hashes": True, **extra})
        anchor = read["lines"][1]["hash"]
        _run(
            ctx,
            "waymark.edit",
            {
                "path": "f.py",
                "operations": [{"op": "replace_line", "hash": anchor, "content": f"beta = {n}"}],
                **extra,
            },
        )
        loaded = load_path(ctx, "f.py", encoding=declared)
        assert loaded.data == target.read_bytes()
        known = line_indexes.known(loaded.resolved.real, loaded.digest, target.read_bytes())
        assert loaded.decoded is not None and known is not None
        assert loaded.decoded.lines is known.lines
        same_file(loaded.decoded, TextFile.decode(target.read_bytes(), declared))


@pytest.mark.parametrize("case", CASES)
def test_an_edit_after_a_read_sees_what_a_fresh_decode_sees(tmp_path: Path, case: str) -> None:
    data, declared = CASES[case]
    ctx, _ = _workspace(tmp_path, data)
    extra = {} if declared is None else {"encoding": declared}
    _run(ctx, "waymark.read", {"path": "f.py", "hashes": True, **extra})
    loaded = load_path(ctx, "f.py", encoding=declared)
    known = line_indexes.known(loaded.resolved.real, loaded.digest, data)
    assert loaded.decoded is not None and known is not None
    assert loaded.decoded.lines is known.lines
    same_file(loaded.decoded, TextFile.decode(data, declared))


def test_bytes_someone_else_wrote_are_decoded_afresh(tmp_path: Path) -> None:
    ctx, target = _workspace(tmp_path, b"alpha = 1\nbeta = 2\n")
    anchor = _run(ctx, "waymark.read", {"path": "f.py", "hashes": True})["lines"][1]["hash"]
    edit = {"op": "replace_line", "hash": anchor, "content": "beta = 3"}
    _run(ctx, "waymark.edit", {"path": "f.py", "operations": [edit]})
    written = target.read_bytes()
    target.write_bytes(written.replace(b"\n", b"\r\n"))
    loaded = load_path(ctx, "f.py")
    assert line_indexes.known(loaded.resolved.real, loaded.digest, loaded.data or b"") is None
    assert line_indexes.known(loaded.resolved.real, loaded.digest, written) is None
    assert loaded.decoded is not None
    same_file(loaded.decoded, TextFile.decode(target.read_bytes()))
    assert loaded.decoded.eols == ("\r\n", "\r\n")


def test_large_written_bytes_are_not_kept(tmp_path: Path) -> None:
    """A large file's written bytes would hold its size again beside its index: only small
    files' bytes are kept, and a large file's next edit decodes afresh."""
    big = b"x = 1\n" * (line_indexes.MAX_WRITTEN_BYTES // 6 + 1)
    small = b"x = 1\n"
    for name, data in (("big", big), ("small", small)):
        tf = TextFile.decode(data)
        index = LineIndex(tf.lines)
        line_indexes.keep(tmp_path / name, name, index, (data, tf))
    assert line_indexes.known(tmp_path / "big", "big", big) is None
    assert line_indexes.known(tmp_path / "small", "small", small) is not None


@pytest.mark.parametrize("case", ["utf-8", "crlf, no final newline", "mixed ends"])
def test_edits_in_a_row_take_the_lines_the_last_one_wrote(tmp_path: Path, case: str) -> None:
    # The edit borrows the kept index and the written file at once (line_indexes.lend): the
    # bytes it reads back are decoded knowing their lines, not split again.
    data, _ = CASES[case]
    ctx, target = _workspace(tmp_path, data)
    anchor = _run(ctx, "waymark.read", {"path": "f.py", "hashes": True})["lines"][1]["hash"]
    for n in range(3):
        content = f"beta = {n}"
        op = {"op": "replace_line", "hash": anchor, "content": content}
        with patch.object(TextFile, "decode", side_effect=TextFile.decode) as decode:
            result = _run(ctx, "waymark.edit", {"path": "f.py", "operations": [op]})
        knowing = [c.kwargs.get("known") is not None for c in decode.call_args_list]
        assert knowing == [True]
        assert result["anchoredDiff"][0]["lines"][2]["text"] == content
        anchor = result["anchoredDiff"][0]["lines"][2]["hash"]
    same_file(load_path(ctx, "f.py").text_file(), TextFile.decode(target.read_bytes()))

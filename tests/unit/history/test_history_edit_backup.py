"""An edit's backup is the pre-image the edit already read: the history neither reads the file
again nor hashes those bytes; the edit hashes each side of its write once."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import xxhash

from waymark.commands.context import CommandContext, load_options
from waymark.commands.registry import execute
from waymark.store.history import backups, capture

Call = Callable[..., Awaitable[dict[str, Any]]]


async def _turn_started(tmp_path: Path, name: str, data: bytes) -> tuple[Path, Call]:
    """``name`` holding ``data`` in a fresh workspace, a turn ``t0`` started, and a caller of
    the commands on it (in-process, as a door calls them)."""
    ws = tmp_path / "ws"
    ws.mkdir()
    target = ws / name
    target.write_bytes(data)
    opts, _ = load_options({"historyDir": str(tmp_path / "h"), "sessionId": "s1"})
    ctx = CommandContext.create([ws], opts, tag_writes=True)

    async def call(verb: str, **params: Any) -> dict[str, Any]:
        return await execute(ctx, f"waymark.{verb}", params)

    assert (await call("snapshot", promptId="t0"))["ok"]
    return target, call


def _count_hashes(monkeypatch: pytest.MonkeyPatch, before: bytes, after: bytes) -> list[str]:
    """Which side of the write each file-content hash from now on is of."""
    hashed: list[str] = []
    real = xxhash.xxh3_128_hexdigest

    def counted(data: bytes) -> str:
        hashed.append({before: "before", after: "after"}.get(bytes(data), "other"))
        return real(data)

    monkeypatch.setattr(xxhash, "xxh3_128_hexdigest", counted)
    return hashed


async def _hashed_once_then_rewound(
    hashed: list[str],
    monkeypatch: pytest.MonkeyPatch,
    target: Path,
    call: Call,
    before: bytes,
    after: bytes,
) -> None:
    assert sorted(h for h in hashed if h != "other") == ["after", "before"]
    monkeypatch.undo()
    assert target.read_bytes() == after
    # The digests recorded are the bytes': a rewind restores, finding no one else's write.
    result = await call("rewind", promptId="t0")
    assert result["restored"] == [target.name], result
    assert target.read_bytes() == before


async def test_an_edit_backs_up_the_bytes_it_read_without_reading_them_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = b"".join(b"line %d\n" % n for n in range(20_000))
    target, call = await _turn_started(tmp_path, "big.txt", before)
    assert (await call("read", path="big.txt"))["ok"]

    def no_read(path: Path, **_: object) -> object:
        raise AssertionError(f"the history read {path} again")

    hashed: list[int] = []

    def counted(real: Any) -> Any:
        def digest(data: bytes) -> str:
            if data == before:
                hashed.append(1)
            return str(real(data))

        return digest

    monkeypatch.setattr(backups, "read_state", no_read)
    monkeypatch.setattr(backups, "read_tracked", no_read)
    monkeypatch.setattr(backups, "read_found", no_read)
    monkeypatch.setattr(backups, "content_digest", counted(backups.content_digest))
    monkeypatch.setattr(capture, "digest", counted(capture.digest))
    done = await call("replace", path="big.txt", old_string="line 7\n", new_string="seven\n")
    assert done["ok"], done
    # The load's digest of the bytes it read is the backup's: the history takes none.
    assert hashed == []
    monkeypatch.undo()
    assert target.read_bytes() == before.replace(b"line 7\n", b"seven\n", 1)
    result = await call("rewind", promptId="t0")
    assert result["restored"] == ["big.txt"], result
    assert target.read_bytes() == before


async def test_an_edit_hashes_the_bytes_it_replaces_and_writes_once_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = b"".join(b"line %d\n" % n for n in range(20_000))
    after = before.replace(b"line 7\n", b"seven\n", 1)
    target, call = await _turn_started(tmp_path, "big.txt", before)
    assert (await call("read", path="big.txt"))["ok"]
    hashed = _count_hashes(monkeypatch, before, after)
    done = await call("replace", path="big.txt", old_string="line 7\n", new_string="seven\n")
    assert done["ok"], done
    await _hashed_once_then_rewound(hashed, monkeypatch, target, call, before, after)


async def test_an_anchored_edit_of_a_decoded_file_hashes_each_side_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # UTF-16: the edit is planned on the decoded file (not from the bytes), which keeps the
    # new file's index under its digest for the next edit.
    text = "".join(f"line {n}\n" for n in range(5_000))
    before = b"\xff\xfe" + text.encode("utf-16-le")
    after = b"\xff\xfe" + text.replace("line 7\n", "seven\n", 1).encode("utf-16-le")
    target, call = await _turn_started(tmp_path, "wide.txt", before)
    lines = (await call("read", path="wide.txt", hashes=True))["lines"]
    hashed = _count_hashes(monkeypatch, before, after)
    op = {"op": "replace_line", "hash": lines[7]["hash"], "content": "seven"}
    done = await call("edit", path="wide.txt", operations=[op])
    assert done["ok"], done
    await _hashed_once_then_rewound(hashed, monkeypatch, target, call, before, after)

"""An edit's backup is the pre-image the edit already read: the history neither reads the file
again nor hashes those bytes more than once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from waymark.commands.context import CommandContext, load_options
from waymark.commands.registry import execute
from waymark.store.history import backups, capture


async def test_an_edit_backs_up_the_bytes_it_read_without_reading_them_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    target = ws / "big.txt"
    before = b"".join(b"line %d\n" % n for n in range(20_000))
    target.write_bytes(before)
    opts, _ = load_options({"historyDir": str(tmp_path / "h"), "sessionId": "s1"})
    ctx = CommandContext.create([ws], opts, tag_writes=True)

    async def call(verb: str, **params: Any) -> dict[str, Any]:
        return await execute(ctx, f"waymark.{verb}", params)

    assert (await call("snapshot", promptId="t0"))["ok"]
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
    assert len(hashed) == 1
    monkeypatch.undo()
    assert target.read_bytes() == before.replace(b"line 7\n", b"seven\n", 1)
    result = await call("rewind", promptId="t0")
    assert result["restored"] == ["big.txt"], result
    assert target.read_bytes() == before

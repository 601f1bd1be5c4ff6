"""Legacy-encoded files through the real ``waymark-ls``: reads and previews carry the decoded
text (what the VS Code proposal diff shows), edits land in the file's own encoding, an open
buffer (decoded by the editor) is saved back in it, and the editor's ``files.encoding``
decides a file nothing else decides."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_lsp
from pytest_lsp import LanguageClient

from helpers_encodings import MAKE

from .conftest import SERVER, Session, _serve

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_lsp.fixture(config=SERVER, scope="module")
async def eucjp_client(
    lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[LanguageClient]:
    async for client in _serve(
        lsp_client, tmp_path_factory, "visual-studio-code", sessionId="j", filesEncoding="eucjp"
    ):
        yield client


@pytest.fixture(scope="module")
def eucjp(eucjp_client: LanguageClient) -> Session:
    session: Session = eucjp_client.waymark  # type: ignore[attr-defined]
    return session


async def test_preview_and_edit_of_a_gbk_file_carry_its_text(auto: Session) -> None:
    MAKE.install(auto.root)
    read = await auto("read", path="gbk.py")
    assert read["encoding"] == "gbk"
    assert read["lines"][1] == {"line": 2, "text": "名字 = '张伟'"}
    preview = await auto(
        "replace", path="gbk.py", old_string="张伟", new_string="李娜", preview=True
    )
    assert "-名字 = '张伟'\r\n+名字 = '李娜'\r\n" in preview["diff"]
    assert preview["files"][0]["newContent"].startswith("# 用户信息\r\n名字 = '李娜'\r\n")
    applied = await auto("applyPending", token=preview["token"])
    assert applied["ok"], applied
    data = MAKE.FILES["gbk.py"][0]
    assert (auto.root / "gbk.py").read_bytes() == data.replace(
        "张伟".encode("gbk"), "李娜".encode("gbk")
    )


async def test_an_open_buffer_is_written_back_in_the_files_encoding(auto: Session) -> None:
    MAKE.install(auto.root)
    path = auto.root / "windows-1252.php"
    data = MAKE.FILES["windows-1252.php"][0]
    # VS Code decoded the file itself (files.encoding or its guess): the buffer is text.
    uri = auto.editor.open(path, data.decode("cp1252"))
    try:
        await auto("read", path="windows-1252.php")
        refused = await auto(
            "replace", path="windows-1252.php", old_string="crème brûlée", new_string="☕"
        )
        assert refused["error"] == "unrepresentable_character"
        assert path.read_bytes() == data
        result = await auto(
            "replace", path="windows-1252.php", old_string="crème brûlée", new_string="café"
        )
        assert result["ok"], result
        assert path.read_bytes() == data.replace(b"cr\xe8me br\xfbl\xe9e", b"caf\xe9")
    finally:
        auto.editor.close(uri)


async def test_a_buffer_the_editor_decoded_another_way_still_reads(auto: Session) -> None:
    MAKE.install(auto.root)
    path = auto.root / "shift_jis.bas"
    # An editor that opened Shift_JIS as UTF-8 shows U+FFFD where it could not decode.
    shown = MAKE.FILES["shift_jis.bas"][0].decode("utf-8", "replace")
    uri = auto.editor.open(path, shown)
    try:
        read = await auto("read", path="shift_jis.bas")
        assert read["ok"], read
        assert read["version"] == 1
        assert "\ufffd" in read["lines"][1]["text"]
        assert path.read_bytes() == MAKE.FILES["shift_jis.bas"][0]
    finally:
        auto.editor.close(uri)


async def test_the_editors_files_encoding_decides_what_nothing_else_does(eucjp: Session) -> None:
    MAKE.install(eucjp.root)
    read = await eucjp("read", path="undecided.txt")
    assert (read["encoding"], read["lines"]) == ("euc-jp", [{"line": 1, "text": "名前 = '山田'"}])
    assert read["encodingNote"] == "euc-jp, as declared"
    # the project's declaration and a BOM still come first
    assert (await eucjp("read", path="latin1.txt"))["encoding"] == "iso-8859-1"
    assert (await eucjp("read", path="bom-wins.txt"))["encoding"] == "utf-8"
    result = await eucjp("replace", path="undecided.txt", old_string="山田", new_string="鈴木")
    assert result["ok"], result
    assert (eucjp.root / "undecided.txt").read_bytes() == "名前 = '鈴木'\n".encode("euc-jp")


async def test_bytes_not_valid_in_their_utf16_are_refused_with_where(auto: Session) -> None:
    # A lone surrogate once decoded as text that could not be hashed or sent as JSON.
    bom = auto.put("u16/bom.txt", b"\xff\xfea\x00\n\x00\x00\xd8b\x00\n\x00")
    gbk = auto.put("u16/gbk.py", MAKE.FILES["gbk.py"][0])
    refused_bom = {
        "ok": False,
        "error": "binary_file",
        "message": "The file has a utf-16-le BOM but is not valid utf-16-le at byte 6 (line 2); "
        "Waymark will not guess, so edit it with another tool.",
        "details": {"reason": "undecodable", "encoding": "utf-16-le", "offset": 6, "line": 2},
    }
    refused_gbk = {
        "ok": False,
        "error": "binary_file",
        "message": "The file is not valid utf-16-le, the encoding declared for it, at byte 44 "
        "(line 1); read it with the encoding it is written in, or leave `encoding` out to let "
        "Waymark decide.",
        "details": {"reason": "undecodable", "encoding": "utf-16-le", "offset": 44, "line": 1},
    }
    for how in ({}, {"hashes": True}, {"offset": 2, "limit": 1}):
        assert await auto("read", path="u16/bom.txt", **how) == refused_bom
        assert await auto("read", path="u16/gbk.py", encoding="utf-16le", **how) == refused_gbk
    replaced = await auto(
        "replace", path="u16/gbk.py", old_string="a", new_string="b", encoding="utf-16le"
    )
    assert replaced == refused_gbk
    assert await auto("write", path="u16/bom.txt", content="x\n") == refused_bom
    assert bom.read_bytes() == b"\xff\xfea\x00\n\x00\x00\xd8b\x00\n\x00"
    assert gbk.read_bytes() == MAKE.FILES["gbk.py"][0]

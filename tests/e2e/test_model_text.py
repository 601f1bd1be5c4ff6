"""``waymark.modelText`` through the real ``waymark-ls``: the LSP door keeps its full results
and hands an IDE's language-model tool the text a model reads (the MCP tools' text)."""

from __future__ import annotations

import pytest

from waymark.commands.model_view import model_text

from .conftest import Session

pytestmark = pytest.mark.asyncio(loop_scope="module")

BIG = "".join(f"row {i:05d} = {'x' * 35}\n" for i in range(1000))


async def test_preview_keeps_what_the_editor_needs_and_the_model_text_is_bounded(
    auto: Session,
) -> None:
    preview = await auto("write", path="big.txt", content=BIG, preview=True)
    assert preview["ok"] and preview["workspaceEdit"]["documentChanges"]
    assert preview["files"][0]["newContent"] == BIG
    assert not (auto.root / "big.txt").exists()
    applied = await auto("applyPending", token=preview["token"])
    assert applied["ok"], applied
    assert (auto.root / "big.txt").read_text() == BIG
    assert applied["diff"].count("\n+row ") == 1000

    shaped = await auto("modelText", tool="waymark_write", result=applied)
    assert shaped == {"ok": True, "text": model_text("waymark_write", applied)}
    assert len(shaped["text"]) <= 2000 and "x" * 35 not in shaped["text"]
    assert '"notShown":["big.txt +1000 −0"]' in shaped["text"]


async def test_a_failure_reads_as_code_and_message(auto: Session) -> None:
    failed = await auto("read", path="missing.txt")
    shaped = await auto("modelText", tool="waymark_read", result=failed)
    assert shaped["text"].startswith(f"{failed['error']}: {failed['message']}")
    refused = await auto("modelText", tool="waymark_nope", result={})
    assert refused["error"] == "invalid_params"

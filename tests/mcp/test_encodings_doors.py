"""Legacy-encoded files through the doors a terminal agent uses: ``waymark`` processes (the
CLI) and ``waymark mcp`` over stdio. Every file of fixtures/encodings reads as its real text,
edits land in its own encoding byte for byte, a character it cannot hold is refused with
nothing written, and a rewind gives back the exact bytes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import helpers_hooks
from helpers_encodings import MAKE
from helpers_mcp import call, connect

pytestmark = pytest.mark.timeout(300)

# For each corpus file: a word of it and the word put instead, both written in its encoding.
EDITS: dict[str, tuple[str, str]] = {
    "windows-1252.php": ("crème brûlée", "tarte « Tatin » à 6 €"),
    "latin1.txt": ("Jörg Müller", "Jürgen Groß"),
    "iso-8859-15.txt": ("10 €", "12 € (Œuvre)"),
    "gbk.py": ("张伟", "李娜"),
    "gb18030.txt": ("张伟", "李娜 🙂"),
    "big5.c": ("陳大文", "林小明"),
    "shift_jis.bas": ("山田太郎", "鈴木花子"),
    "euc-jp.rb": ("山田太郎", "鈴木花子"),
    "euc-kr.sql": ("김철수", "이영희"),
    "koi8-r.lua": ("Иван Петров", "Анна Смирнова"),
    "stray-byte.txt": ("张伟", "李娜"),
    "bom-wins.txt": ("Grüße", "Grüß Gott"),
    "undecided.txt": ("= '", "= ('"),
}
# A character no file of that encoding can hold (GB18030 and UTF-8 hold every one).
UNREPRESENTABLE = {
    name: "😀" for name in EDITS if name not in ("gb18030.txt", "bom-wins.txt", "undecided.txt")
}


def encoding_of(name: str) -> str:
    return MAKE.FILES[name][1]


def edited(name: str) -> bytes:
    data = MAKE.FILES[name][0]
    old, new = EDITS[name]
    encoding = encoding_of(name)
    return data.replace(old.encode(encoding), new.encode(encoding), 1)


@pytest.fixture
def corpus(workspace: Path) -> Path:
    MAKE.install(workspace)
    return workspace


def waymark(workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "waymark", *args],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=60,
    )


def as_json(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.mark.parametrize("name", sorted(EDITS))
def test_cli_reads_edits_refuses_and_rewinds_in_the_files_encoding(corpus: Path, name: str) -> None:
    original = MAKE.FILES[name][0]
    path = corpus / name
    assert waymark(corpus, "snapshot", "t1").returncode == 0
    read = as_json(waymark(corpus, "read", name, "--json"))
    assert read["encoding"] == encoding_of(name)
    old, new = EDITS[name]
    assert old in read["text"]
    assert ("encodingNote" in read) == (name != "bom-wins.txt")

    if name in UNREPRESENTABLE:
        refused = as_json(waymark(corpus, "replace", name, old, UNREPRESENTABLE[name], "--json"))
        assert refused["error"] == "unrepresentable_character"
        assert refused["details"]["encoding"] == read["encoding"]
        assert path.read_bytes() == original

    done = waymark(corpus, "replace", name, old, new, "--json")
    assert as_json(done)["ok"], done.stdout
    assert path.read_bytes() == edited(name)

    rewound = as_json(waymark(corpus, "rewind", "t1", "--json"))
    assert rewound["ok"], rewound
    assert path.read_bytes() == original


def test_cli_read_tells_a_person_the_encoding_on_stderr(corpus: Path) -> None:
    done = waymark(corpus, "read", "windows-1252.php")
    assert done.stderr == "(encoding: windows-1252, detected from its bytes)\n"
    assert "     3\t$café = 'crème brûlée';\n" in done.stdout
    plain = waymark(corpus, "read", "bom-wins.txt")
    assert plain.stderr == ""


def test_an_explicit_encoding_overrides_the_decision(corpus: Path) -> None:
    # undecided.txt is EUC-JP too short to tell: the caller says which.
    read = as_json(waymark(corpus, "read", "undecided.txt", "--encoding", "euc-jp", "--json"))
    assert read["text"] == "     1\t名前 = '山田'\n"
    assert read["encodingNote"] == "euc-jp, as declared"
    done = waymark(corpus, "replace", "undecided.txt", "山田", "鈴木", "--encoding", "euc-jp")
    assert done.returncode == 0, done.stderr
    assert (corpus / "undecided.txt").read_bytes() == "名前 = '鈴木'\n".encode("euc-jp")
    bad = as_json(waymark(corpus, "read", "undecided.txt", "--encoding", "ebcdic", "--json"))
    assert bad["error"] == "invalid_params"
    assert bad["details"]["field"] == "encoding"


def anchor(read_text: str, line: int) -> str:
    match = re.search(rf"^{line}#([0-9a-z.]+)~?\|", read_text, re.M)
    assert match, read_text
    return match.group(1)


async def test_mcp_every_string_and_line_door_writes_the_files_encoding(corpus: Path) -> None:
    before = {name: data for name, (data, _) in MAKE.FILES.items()}
    async with connect(corpus) as session:
        err, _ = await call(session, "waymark_snapshot", promptId="t1")
        assert not err
        for name in sorted(EDITS):
            err, text = await call(session, "waymark_read", path=name)
            assert not err
            first = text.split("\n", 1)[0]
            if name == "bom-wins.txt":
                assert first == "     1\tGrüße"
            elif name == "undecided.txt":
                assert first == (
                    "(encoding: not UTF-8 and no encoding is clear, so bytes that are not UTF-8 "
                    "are kept and shown escaped; pass `encoding` to read it as one)"
                )
            else:
                assert re.fullmatch(
                    rf"\(encoding: {encoding_of(name)}, (as declared|detected from its bytes)\)",
                    first,
                ), first
            old, new = EDITS[name]
            err, text = await call(session, "waymark_replace", path=name, old_string=old,
                                   new_string=new)  # fmt: skip
            assert not err, text
            assert (corpus / name).read_bytes() == edited(name)

        # an anchored line edit, CRLF kept
        err, text = await call(session, "waymark_read", path="shift_jis.bas", hashes=True)
        assert not err
        op = {"op": "replace_line", "hash": anchor(text, 2), "content": '名前 = "佐藤一郎"'}
        err, text = await call(session, "waymark_edit", path="shift_jis.bas", operations=[op])
        assert not err, text
        assert (corpus / "shift_jis.bas").read_bytes() == edited("shift_jis.bas").replace(
            "鈴木花子".encode("shift_jis"), "佐藤一郎".encode("shift_jis")
        )

        # a whole-file write keeps the encoding and the terminators
        err, _ = await call(session, "waymark_read", path="koi8-r.lua")
        err, text = await call(
            session, "waymark_write", path="koi8-r.lua", content="-- Привет\nx = 1\n"
        )
        assert not err, text
        assert (corpus / "koi8-r.lua").read_bytes() == "-- Привет\nx = 1\n".encode("koi8-r")

        # a multi-replace, and one that brings a character the encoding lacks: nothing written
        err, _ = await call(session, "waymark_read", path="euc-kr.sql")
        now = (corpus / "euc-kr.sql").read_bytes()
        err, text = await call(
            session,
            "waymark_multi_replace",
            path="euc-kr.sql",
            edits=[
                {"old_string": "서울특별시", "new_string": "부산"},
                {"old_string": "세계", "new_string": "世界 😀"},
            ],
        )
        assert err
        assert text.startswith("unrepresentable_character: '😀' (U+1F600 GRINNING FACE) cannot")
        assert (corpus / "euc-kr.sql").read_bytes() == now

        # a patch whose context is the decoded text
        err, _ = await call(session, "waymark_read", path="big5.c")
        patch = '--- a/big5.c\n+++ b/big5.c\n@@ -3 +3 @@\n-城市 = "臺北市";\n+城市 = "高雄市";\n'
        err, text = await call(session, "waymark_patch", patch=patch)
        assert not err, text
        assert (corpus / "big5.c").read_bytes() == edited("big5.c").replace(
            "臺北市".encode("big5"), "高雄市".encode("big5")
        )

        err, text = await call(session, "waymark_rewind", promptId="t1")
        assert not err, text
    for name, data in before.items():
        assert (corpus / name).read_bytes() == data, name


def hook(workspace: Path, event: dict[str, Any]) -> None:
    _, err = helpers_hooks.hook("claude-code", workspace, {"session_id": "s", **event})
    assert err == "", err


def test_a_hosts_own_edit_of_legacy_files_is_backed_up_counted_and_rewound(corpus: Path) -> None:
    """The host's Edit tool rewrites each file (here as UTF-8, the classic corruption); the
    hook's backup and a rewind give back every byte."""
    hook(corpus, {"hook_event_name": "UserPromptSubmit", "prompt": "p", "prompt_id": "p1"})
    for name in ("windows-1252.php", "gbk.py", "shift_jis.bas", "stray-byte.txt"):
        edit = {"tool_name": "Edit", "tool_input": {"file_path": str(corpus / name)}}
        hook(corpus, {"hook_event_name": "PreToolUse", **edit})
        text = (corpus / name).read_bytes().decode(encoding_of(name), "surrogateescape")
        old, new = EDITS[name]
        (corpus / name).write_bytes(text.replace(old, new).encode("utf-8", "surrogateescape"))
        hook(corpus, {"hook_event_name": "PostToolUse", **edit})
    stats = as_json(waymark(corpus, "diff-stats", "p1", "--json"))
    # Counted over the decoded text: re-encoding the file changed one line of it.
    counts = {f["path"]: (f["insertions"], f["deletions"]) for f in stats["files"]}
    for name in ("windows-1252.php", "gbk.py", "shift_jis.bas"):
        assert counts[name] == (1, 1), stats
    # The Turns view's "start of the turn ↔ now" diff shows the old text, not escapes.
    preview = as_json(waymark(corpus, "rewind", "p1", "--preview", "--json"))
    shown = {f["path"]: f["newContent"] for f in preview["files"]}
    for name in ("windows-1252.php", "gbk.py", "shift_jis.bas"):
        assert shown[name] == MAKE.FILES[name][0].decode(encoding_of(name)), name
    rewound = as_json(waymark(corpus, "rewind", "p1", "--json"))
    assert rewound["ok"], rewound
    for name, (data, _) in MAKE.FILES.items():
        assert (corpus / name).read_bytes() == data, name

"""Deciding a file's encoding (engine/encodings.py), the project's declarations
(store/declared_encoding.py), and edits in every legacy encoding against Python's codecs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from helpers_encodings import MAKE
from waymark.engine.edits.replace import ReplaceEdit, plan_replace
from waymark.engine.encodings import LEGACY, canonical, decide
from waymark.engine.errors import BinaryFile, UnrepresentableCharacter
from waymark.engine.text import TextFile
from waymark.store.declared_encoding import declared_encoding

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "fixtures" / "encodings"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    MAKE.install(tmp_path)
    return tmp_path


def test_committed_corpus_equals_its_generator() -> None:
    assert (COMMITTED / "editorconfig").read_bytes() == MAKE.EDITORCONFIG
    assert (COMMITTED / "gitattributes").read_bytes() == MAKE.GITATTRIBUTES
    for name, (data, _) in MAKE.FILES.items():
        assert (COMMITTED / name).read_bytes() == data, name
    assert {p.name for p in COMMITTED.iterdir()} == {*MAKE.FILES, "editorconfig", "gitattributes"}


@pytest.mark.parametrize("name", sorted(MAKE.FILES))
def test_each_corpus_file_decides_its_encoding_and_round_trips(corpus: Path, name: str) -> None:
    data, expected = MAKE.FILES[name]
    tf = TextFile.decode(data, declared_encoding(corpus / name, corpus))
    assert tf.encoding == expected
    assert tf.encode() == data


def test_the_corpus_reads_as_its_real_text(corpus: Path) -> None:
    def lines(name: str) -> tuple[str, ...]:
        return TextFile.decode(MAKE.FILES[name][0], declared_encoding(corpus / name, corpus)).lines

    assert lines("windows-1252.php")[2] == "$café = 'crème brûlée';"
    assert lines("windows-1252.php")[3] == "$prix = '5 €';"
    assert lines("latin1.txt") == (
        "# Grüße aus München",
        "name = 'Jörg Müller'",
        "stadt = 'Köln'",
        "straße = 'Hauptstraße 5'",
    )
    assert lines("iso-8859-15.txt")[0] == "prix = '10 €'"
    assert lines("gbk.py")[1] == "名字 = '张伟'"
    assert lines("gb18030.txt")[-1] == "表情 = '😀'"
    assert lines("big5.c")[1] == '名稱 = "陳大文";'
    assert lines("shift_jis.bas")[1] == '名前 = "山田太郎"'
    assert lines("euc-jp.rb")[2] == '住所 = "東京都千代田区丸の内一丁目"'
    assert lines("euc-kr.sql")[1] == "이름 = '김철수'"
    assert lines("koi8-r.lua")[1] == "имя = 'Иван Петров'"
    assert lines("stray-byte.txt")[0] == "# 用户信息 \udcff"
    assert lines("bom-wins.txt") == ("Grüße",)


# ---- the decision -------------------------------------------------------------------------


def test_a_bom_outranks_a_declaration() -> None:
    decision = decide(b"\xef\xbb\xbfGr\xc3\xbc\xc3\x9fe\n", "latin1")
    assert (decision.encoding, decision.bom, decision.source) == ("utf-8", True, "bom")


def test_a_declaration_outranks_valid_utf8() -> None:
    # "Ã©" in Latin-1 is also valid UTF-8 ("é"): the project's word is taken.
    assert decide(b"caf\xc3\xa9\n", "latin1").encoding == "iso-8859-1"
    assert decide(b"caf\xc3\xa9\n").encoding == "utf-8"


def test_valid_utf8_never_loads_the_detector() -> None:
    code = (
        "import sys\n"
        "from waymark.engine.text import TextFile\n"
        "TextFile.decode('naïve café — 東京'.encode() * 1000)\n"
        "print('charset_normalizer' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "False"


def test_bytes_that_are_not_utf8_and_not_clear_stay_bytes_and_say_so() -> None:
    data = MAKE.FILES["undecided.txt"][0]
    tf = TextFile.decode(data)
    assert tf.decision is not None and tf.decision.source == "undecided"
    assert tf.encode() == data
    # Damaged UTF-8 is not taken for a single-byte encoding.
    assert decide((ROOT / "fixtures/files/invalid-utf8.txt").read_bytes()).source == "undecided"


def test_a_declaration_the_bytes_do_not_fit_is_noted_and_not_taken() -> None:
    # CP932 decodes NEC's and IBM's copies of a kanji alike and writes back only one of them.
    decision = decide("名字".encode("gbk") + b" \xed\x40\n", "cp932")
    assert decision.source in ("detected", "undecided")
    assert decision.note == "the bytes do not round-trip as the declared cp932"
    assert decide(b"abc\n", "ebcdic-nonsense").note == (
        "the declared encoding 'ebcdic-nonsense' is not one Waymark supports"
    )


def test_nul_bytes_are_binary_whatever_is_declared_but_utf16() -> None:
    with pytest.raises(BinaryFile):
        TextFile.decode(b"a\x00b\n", "latin1")
    tf = TextFile.decode("hé\n".encode("utf-16-le"), "utf-16le")
    assert (tf.encoding, tf.bom, tf.lines) == ("utf-16-le", False, ("hé",))


@pytest.mark.parametrize(
    ("declared", "expected"),
    [
        # .editorconfig's charset values
        ("latin1", "iso-8859-1"),
        ("utf-8", "utf-8"),
        ("utf-8-bom", "utf-8"),
        ("utf-16be", "utf-16-be"),
        ("utf-16le", "utf-16-le"),
        # git's working-tree-encoding (iconv names)
        ("ISO-8859-15", "iso-8859-15"),
        ("SHIFT-JIS", "shift_jis"),
        ("CP1252", "windows-1252"),
        ("GBK", "gbk"),
        ("EUC-JP", "euc-jp"),
        # VS Code's files.encoding
        ("windows1252", "windows-1252"),
        ("iso885915", "iso-8859-15"),
        ("shiftjis", "shift_jis"),
        ("eucjp", "euc-jp"),
        ("euckr", "euc-kr"),
        ("koi8r", "koi8-r"),
        ("gb18030", "gb18030"),
        ("big5", "big5"),
        ("utf8bom", "utf-8"),
        ("mac-roman", None),
        ("nonsense", None),
    ],
)
def test_declared_names_map_to_supported_encodings(declared: str, expected: str | None) -> None:
    assert canonical(declared) == expected


# ---- the project's declarations ------------------------------------------------------------


def test_editorconfig_charset_closest_file_and_last_section_win(tmp_path: Path) -> None:
    (tmp_path / ".editorconfig").write_text(
        "root = true\n[*]\ncharset = utf-8\n[*.{php,inc}]\ncharset = latin1\n"
        "[legacy/**.txt]\ncharset = latin1\n"
    )
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".editorconfig").write_text("[b.php]\ncharset = unset\n")
    (tmp_path / "legacy" / "deep").mkdir(parents=True)
    assert declared_encoding(tmp_path / "a.php", tmp_path) == "latin1"
    assert declared_encoding(tmp_path / "sub" / "a.inc", tmp_path) == "latin1"
    assert declared_encoding(tmp_path / "sub" / "b.php", tmp_path) is None
    assert declared_encoding(tmp_path / "x.md", tmp_path) == "utf-8"
    assert declared_encoding(tmp_path / "legacy" / "deep" / "n.txt", tmp_path) == "latin1"


def test_editorconfig_root_stops_the_search(tmp_path: Path) -> None:
    (tmp_path / ".editorconfig").write_text("[*]\ncharset = latin1\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".editorconfig").write_text("root = true\n[*.md]\ncharset = utf-8\n")
    assert declared_encoding(tmp_path / "sub" / "a.txt", tmp_path) is None
    assert declared_encoding(tmp_path / "a.txt", tmp_path) == "latin1"


def test_gitattributes_working_tree_encoding(tmp_path: Path) -> None:
    (tmp_path / ".gitattributes").write_text(
        "*.sjis working-tree-encoding=SHIFT-JIS\n/top.txt working-tree-encoding=GBK\n"
        "plain.sjis -working-tree-encoding\n"
    )
    (tmp_path / "d").mkdir()
    assert declared_encoding(tmp_path / "d" / "a.sjis", tmp_path) == "SHIFT-JIS"
    assert declared_encoding(tmp_path / "top.txt", tmp_path) == "GBK"
    assert declared_encoding(tmp_path / "d" / "top.txt", tmp_path) is None
    assert declared_encoding(tmp_path / "plain.sjis", tmp_path) is None


def test_editorconfig_outranks_gitattributes(tmp_path: Path) -> None:
    (tmp_path / ".editorconfig").write_text("[*.txt]\ncharset = latin1\n")
    (tmp_path / ".gitattributes").write_text("*.txt working-tree-encoding=GBK\n")
    assert declared_encoding(tmp_path / "a.txt", tmp_path) == "latin1"


# ---- differential: every supported encoding against Python's own codec ---------------------

_TEXTS = (
    "naïve café — « déjà » 5 €\n",
    "Grüße aus München\n",
    "用户信息：张伟，北京市\n",
    "使用者資料：陳大文，臺北市\n",
    "ユーザー情報：山田太郎、東京都\n",
    "사용자 정보: 김철수, 서울\n",
    "Данные пользователя: Иван\n",
)


def _sample(encoding: str) -> str:
    lines = []
    for text in _TEXTS:
        try:
            text.encode(encoding)
        except UnicodeEncodeError:
            continue
        lines.append(text)
    assert lines, encoding
    # CRLF, CR and LF in one file, and no final newline.
    return "x = 1\r\n" + "".join(lines) + "last\rend"


@pytest.mark.parametrize("encoding", LEGACY)
def test_decode_edit_encode_equals_pythons_codec(encoding: str) -> None:
    text = _sample(encoding)
    data = text.encode(encoding)
    tf = TextFile.decode(data, encoding)
    assert tf.text == text
    # a string replacement of a non-ASCII word, by the engine and by the codec
    word = next(line for line in tf.lines if not line.isascii()).split()[0]
    edit = ReplaceEdit(word, word[::-1] + word)
    planned = plan_replace(tf.text, edit)
    assert tf.encode_text(planned.text) == text.replace(word, word[::-1] + word, 1).encode(encoding)
    # a line splice: the other lines' bytes, terminators included, stay
    index = tf.lines.index(next(line for line in tf.lines if not line.isascii()))
    spliced = tf.splice(index, index + 1, [tf.lines[index][::-1]]).encode()
    expected = "".join(
        (line[::-1] if i == index else line) + eol
        for i, (line, eol) in enumerate(zip(tf.lines, tf.eols, strict=True))
    ).encode(encoding)
    assert spliced == expected


@pytest.mark.parametrize("encoding", [e for e in LEGACY if e != "gb18030"])
def test_a_character_the_encoding_cannot_hold_is_refused_naming_it(encoding: str) -> None:
    tf = TextFile.decode(_sample(encoding).encode(encoding), encoding)
    with pytest.raises(UnrepresentableCharacter) as info:
        tf.splice(0, 1, ["x = '😀'"]).encode()
    assert info.value.code == "unrepresentable_character"
    assert info.value.message == (
        f"'😀' (U+1F600 GRINNING FACE) cannot be written in {encoding}, the encoding of this "
        "file; write it another way (an escape the file's language knows) or leave it out."
    )
    assert info.value.details == {
        "character": "😀",
        "codepoint": "U+1F600",
        "encoding": encoding,
    }


def test_a_stray_byte_next_to_an_edit_stays_as_it_was() -> None:
    data = MAKE.FILES["stray-byte.txt"][0]
    tf = TextFile.decode(data, "gbk")
    edited = tf.splice(1, 2, ["名字 = '李娜'"]).encode()
    assert edited == data.replace("张伟".encode("gbk"), "李娜".encode("gbk"), 1)
    assert edited.split(b"\n", 1)[0].endswith(b" \xff")


async def test_a_new_file_is_written_in_its_declared_encoding(tmp_path: Path) -> None:
    from helpers_commands import Agent

    root = tmp_path / "ws"
    root.mkdir()
    (root / ".editorconfig").write_text("[*.txt]\ncharset = latin1\n[*.md]\ncharset = utf-8-bom\n")
    agent = Agent(root, tmp_path / "history")
    assert (await agent("write", path="new.txt", content="Grüße\n"))["ok"]
    assert (root / "new.txt").read_bytes() == b"Gr\xfc\xdfe\n"
    assert (await agent("write", path="new.md", content="é\n"))["ok"]
    assert (root / "new.md").read_bytes() == b"\xef\xbb\xbf\xc3\xa9\n"
    refused = await agent("write", path="other.txt", content="5 €\n")
    assert refused["error"] == "unrepresentable_character"
    assert not (root / "other.txt").exists()


@pytest.mark.parametrize("command", ["read", "replace", "multiReplace", "write", "edit"])
async def test_an_encoding_waymark_does_not_read_is_invalid_params(
    tmp_path: Path, command: str
) -> None:
    from helpers_commands import Agent

    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_bytes(b"caf\xe9\n")
    agent = Agent(root, tmp_path / "history")
    assert (await agent("read", path="a.txt", encoding="iso-8859-1"))["ok"]
    params = {
        "read": {},
        "replace": {"old_string": "caf", "new_string": "tea"},
        "multiReplace": {"edits": [{"old_string": "caf", "new_string": "tea"}]},
        "write": {"content": "tea\n"},
        "edit": {"operations": [{"op": "delete_line", "hash": "abcdef"}]},
    }[command]
    refused = await agent(command, path="a.txt", encoding="ebcdic", **params)
    assert (refused["ok"], refused["error"]) == (False, "invalid_params")
    assert refused["details"]["field"] == "encoding"
    assert "utf-8" in refused["details"]["supported"]
    assert (root / "a.txt").read_bytes() == b"caf\xe9\n"

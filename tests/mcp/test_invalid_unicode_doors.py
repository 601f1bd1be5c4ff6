"""Bytes not valid in the UTF-16/32 a file has a BOM or a declaration for (a lone surrogate, a
truncated code unit) through the CLI and ``waymark mcp``: every command refuses with one
sentence naming the first bad byte and what to do, and no file changes. Such bytes once
decoded to lone surrogates, which crashed hashing, printing and JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from helpers_encodings import MAKE
from helpers_mcp import call, connect

pytestmark = pytest.mark.timeout(300)

GBK = MAKE.FILES["gbk.py"][0]
# "a", a lone high surrogate on line 2, then "b": the BOM vouches for bytes that are not UTF-16.
BOM_FILE = b"\xff\xfea\x00\n\x00\x00\xd8b\x00\n\x00"
# gbk.py read as UTF-16 LE, as the caller or .editorconfig says: its byte 44 starts a lone
# surrogate there.
DECLARED = (
    "The file is not valid utf-16-le, the encoding declared for it, at byte 44 (line 1); "
    "read it with the encoding it is written in, or leave `{encoding}` out to let Waymark "
    "decide."
)
BOM = (
    "The file has a utf-16-le BOM but is not valid utf-16-le at byte 6 (line 2); "
    "Waymark will not guess, so edit it with another tool."
)
DETAILS = {
    "bom.txt": {"reason": "undecodable", "encoding": "utf-16-le", "offset": 6, "line": 2},
    "gbk.py": {"reason": "undecodable", "encoding": "utf-16-le", "offset": 44, "line": 1},
}


@pytest.fixture
def files(workspace: Path) -> Path:
    (workspace / "bom.txt").write_bytes(BOM_FILE)
    (workspace / "gbk.py").write_bytes(GBK)
    (workspace / "d").mkdir()
    (workspace / "d" / "gbk.py").write_bytes(GBK)
    (workspace / ".editorconfig").write_text("root = true\n[d/*.py]\ncharset = utf-16le\n")
    return workspace


def unchanged(root: Path) -> None:
    assert (root / "bom.txt").read_bytes() == BOM_FILE
    assert (root / "gbk.py").read_bytes() == GBK
    assert (root / "d" / "gbk.py").read_bytes() == GBK


def waymark(root: Path, *args: str, pure: bool = False, stdin: str | None = None) -> Any:
    env = dict(os.environ)
    env.pop("WAYMARK_PURE_PYTHON", None)
    if pure:
        env["WAYMARK_PURE_PYTHON"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "waymark", *args],
        cwd=root,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


# Each file as it is named, with what makes it UTF-16 LE, and the sentence it is refused with.
TARGETS = [
    ("bom.txt", (), BOM),
    ("gbk.py", ("--encoding", "utf-16le"), DECLARED.format(encoding="--encoding")),
    ("d/gbk.py", (), DECLARED.format(encoding="--encoding")),
]
READS = [(), ("--hashes",), ("--offset", "2", "--limit", "1"), ("--hashes", "--offset", "2")]


@pytest.mark.parametrize("pure", [False, True], ids=["core", "pure"])
@pytest.mark.parametrize("how", READS, ids=["full", "hashes", "paged", "paged-hashes"])
@pytest.mark.parametrize(("path", "flags", "message"), TARGETS, ids=[t[0] for t in TARGETS])
def test_cli_read_refuses_with_the_first_bad_byte(
    files: Path, path: str, flags: tuple[str, ...], message: str, how: tuple[str, ...], pure: bool
) -> None:
    done = waymark(files, "read", path, *flags, *how, "--json", pure=pure)
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout) == {
        "ok": False,
        "error": "binary_file",
        "message": message,
        "details": DETAILS[path.rsplit("/", 1)[-1]],
        "via": "local",
    }
    plain = waymark(files, "read", path, *flags, *how, pure=pure)
    assert (plain.returncode, plain.stdout) == (1, "")
    assert plain.stderr == f"error: binary_file: {message}\n"
    unchanged(files)


PATCH = "--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-a\n+b\n"
CHANGES = {
    "replace": lambda path: ("replace", path, "a", "b"),
    "write": lambda path: ("write", path, "--content", "hello\n"),
    "edit": lambda path: (
        "edit",
        path,
        "--ops",
        '[{"op": "replace_line", "hash": "1#abcdef", "content": "x"}]',
    ),
    "patch": lambda path: ("patch",),
}


@pytest.mark.parametrize("verb", sorted(CHANGES))
@pytest.mark.parametrize(("path", "flags", "message"), TARGETS, ids=[t[0] for t in TARGETS])
def test_cli_changes_are_refused_and_write_nothing(
    files: Path, path: str, flags: tuple[str, ...], message: str, verb: str
) -> None:
    # As an agent would: the read is refused the same way, and the change after it too.
    assert waymark(files, "read", path, *flags).returncode == 1
    stdin = PATCH.format(path=path) if verb == "patch" else None
    done = waymark(files, *CHANGES[verb](path), *flags, "--json", stdin=stdin)
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    assert (result["error"], result["message"]) == ("binary_file", message), result
    assert result["details"] == DETAILS[path.rsplit("/", 1)[-1]]
    unchanged(files)


@pytest.mark.parametrize("path", ["bom.txt", "d/gbk.py"])
def test_cli_sed_declines_and_writes_nothing(files: Path, path: str) -> None:
    done = waymark(files, "sed", f"sed -i s/a/b/ {path}", "--json")
    result = json.loads(done.stdout)
    assert (result["ok"], result["simulated"]) == (True, False), result
    unchanged(files)


def compact(name: str) -> str:
    return json.dumps(DETAILS[name], separators=(",", ":"))


async def test_mcp_refuses_every_read_and_change_in_one_sentence(files: Path) -> None:
    declared = DECLARED.format(encoding="encoding")
    async with connect(files) as session:
        await call(session, "waymark_read", path="d/gbk.py")
        for arguments in ({}, {"hashes": True}, {"offset": 2, "limit": 1}):
            err, text = await call(session, "waymark_read", path="bom.txt", **arguments)
            assert err
            assert text == f"binary_file: {BOM}\n{compact('bom.txt')}"
            err, text = await call(
                session, "waymark_read", path="gbk.py", encoding="utf-16le", **arguments
            )
            assert err
            assert text == f"binary_file: {declared}\n{compact('gbk.py')}"
        err, text = await call(
            session, "waymark_replace", path="d/gbk.py", old_string="a", new_string="b"
        )
        assert err
        assert text.startswith(f"binary_file: {declared}\n")
        err, text = await call(session, "waymark_write", path="bom.txt", content="x\n")
        assert err
        assert text.startswith(f"binary_file: {BOM}\n")
    unchanged(files)

"""The pre-image cache's API for other doors (store/shelltrack/keep.py): ``ensure`` keeps the
current bytes of files and folders within the limits, naming what it refuses; ``preimage``
answers what a file held before a change, from the cache or from git's index."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from waymark.store.history import History
from waymark.store.shelltrack import ignored
from waymark.store.shelltrack.keep import ensure, preimage
from waymark.store.shelltrack.preimages import Unreachable

GIT = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return Path(os.path.realpath(root))


def test_ensure_keeps_files_and_folders_and_names_what_it_refuses(
    ws: Path, history: History
) -> None:
    (ws / "conf").mkdir()
    (ws / "conf/local.json").write_bytes(b'{"a": 1}\r\n')
    (ws / "node_modules/pkg").mkdir(parents=True)
    (ws / "node_modules/pkg/i.js").write_bytes(b"x")
    (ws / "big.bin").write_bytes(b"\0" * (ignored.FILE_LIMIT + 1))
    (ws / ".env.local").write_bytes(b"K=V\n")
    refused = ensure(history, [ws / "conf", ws / "node_modules", ws / "big.bin", ws / ".env.local"])
    assert refused == {
        os.fspath(ws / "node_modules"): "bulky_tree",
        os.fspath(ws / "big.bin"): "ignored_too_large",
    }
    seen = time.time_ns()
    (ws / "conf/local.json").write_bytes(b"changed")
    os.unlink(ws / ".env.local")
    assert preimage(history, ws / "conf/local.json", seen) == b'{"a": 1}\r\n'
    assert preimage(history, ws / ".env.local") == b"K=V\n"
    with pytest.raises(Unreachable):
        preimage(history, ws / "big.bin")
    # Copied after the moment asked about: not what the file held then.
    ensure(history, [ws / "conf/local.json"])
    with pytest.raises(Unreachable):
        preimage(history, ws / "conf/local.json", seen)


def test_preimage_of_a_clean_file_is_its_blob_in_the_index(ws: Path, history: History) -> None:
    (ws / "a.txt").write_bytes(b"as committed\n")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "i"]):
        subprocess.run([*GIT, *args], cwd=ws, check=True, capture_output=True)
    (ws / "a.txt").write_bytes(b"changed by another program\n")
    assert preimage(history, ws / "a.txt") == b"as committed\n"
    with pytest.raises(Unreachable):
        preimage(history, ws / "never.txt")

"""Each Linux-only call the server makes has a fallback for macOS, used when the attribute is
missing; each is tested here by taking the Linux attribute away."""

from __future__ import annotations

import os
import socket
import struct
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from waymark.doors.bridge import listener

# macOS's struct xucred: cr_version, cr_uid, cr_ngroups (short, padded), cr_groups[16].
XUCRED = struct.Struct("IIh2x16I")


class _Writer:
    def __init__(self, sock: Any) -> None:
        self.sock = sock

    def get_extra_info(self, name: str) -> Any:
        return self.sock if name == "socket" else None


class _MacSocket:
    """Answers getsockopt as macOS does for LOCAL_PEERCRED (level SOL_LOCAL, 0)."""

    def __init__(self, uid: int) -> None:
        self.uid = uid
        self.asked: list[tuple[int, int, int]] = []

    def getsockopt(self, level: int, option: int, size: int) -> bytes:
        self.asked.append((level, option, size))
        return XUCRED.pack(0, self.uid, 1, *([20] * 16))


def test_linux_peer_credentials_name_the_connecting_user() -> None:
    left, right = socket.socketpair(socket.AF_UNIX)
    with left, right:
        assert listener._peer_uid(_Writer(left)) == os.getuid()  # type: ignore[arg-type]


def test_without_so_peercred_the_uid_comes_from_local_peercred(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delattr(socket, "SO_PEERCRED", raising=False)
    monkeypatch.setattr(socket, "LOCAL_PEERCRED", 1, raising=False)
    sock = _MacSocket(uid=4242)
    assert listener._peer_uid(_Writer(sock)) == 4242  # type: ignore[arg-type]
    assert sock.asked == [(0, 1, XUCRED.size)]


def test_with_neither_the_uid_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    """Then the private 0700 directory, the 0600 socket and the token are the guards."""
    monkeypatch.delattr(socket, "SO_PEERCRED", raising=False)
    monkeypatch.delattr(socket, "LOCAL_PEERCRED", raising=False)
    assert listener._peer_uid(_Writer(_MacSocket(uid=4242))) is None  # type: ignore[arg-type]


def test_without_o_path_directories_are_opened_read_only_and_writes_still_land(
    tmp_path: Path,
) -> None:
    """macOS has no O_PATH: the walk opens each directory O_RDONLY instead (in a fresh
    interpreter, since the flags are chosen at import)."""
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "f.txt").write_bytes(b"old\n")
    script = textwrap.dedent(
        """
        import os, sys
        from pathlib import Path
        del os.O_PATH
        from waymark.store import files, walk
        assert walk._DIR_FLAGS & os.O_RDONLY == os.O_RDONLY and walk._O_PATH == os.O_RDONLY
        root = Path(sys.argv[1])
        files.atomic_write(root / "a" / "b" / "f.txt", b"new\\n")
        files.create_parents(root / "a" / "c" / "g.txt")
        files.atomic_write(root / "a" / "c" / "g.txt", b"made\\n")
        print(files.read_bytes(root / "a" / "b" / "f.txt").decode(), end="")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ.copy(),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "new\n"
    assert (tmp_path / "a" / "b" / "f.txt").read_bytes() == b"new\n"
    assert (tmp_path / "a" / "c" / "g.txt").read_bytes() == b"made\n"

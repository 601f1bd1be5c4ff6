"""Where running editors advertise their bridge: one 0600 entry per server in a 0700 dir.

An entry names the server's pid, workspace folders, socket path and a random token. Entries of
dead servers (pid gone or socket missing) are removed by whoever finds them.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import stat
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from waymark.store.private import make_private_dir, open_private

ENV_DIR = "WAYMARK_RUNTIME_DIR"


class UnsafeRuntimeDir(Exception):
    """The runtime dir is not a private directory of this user."""


@dataclass(frozen=True)
class Entry:
    pid: int
    folders: list[str]
    socket: str
    token: str
    version: str

    @property
    def path(self) -> Path:
        return Path(self.socket).with_suffix(".json")


def runtime_dir() -> Path:
    """The per-user bridge dir: ``$WAYMARK_RUNTIME_DIR``, ``$XDG_RUNTIME_DIR/waymark``, /tmp."""
    if os.environ.get(ENV_DIR):
        return Path(os.environ[ENV_DIR])
    if os.environ.get("XDG_RUNTIME_DIR"):
        return Path(os.environ["XDG_RUNTIME_DIR"]) / "waymark"
    return Path(tempfile.gettempdir()) / f"waymark-{os.getuid()}"


def private_dir() -> Path:
    """The runtime dir, created 0700; refused if another user owns it or others can enter."""
    path = runtime_dir()
    make_private_dir(path)
    info = path.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise UnsafeRuntimeDir(f"{path} is not a directory owned by this user.")
    if stat.S_IMODE(info.st_mode) & 0o077:
        raise UnsafeRuntimeDir(f"{path} is open to other users (mode {info.st_mode & 0o777:o}).")
    return path


def new_entry(folders: list[Path], version: str) -> Entry:
    pid = os.getpid()
    socket = private_dir() / f"ls-{pid}.sock"
    # Callers look themselves up by real path; an editor may have opened a symlinked folder.
    real = [os.path.realpath(f) for f in folders]
    return Entry(pid, real, str(socket), secrets.token_hex(32), version)


def publish(entry: Entry) -> None:
    """Write the entry atomically with mode 0600 (the token must not leak to other users)."""
    tmp = entry.path.with_suffix(".tmp")
    fd = open_private(tmp, os.O_WRONLY | os.O_TRUNC | os.O_NOFOLLOW)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(asdict(entry), f)
    os.replace(tmp, entry.path)


def withdraw(entry: Entry) -> None:
    for path in (entry.path, Path(entry.socket)):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's pid now: not our server
        return False
    return True


def _load(path: Path) -> Entry | None:
    try:
        info = path.lstat()
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
        entry = Entry(
            pid=int(data["pid"]),
            folders=[str(f) for f in data["folders"]],
            socket=str(data["socket"]),
            token=str(data["token"]),
            version=str(data["version"]),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return entry if entry.path == path else None


def entries() -> list[Entry]:
    """Live entries; stale ones are removed on the way."""
    try:
        directory = private_dir()
    except (OSError, UnsafeRuntimeDir):
        return []
    live = []
    for path in sorted(directory.glob("ls-*.json")):
        entry = _load(path)
        if entry is None:
            continue
        if _alive(entry.pid) and Path(entry.socket).exists():
            live.append(entry)
        else:
            withdraw(entry)
    return live


def find(root: Path) -> Entry | None:
    """The editor whose workspace holds ``root``: the innermost folder, then the newest server."""
    best: tuple[int, float, Entry] | None = None
    for entry in entries():
        for folder in entry.folders:
            folder_path = Path(folder)
            if root == folder_path or folder_path in root.parents:
                try:
                    mtime = entry.path.stat().st_mtime
                except OSError:
                    continue
                rank = (len(folder_path.parts), mtime, entry)
                if best is None or rank[:2] > best[:2]:
                    best = rank
    return None if best is None else best[2]

"""Pre-images of files a shell command may change, kept without copying the workspace.

Clean files of a git work tree need nothing: their index blob is their pre-image, read
afterwards with ``git cat-file`` (read-only). Every other file is copied into a
content-addressed cache next to the workspace's history, once: a stat cache remembers which
digest each file held, so the next command copies only files that changed since. Copies are
bounded per command (``max_bytes``); a file beyond the bound is reported, not tracked.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from waymark.store.files import digest
from waymark.store.private import make_private_dir, open_private
from waymark.store.shelltrack.scan import Signature

DEFAULT_MAX_BYTES = 256 * 1024 * 1024
# A command whose Post never came (denied, host killed) leaves its state; gone after this.
_STALE_PENDING_S = 86400
# A stat stands for "unchanged" only if the file was already this much older than our read.
_RACY_NS = 2_000_000_000


class Unreachable(Exception):
    """The file cannot be backed up; ``args[0]`` is the reason reported for it."""


class Preimages:
    """The cache under ``directory`` (the history's ``shell/``) and its stat index."""

    def __init__(self, directory: Path, *, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.dir = directory
        self.blobs = directory / "blobs"
        # The blobs present, listed once (None: not yet): a walk outside git asks about every
        # file of the tree, and one listing is cheaper than a stat each.
        self._blob_names: set[str] | None = None
        self.max_bytes = max_bytes
        self.copied = 0
        self._index_path = directory / "index.marshal"
        # Read when first asked: a command's Post rarely needs it.
        self._loaded: dict[str, tuple[Signature, str, int]] | None = None
        self._dirty = False
        # Digests this object stopped naming: the blobs save may remove.
        self._dropped: set[str] = set()
        make_private_dir(self.dir)
        make_private_dir(self.blobs)

    @property
    def _index(self) -> dict[str, tuple[Signature, str, int]]:
        if self._loaded is None:
            raw = _read_state(self._index_path)
            self._loaded = dict(raw) if isinstance(raw, dict) else {}
        return self._loaded

    def up_to_date(self, key: str, sig: Signature) -> str | None:
        """The digest of ``key``'s copy if it is known to hold its bytes now: what
        :meth:`back_up` answers without reading the file (a walk asks of every file)."""
        cached = self._index.get(key)
        if (
            cached is not None
            and cached[0] == sig
            and max(sig[4], sig[5]) <= cached[2] - _RACY_NS
            and cached[1] in self._present()
        ):
            return cached[1]
        return None

    def holds(self, key: str, sig: Signature, content: str) -> bool:
        """Whether ``key``'s copy is ``content``, made of the file as ``sig`` says it is now
        (its caller knows the file unchanged since, so no racy-stat rule applies)."""
        cached = self._index.get(key)
        return (
            cached is not None
            and cached[0] == sig
            and cached[1] == content
            and content in self._present()
        )

    def entry(self, key: str) -> tuple[Signature, str, int] | None:
        """``key``'s copy: the file's stat then, the copy's digest, when it was read (ns)."""
        return self._index.get(key)

    def back_up(self, key: str, sig: Signature, limit: int, *, copy: bool = True) -> str:
        """The digest of ``key``'s bytes, stored in the cache; :class:`Unreachable` if not.

        The caller checked ``sig``'s size against ``limit``; a file grown past it since is
        read no further than the limit. With ``copy`` false only a copy already cached
        answers (a command's time for copying is spent).
        """
        known = self.up_to_date(key, sig)
        if known is not None:
            return known
        cached = self._index.get(key)
        if not copy:
            raise Unreachable("not_backed_up_yet")
        if self.copied + sig[3] > self.max_bytes:
            raise Unreachable("backup_budget")
        read_ns = time.time_ns()
        try:
            with open(key, "rb") as handle:
                data = handle.read(limit + 1)
        except OSError as exc:
            raise Unreachable("unreadable") from exc
        if len(data) > limit:
            raise Unreachable("too_large")
        self.copied += len(data)
        content = digest(data)
        if content not in self._present():
            try:
                _write_blob(self.blobs / content, data)
            except OSError as exc:
                raise Unreachable("backup_failed") from exc
            self._present().add(content)
        if cached is not None and cached[1] != content:
            self._dropped.add(cached[1])
        self._index[key] = (sig, content, read_ns)
        self._dirty = True
        return content

    def _present(self) -> set[str]:
        # Only a holder of the history's lock writes or sweeps blobs, so the listing holds
        # for as long as this object lives (one hook call).
        if self._blob_names is None:
            try:
                self._blob_names = set(os.listdir(self.blobs))
            except OSError:
                self._blob_names = set()
        return self._blob_names

    def load(self, content: str) -> bytes:
        """The bytes backed up as ``content``; :class:`Unreachable` if they are not those."""
        try:
            data = (self.blobs / content).read_bytes()
        except OSError as exc:
            raise Unreachable("backup_failed") from exc
        if digest(data) != content:
            raise Unreachable("backup_failed")
        return data

    def save(self) -> None:
        """Persist the stat index and drop blobs no entry names any more."""
        if not self._dirty:
            return
        _write_state(self._index_path, dict(self._index))
        live = {d for _, d, _ in self._index.values()} | self._pending_digests()
        # Every blob when they were listed anyway (leftovers of a crash go too), else those
        # this object stopped naming.
        listed = self._blob_names if self._blob_names is not None else self._dropped
        for name in listed - live:
            with contextlib.suppress(OSError):
                os.unlink(self.blobs / name)
                self._present().discard(name)
        self._dropped.clear()

    def forget(self, keys: list[str]) -> None:
        """Drop entries of files that no longer exist."""
        if not keys:
            return
        for key in keys:
            gone = self._index.pop(key, None)
            if gone is not None:
                self._dropped.add(gone[1])
                self._dirty = True

    # -- commands in flight -------------------------------------------------------------------

    def put_pending(self, name: str, value: dict[str, Any]) -> None:
        make_private_dir(self.dir / "pending")
        _write_state(self._pending(name), value)

    def take_pending(self, name: str) -> dict[str, Any] | None:
        path = self._pending(name)
        value = _read_state(path)
        _MEMO.pop(path, None)  # taken once: a walk's scan is megabytes a resident server keeps
        if value is None:
            return None
        with contextlib.suppress(OSError):
            path.unlink()
        return value if isinstance(value, dict) else None

    def _pending_digests(self) -> set[str]:
        """Digests commands still running need (another one may have re-backed their file)."""
        out: set[str] = set()
        cutoff = time.time() - _STALE_PENDING_S
        with contextlib.suppress(OSError):
            for entry in os.scandir(self.dir / "pending"):
                with contextlib.suppress(OSError):
                    if entry.stat(follow_symlinks=False).st_mtime < cutoff:
                        os.unlink(entry.path)
                        continue
                with contextlib.suppress(OSError, ValueError, LookupError, TypeError):
                    out.update(_decode(Path(entry.path).read_bytes())["backups"].values())
        return out

    def pending_path(self, name: str, suffix: str) -> Path:
        """Where a command in flight keeps a file of its own (e.g. a copy of the git index)."""
        make_private_dir(self.dir / "pending")
        safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in name)[:120]
        return self.dir / "pending" / f"{safe}.{suffix}"

    def _pending(self, name: str) -> Path:
        return self.pending_path(name, "state")


# State files this process wrote or read last, by path: (the file's identity, its value). A
# resident process (the hook server) then reads back its own writes without decoding them;
# a file another process replaced since has another identity and is read afresh.
_MEMO: dict[Path, tuple[tuple[int, ...], Any]] = {}
_MEMO_MAX = 16


def _identity(st: os.stat_result) -> tuple[int, ...]:
    # Not the ctime: the rename into place moves it.
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _write_state(path: Path, value: Any) -> None:
    """Replace a state file whole, without a sync: a crash loses at most the copies the stat
    index names (they are made again) or a command in flight (its Post reports nothing)."""
    temp = path.with_name(f".{path.name}.{os.getpid()}.{time.monotonic_ns()}")
    fd = open_private(temp, os.O_WRONLY | os.O_EXCL | os.O_NOFOLLOW)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(marshal.dumps(value))
            identity = _identity(os.fstat(handle.fileno()))
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    _remember(path, identity, value)


def _read_state(path: Path) -> Any:
    """A state file's value (None: absent or not one); the caller must not change it."""
    try:
        with open(path, "rb") as handle:
            identity = _identity(os.fstat(handle.fileno()))
            memo = _MEMO.get(path)
            if memo is not None and memo[0] == identity:
                return memo[1]
            value = _decode(handle.read())
    except (OSError, ValueError):
        return None
    _remember(path, identity, value)
    return value


def _remember(path: Path, identity: tuple[int, ...], value: Any) -> None:
    _MEMO.pop(path, None)
    _MEMO[path] = (identity, value)
    while len(_MEMO) > _MEMO_MAX:
        _MEMO.pop(next(iter(_MEMO)))


def _decode(data: bytes) -> Any:
    """A state file: marshal, written by :meth:`Preimages.save` and ``put_pending`` (a walk's
    thousands of stat signatures load in a millisecond, where JSON took five); only this
    user writes the folder. :class:`ValueError` if it is not one."""
    try:
        return marshal.loads(data)
    except (EOFError, TypeError) as exc:
        raise ValueError("not a state file") from exc


def _write_blob(path: Path, data: bytes) -> None:
    """A copy named by its digest, written once and not synced: the first command in a
    folder without git copies thousands of files, and a sync each would take seconds. A copy
    a crash cut short no longer matches its name, and :meth:`Preimages.load` refuses it."""
    try:
        fd = open_private(path, os.O_WRONLY | os.O_EXCL | os.O_NOFOLLOW)
    except FileExistsError:
        return  # the same bytes, written by an earlier command
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise


def git_blobs(root: Path, ids: set[str], limit: int) -> tuple[dict[str, bytes], set[str]]:
    """The contents of git blobs ``ids`` of the repository at ``root`` (read-only), and the
    ids over ``limit`` bytes, whose contents are never fetched."""
    if not ids:
        return {}, set()
    asked = _batch_command(root, sorted(ids), limit)
    if asked is not None:
        return asked
    oversized = {i for i, size in _blob_sizes(root, sorted(ids)).items() if size > limit}
    order = sorted(ids - oversized)
    out: dict[str, bytes] = {}
    data = _cat_file(root, "--batch", order)
    pos = 0
    for blob_id in order:
        end = data.find(b"\n", pos)
        if end < 0:
            break
        header = data[pos:end].split(b" ")
        pos = end + 1
        if len(header) != 3 or header[1] != b"blob":
            continue
        size = int(header[2])
        out[blob_id] = data[pos : pos + size]
        pos += size + 1
    return out, oversized


def _batch_command(
    root: Path, order: list[str], limit: int
) -> tuple[dict[str, bytes], set[str]] | None:
    """:func:`git_blobs` with one ``git cat-file --batch-command`` (git 2.36 and later):
    each blob's size is asked first, its bytes only if it is within ``limit``. None where
    git has no such mode (the caller then asks twice)."""
    try:
        proc = subprocess.Popen(
            ["git", "cat-file", "--batch-command"],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
        )
    except OSError:
        return None
    assert proc.stdin is not None and proc.stdout is not None
    # A git that hangs is killed, as subprocess.run's timeout would.
    watchdog = threading.Timer(120, proc.kill)
    watchdog.start()
    out: dict[str, bytes] = {}
    oversized: set[str] = set()
    try:
        # In chunks: git answers each command as it reads it, and a pipe holds 64 KB.
        for start in range(0, len(order), 500):
            chunk = order[start : start + 500]
            proc.stdin.write("".join(f"info {i}\n" for i in chunk).encode())
            proc.stdin.flush()
            sizes: dict[str, int] = {}
            for blob_id in chunk:
                fields = proc.stdout.readline().split()
                if not fields:
                    return None  # no --batch-command here (or git died): ask the old way
                if len(fields) == 3 and fields[1] == b"blob" and fields[2].isdigit():
                    sizes[blob_id] = int(fields[2])
            for blob_id, size in sizes.items():
                if size > limit:
                    oversized.add(blob_id)
                    continue
                proc.stdin.write(f"contents {blob_id}\n".encode())
                proc.stdin.flush()
                header = proc.stdout.readline().split()
                if len(header) != 3 or int(header[2]) != size:
                    return None
                out[blob_id] = proc.stdout.read(size + 1)[:size]
        proc.stdin.close()
        proc.wait()
    except (OSError, ValueError):
        return None
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return out, oversized


def _blob_sizes(root: Path, order: list[str]) -> dict[str, int]:
    """Sizes of git objects ``order`` (``cat-file --batch-check``; a missing one is absent)."""
    sizes: dict[str, int] = {}
    for line in _cat_file(root, "--batch-check", order).decode("ascii", "replace").splitlines():
        fields = line.split(" ")
        if len(fields) == 3 and fields[2].isdigit():
            sizes[fields[0]] = int(fields[2])
    return sizes


def _cat_file(root: Path, mode: str, order: list[str]) -> bytes:
    """``git cat-file`` of objects ``order`` in ``mode``, read-only (no optional locks)."""
    return subprocess.run(
        ["git", "cat-file", mode],
        cwd=root,
        input="".join(f"{i}\n" for i in order).encode(),
        capture_output=True,
        env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
        timeout=120,
        check=False,
    ).stdout

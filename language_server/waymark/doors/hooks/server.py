"""The resident hook server: hook calls answered by a process that has Waymark imported.

Started by the first hook call that finds none (:func:`waymark.doors.hook_relay.relay`), one
per user, install and state directory, on a Linux abstract socket. Each call is run by
:func:`waymark.doors.hooks.run` exactly as the hook process would have run it: in that
process's environment, working directory and umask, with its stdin, its stdout and stderr
sent back. Calls run one at a time; the stores' locks order them against every other
process, as between hook processes.

Only its own user is served (SO_PEERCRED). It exits after :data:`IDLE_S` without a call
(``WAYMARK_HOOK_SERVER_IDLE`` seconds), and declines a call (the hook then runs it in its own
process) and exits once any file of the installed package changed on disk (or went), whether
it was loaded at start-up, later (the sed engine, rewind) or not yet: an upgrade or an edit never
runs old code, nor old and new mixed. Its pid is in the state directory
(``hook-server-<key>.pid``).

A call is bound as in the hook process (:func:`waymark.doors.hooks.run`): its waits end by
the host's timeout counted from the relay's start, and before it writes it checks that the
relay is still connected: the host kills the relay at its timeout and runs the tool itself,
so a call whose relay is gone must not act.
"""

from __future__ import annotations

import contextlib
import io
import os
import socket
import sys
import time
from pathlib import Path

from waymark.doors import hook_relay
from waymark.store.private import FILE_MODE, make_private_dir

IDLE_S = 600.0
# The client sends its call right after the greeting; a silent one is dropped.
REQUEST_S = 5.0
_FIELDS = 6


def main() -> None:
    key = hook_relay.server_key()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(hook_relay.address(key))
    except OSError:
        return  # another server of this key started first
    listener.listen(64)
    _warm()
    modules = _package_stamps()
    # Written once the code is loaded and stamped: a file changed after its pid file
    # appears is one this server notices.
    pid_file = hook_relay.pid_path(key)
    try:
        make_private_dir(Path(pid_file).parent)
        _write_pid(pid_file)
    except OSError:
        return
    try:
        os.chdir("/")
        listener.settimeout(_idle_seconds())
        serve(listener, modules)
    finally:
        with contextlib.suppress(OSError):
            if _read_pid(pid_file) == os.getpid():
                os.unlink(pid_file)


def serve(listener: socket.socket, modules: Stamps) -> None:
    while True:
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            return
        with conn:
            if not _serve_one(conn, modules):
                return


def _serve_one(conn: socket.socket, modules: Stamps) -> bool:
    """Answer one connection; False once this server must stop (its code changed)."""
    try:
        if hook_relay.peer_uid(conn) != os.getuid():
            return True
        conn.settimeout(REQUEST_S)
        conn.sendall(hook_relay.GREETING)
        fields = [hook_relay.read_frame(conn) for _ in range(_FIELDS)]
        conn.settimeout(None)
    except OSError:
        return True
    host, cwd, umask, environ, stdin, started = fields
    fresh = _unchanged(modules)
    known = _known_host(host.decode("utf-8", "replace"))
    if not fresh or not known or not umask.isdigit() or not started.isdigit():
        # No reason for a host it does not know: the CLI words that error, as without a server.
        reason = b"" if fresh else b"is older than Waymark's files"
        _decline(conn, reason)
        return fresh
    # A relay's clock is this one (CLOCK_MONOTONIC is system-wide); never later than now.
    since = min(int(started) / 1e9, time.monotonic())
    try:
        code, out, err = _run(host.decode(), cwd, int(umask), environ, stdin, since, conn)
    except Exception as exc:
        # The hook then runs the call itself: whatever broke here must not end the server.
        _decline(conn, f"failed ({type(exc).__name__}: {exc})".encode())
        return True
    with contextlib.suppress(OSError):
        conn.sendall(
            hook_relay.ANSWERED
            + bytes([code & 0xFF])
            + hook_relay.frame(out)
            + hook_relay.frame(err)
        )
    return True


def _decline(conn: socket.socket, reason: bytes) -> None:
    with contextlib.suppress(OSError):
        conn.sendall(hook_relay.DECLINED + hook_relay.frame(reason))


def _gone(conn: socket.socket) -> bool:
    """Whether the relay hung up (killed by its host): it only reads once it has sent."""
    try:
        return conn.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def _run(
    host: str,
    cwd: bytes,
    umask: int,
    environ: bytes,
    stdin: bytes,
    started: float,
    conn: socket.socket,
) -> tuple[int, bytes, bytes]:
    """One hook call in its process's environment, working directory and umask."""
    from waymark.doors.hooks import run

    saved = dict(os.environb)
    out, err = io.StringIO(), io.StringIO()
    try:
        os.environb.clear()
        for item in environ.split(b"\0"):
            name, sep, value = item.partition(b"=")
            if sep and name:
                os.environb[name] = value
        os.umask(umask)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                os.chdir(cwd)
            except OSError as exc:
                # The hook process could not have started there either: the tool runs untracked.
                print(f"waymark hook: skipped ({exc})", file=sys.stderr)
                code = 0
            else:
                code = run(host, stdin, out, err, started=started, caller_gone=lambda: _gone(conn))
    finally:
        os.environb.clear()
        os.environb.update(saved)
        os.chdir("/")
    return (
        code,
        out.getvalue().encode("utf-8", "surrogateescape"),
        err.getvalue().encode("utf-8", "surrogateescape"),
    )


def _known_host(name: str) -> bool:
    from waymark.doors.hosts import HOOK_HOSTS

    return name in HOOK_HOSTS


def _warm() -> None:
    """Import what the hooks use, so the first call does not pay for it; keep histories
    open between calls; and watch the folders commands run in, so a command's Post looks
    only where it changed something."""
    from waymark.doors import entry
    from waymark.doors.hooks import handlers  # noqa: F401
    from waymark.store.shelltrack import track, watch  # noqa: F401

    entry.keep_histories()
    watch.enable()


# Each file's (mtime, size, inode), or None when it is gone.
Stamps = dict[str, tuple[int, int, int] | None]


def _package_stamps() -> Stamps:
    """The stamps of every file of the package this server runs: a file edited, replaced or
    removed changes them. The whole package rather than the modules loaded: a module imported
    later must not be newer than the rest. Not its folders: a ``__pycache__`` made by an
    import changes its folder's mtime (a file an upgrade adds is imported by one it changed)."""
    return {path: _stamp(path) for path in _package_files()}


def _stamp(path: str) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def _unchanged(stamps: Stamps) -> bool:
    """Whether the package is as stamped: about 120 ``stat`` calls, a few hundred
    microseconds per call (bench/results.md)."""
    return all(_stamp(path) == stamp for path, stamp in stamps.items())


def _package_files() -> list[str]:
    package = os.path.join(hook_relay.PACKAGE_PARENT, "waymark")
    found: list[str] = []
    for folder, dirs, files in os.walk(package):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        found.extend(os.path.join(folder, name) for name in files)
    return found


def _idle_seconds() -> float:
    try:
        return max(0.1, float(os.environ.get(hook_relay.ENV_IDLE, "")))
    except ValueError:
        return IDLE_S


def _write_pid(path: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, FILE_MODE)
    with os.fdopen(fd, "w") as handle:
        handle.write(f"{os.getpid()}\n")


def _read_pid(path: str) -> int | None:
    try:
        with open(path) as handle:
            return int(handle.read().strip())
    except (OSError, ValueError):
        return None

"""The hook's fast path: hand the call to a resident hook server, or start one.

A host runs ``waymark hook <host>`` around every tool call. Started cold, that process
spends most of its time importing Waymark; a resident server of the same install (one per
user and state directory, :mod:`waymark.doors.hooks.server`) has everything imported and
answers in the time of a socket round trip. This module is all a hook imports before it
knows whether a server answers, so it uses only what the interpreter has loaded at start
(``_socket`` and ``zlib`` are built in).

Nothing here may lose a call. The relay gives up, and the hook runs in this process as it
would without a server, when: the platform has no abstract sockets (not Linux), the server
is off (``WAYMARK_HOOK_SERVER=off``), none listens (one is started for the next call), the
listener is another user's, it does not greet within :data:`GREETING_S` (frozen, or busy
with a slow call), or it fails before answering. A server runs a call only after greeting,
so a call given up before that is never run twice; one that fails after is guarded by the
hook's once-per-call record.

Nor may a call act late or twice. The relay sends when it started, so the server bounds the
call's waits by the host's timeout as the hook process would, and the server writes nothing
for a call whose relay is gone (the host killed it at its timeout and runs the tool itself).
If the server stops after it began simulating a sed -i, the relay's own run finds the call's
once-per-call record and answers what the record says instead of running it again.

The wire: the server greets with :data:`GREETING`; the client sends length-prefixed fields
(host, cwd, umask, environment, stdin, and the hook's start in ``time.monotonic()``
nanoseconds); the server answers :data:`ANSWERED` with the exit code, stdout and stderr, or
:data:`DECLINED` with a reason (its code is older than the files on disk; none for a host it
does not know), and the client runs the call itself.
"""

from __future__ import annotations

import os
import sys
import zlib

from waymark.store.state_home import state_dir

GREETING = b"waymark-hooks 2\n"
ANSWERED = b"A"
DECLINED = b"D"
# A resident server greets at once unless it is frozen or still at another call.
GREETING_S = 1.0
ENV_SWITCH = "WAYMARK_HOOK_SERVER"
ENV_IDLE = "WAYMARK_HOOK_SERVER_IDLE"
PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def enabled() -> bool:
    return sys.platform == "linux" and os.environ.get(ENV_SWITCH, "").lower() != "off"


def server_key() -> str:
    """Which server serves this process: one per install, environment (a venv's ``python``
    and ``python3`` are one), interpreter and state directory."""
    interpreter = os.path.realpath(sys.executable)
    seed = f"{PACKAGE_PARENT}\0{sys.prefix}\0{interpreter}\0{state_dir()}".encode(
        "utf-8", "surrogateescape"
    )
    return f"{os.getuid()}-{zlib.crc32(seed):08x}{zlib.adler32(seed):08x}"


def address(key: str) -> bytes:
    """An abstract socket name: no file to go stale, gone with the process that bound it."""
    return b"\0waymark-hooks-" + key.encode()


def pid_path(key: str) -> str:
    return os.path.join(state_dir(), f"hook-server-{key}.pid")


def frame(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


def read_exact(sock: object, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = sock.recv(min(left, 1 << 20))  # type: ignore[attr-defined]
        if not chunk:
            raise ConnectionError("the peer closed the connection")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_frame(sock: object) -> bytes:
    return read_exact(sock, int.from_bytes(read_exact(sock, 4), "big"))


def peer_uid(sock: object) -> int:
    import _socket

    creds = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12)  # type: ignore[attr-defined]
    return int.from_bytes(creds[4:8], sys.byteorder)


def relay(host_name: str, stdin: bytes, started: float) -> int | None:
    """The hook's exit code as the server answered it (its output written), or None: the
    caller runs the hook itself. ``started``: when the hook process began
    (``time.monotonic()``)."""
    if not enabled():
        return None
    import _socket

    key = server_key()
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(GREETING_S)
        try:
            sock.connect(address(key))
        except (ConnectionRefusedError, FileNotFoundError):
            _start_server()
            return None
        if peer_uid(sock) != os.getuid() or read_exact(sock, len(GREETING)) != GREETING:
            return None
        sock.settimeout(None)
        environ = b"\0".join(k + b"=" + v for k, v in os.environb.items())
        umask = os.umask(0)
        os.umask(umask)
        fields = (
            host_name.encode(),
            os.getcwdb(),
            b"%d" % umask,
            environ,
            stdin,
            b"%d" % int(started * 1e9),
        )
        sock.sendall(b"".join(frame(f) for f in fields))
        kind = read_exact(sock, 1)
        if kind != ANSWERED:
            reason = read_frame(sock).decode("utf-8", "replace")
            if reason:
                sys.stderr.write(f"waymark hook: the hook server {reason}; running here\n")
            return None
        code = read_exact(sock, 1)[0]
        out, err = read_frame(sock), read_frame(sock)
    except OSError:
        return None
    finally:
        sock.close()
    sys.stdout.buffer.write(out)
    sys.stdout.flush()
    sys.stderr.buffer.write(err)
    return code


def _start_server() -> None:
    """A detached server for the next calls: its own session, no terminal, no pipes of ours
    (a host waits for the hook's output to close)."""
    null = os.devnull
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, null, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, null, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, null, os.O_WRONLY, 0),
    ]
    # Descriptors the host let the hook inherit (a pipe it waits on) are closed first.
    code = (
        "import os, sys; os.closerange(3, 1 << 20); sys.path.insert(0, sys.argv[1]); "
        "from waymark.doors.hooks.server import main; main()"
    )
    try:
        os.posix_spawn(
            sys.executable,
            [sys.executable, "-P", "-c", code, PACKAGE_PARENT],
            os.environ,
            file_actions=actions,
            setsid=True,
        )
    except OSError:
        return  # no server then: every call runs in its own process, as before

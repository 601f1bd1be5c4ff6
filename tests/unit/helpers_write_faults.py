"""Child side of the fault tests: provoke one OS error under ``files.atomic_write``.

Run as ``python helpers_write_faults.py MODE DIR``; it prints one JSON line describing what
happened. The parent (test_faults.py) sets the fault up around it — a tiny tmpfs or a
read-only bind mount inside ``unshare -rm`` — or the child sets it up itself (dropping to
uid 65534 after its imports, an RLIMIT_FSIZE). Where the fault lives in a private mount
namespace the parent cannot look at the files afterwards, so the child reports the bytes and
the directory listing it sees after the failed write.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import sys
from pathlib import Path

ORIGINAL = b"original line 1\r\noriginal line 2\r\n" * 32  # 1 KB, CRLF, must survive as is
NEW = b"replacement line\n" * 65536  # 1 MB: far more than the faults allow


def attempt(directory: Path, target: Path) -> dict[str, object]:
    from waymark.engine.errors import IoError
    from waymark.store import files

    result: dict[str, object] = {"euid": os.geteuid()}
    try:
        files.atomic_write(target, NEW)
    except IoError as exc:
        result.update(raised="IoError", code=exc.code, details=exc.details, message=exc.message)
    except BaseException as exc:  # report, do not crash: the parent asserts on it
        result.update(raised=type(exc).__name__, message=str(exc))
    else:
        result.update(raised=None)
    data = target.read_bytes() if target.exists() else None
    result["original_intact"] = data == ORIGINAL
    result["size_after"] = None if data is None else len(data)
    result["listing"] = sorted(os.listdir(directory))
    return result


def main(mode: str, directory: Path) -> None:
    from waymark.store import files  # noqa: F401  # import before any privilege drop or limit

    target = directory / "target.txt"
    if mode in {"enospc-data", "enospc-inodes"}:
        # The tmpfs was mounted empty by the parent's unshare; the original goes in first.
        target.write_bytes(ORIGINAL)
        st = os.statvfs(directory)
        setup = {"free_bytes": st.f_bavail * st.f_frsize, "free_inodes": st.f_favail}
    elif mode == "eacces":
        os.setgroups([])
        os.setresgid(65534, 65534, 65534)
        os.setresuid(65534, 65534, 65534)
        setup = {"writable": os.access(directory, os.W_OK)}
    elif mode == "erofs":
        setup = {"readonly": bool(os.statvfs(directory).f_flag & os.ST_RDONLY)}
    elif mode == "efbig":
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # get EFBIG instead of being killed
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))
        setup = {"rlimit_fsize": 64 * 1024}
    else:
        raise SystemExit(f"unknown mode {mode}")
    result = attempt(directory, target)
    result["setup"] = setup
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]))
